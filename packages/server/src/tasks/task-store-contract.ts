import type { InputRequest } from '@mcp-inflight/core/adapter';
import { ManualClock } from '@mcp-inflight/core/testing';
import type { TaskRecord } from './task-record.js';
import type { SharedTaskStore, TaskStoreOptions } from './task-store.js';

/**
 * The part of a test runner {@link taskStoreContract} needs: vitest's, jest's, node:test's or mocha's
 * `describe` and `it` fit as they are. An `it` body rejects to fail.
 *
 * @example
 * ```ts
 * import type { ContractRunner } from '@mcp-inflight/server/testing';
 * declare const describe: ContractRunner['describe'];
 * declare const it: ContractRunner['it'];
 * const runner: ContractRunner = { describe, it };
 * ```
 */
export interface ContractRunner {
  /** Groups the cases under `name`. */
  describe(name: string, body: () => void): void;
  /** One case; the returned promise rejects when it fails. */
  it(name: string, body: () => Promise<void>): void;
}

/**
 * The settings a store under contract is made with: every field set, the clock a fresh
 * `ManualClock` per case (the store's TTL timers must run on it).
 *
 * @example
 * ```ts
 * import type { TaskStoreSettings } from '@mcp-inflight/server/testing';
 * const describeSettings = (s: TaskStoreSettings): string => `${s.maxTasks} tasks, ${s.defaultTtlMs} ms`;
 * ```
 */
export interface TaskStoreSettings extends Required<TaskStoreOptions> {
  /** The clock the store's TTL timers must run on; the case moves it. */
  clock: ManualClock;
}

/**
 * Options for {@link taskStoreContract}.
 *
 * @example
 * ```ts
 * import type { TaskStoreContractOptions } from '@mcp-inflight/server/testing';
 * const options: TaskStoreContractOptions = { settle: () => new Promise((resolve) => setTimeout(resolve, 0)) };
 * ```
 */
export interface TaskStoreContractOptions {
  /**
   * Another instance's view of the same tasks (a second client on the same Redis). The cases that say
   * "from another instance" read and cancel through it. @default the store itself
   */
  peer?: (store: SharedTaskStore, settings: TaskStoreSettings) => SharedTaskStore | Promise<SharedTaskStore>;
  /** Lets a networked store deliver what it has in flight (watch events) before a case looks. @default a few microtask turns */
  settle?: () => Promise<void>;
}

const ASK: InputRequest = { method: 'elicitation/create', params: { message: 'Sure?' } };

/**
 * The suite every {@link SharedTaskStore} must pass, registered on `runner`: create, status and status
 * message, input requests and answers, result and error, TTL expiry, the cap, owner binding, cancel, a
 * task readable from another instance once `createTask` resolves, and records that are plain data.
 * `makeStore` gets fresh settings (and a fresh `ManualClock`) for each case. It imports no test runner.
 *
 * @example
 * ```ts
 * import { TaskStore } from '@mcp-inflight/server/tasks';
 * import { type ContractRunner, taskStoreContract } from '@mcp-inflight/server/testing';
 * declare const describe: ContractRunner['describe'];
 * declare const it: ContractRunner['it'];
 * taskStoreContract('TaskStore (in memory)', { describe, it }, (settings) => new TaskStore(settings));
 * ```
 */
export function taskStoreContract(
  name: string,
  runner: ContractRunner,
  makeStore: (settings: TaskStoreSettings) => SharedTaskStore | Promise<SharedTaskStore>,
  options: TaskStoreContractOptions = {},
): void {
  const settle = options.settle ?? turns;
  const setup = async () => {
    const settings: TaskStoreSettings = {
      clock: new ManualClock(),
      defaultTtlMs: 1_000,
      maxTtlMs: 5_000,
      pollIntervalMs: 100,
      maxTasks: 3,
    };
    const store = await makeStore(settings);
    const peer = options.peer ? await options.peer(store, settings) : store;
    const create = async (owner?: string, ttlMs?: number): Promise<TaskRecord> => {
      const task = await store.createTask(owner, ttlMs);
      check(task !== undefined, 'createTask made a task below the cap');
      return task as TaskRecord;
    };
    const watch = async (taskId: string) => {
      const seen: TaskRecord[] = [];
      const unwatch = await store.watchTask(taskId, (task) => seen.push(task));
      return { seen, unwatch };
    };
    return { settings, clock: settings.clock, store, peer, create, watch };
  };
  const it = (title: string, body: (t: Awaited<ReturnType<typeof setup>>) => Promise<void>): void =>
    runner.it(title, async () => body(await setup()));

  runner.describe(`${name}: the task store contract`, () => {
    it('create: a working task, its TTL (default, bounded), a fresh id, readable from another instance at once', async (t) => {
      const a = await t.create('owner-a');
      equal(
        pick(a, 'owner', 'status', 'ttlMs'),
        { owner: 'owner-a', status: 'working', ttlMs: 1_000 },
        'a new task',
      );
      check(typeof a.taskId === 'string' && a.taskId.length >= 16, 'an unguessable id');
      check(!Number.isNaN(Date.parse(a.createdAt)) && a.lastUpdatedAt >= a.createdAt, 'ISO 8601 times');
      equal(await t.peer.getTask('owner-a', a.taskId), a, 'the task read from another instance');
      const b = await t.create(undefined, 60_000);
      equal(b.ttlMs, 5_000, 'a TTL above the maximum, bounded');
      check(b.owner === undefined && b.taskId !== a.taskId, 'an unowned task with its own id');
      equal((await t.create(undefined, 250.7)).ttlMs, 250, 'a TTL in whole ms');
    });

    it('the record is plain data: it survives JSON, and changing a copy changes nothing stored', async (t) => {
      const a = await t.create('o');
      await t.store.updateTask(a.taskId, { status: 'input_required', inputRequests: { q: ASK } });
      const read = (await t.store.getTask('o', a.taskId)) as TaskRecord & { status: string };
      equal(JSON.parse(JSON.stringify(read)), read, 'a record through JSON');
      read.status = 'completed';
      equal((await t.store.getTask('o', a.taskId))?.status, 'input_required', 'the stored status');
    });

    it('status and status message: watchers are told of each change, not of a message that stayed', async (t) => {
      const a = await t.create();
      const w = await t.watch(a.taskId);
      const noted = await t.store.updateTask(a.taskId, { statusMessage: 'step 1' });
      equal(noted?.statusMessage, 'step 1', 'the updated record');
      await t.store.updateTask(a.taskId, { statusMessage: 'step 1' });
      await t.peer.updateTask(a.taskId, { status: 'input_required' });
      await t.store.updateTask(a.taskId, { status: 'working' });
      await settle();
      equal(
        w.seen.map((s) => [s.status, s.statusMessage]),
        [
          ['working', 'step 1'],
          ['input_required', 'step 1'],
          ['working', 'step 1'],
        ],
        'what the watcher saw',
      );
      w.unwatch();
      await t.store.updateTask(a.taskId, { statusMessage: 'step 2' });
      await settle();
      equal(w.seen.length, 3, 'changes seen after unwatch');
      equal(
        (await t.peer.getTask(undefined, a.taskId))?.statusMessage,
        'step 2',
        'the message read elsewhere',
      );
    });

    it('input requests and answers: outstanding keys are answered, others ignored; all answered means working again', async (t) => {
      const a = await t.create();
      const w = await t.watch(a.taskId);
      await t.store.updateTask(a.taskId, { status: 'input_required', inputRequests: { q1: ASK, q2: ASK } });
      equal(
        (await t.peer.getTask(undefined, a.taskId))?.inputRequests,
        { q1: ASK, q2: ASK },
        'the requests read elsewhere',
      );
      const partial = await t.peer.answerTask(a.taskId, { q1: { action: 'accept' }, never: { x: 1 } });
      equal(
        pick(partial, 'status', 'inputRequests', 'inputResponses'),
        {
          status: 'input_required',
          inputRequests: { q2: ASK },
          inputResponses: { q1: { action: 'accept' } },
        },
        'after a partial answer',
      );
      await t.peer.answerTask(a.taskId, { q1: { action: 'decline' } }); // answered already: ignored
      const done = await t.peer.answerTask(a.taskId, { q2: { action: 'accept', content: { v: 2 } } });
      equal(
        pick(done, 'status', 'inputRequests', 'inputResponses'),
        {
          status: 'working',
          inputResponses: { q1: { action: 'accept' }, q2: { action: 'accept', content: { v: 2 } } },
        },
        'after the last answer',
      );
      await settle();
      equal(
        w.seen.map((s) => s.status),
        ['input_required', 'input_required', 'working'],
        'what the watcher saw',
      );
      const next = await t.store.updateTask(a.taskId, {
        status: 'input_required',
        inputRequests: { q1: ASK },
      });
      equal(
        pick(next, 'inputRequests', 'inputResponses'),
        { inputRequests: { q1: ASK }, inputResponses: {} },
        'a new round',
      );
      await t.store.updateTask(a.taskId, { status: 'working' });
      equal(
        pick(await t.store.getTask(undefined, a.taskId), 'inputRequests', 'inputResponses'),
        {},
        'a round ended',
      );
    });

    it('result and error: the first outcome stands; a terminal task never changes again', async (t) => {
      const a = await t.create();
      const w = await t.watch(a.taskId);
      const ended = await t.store.finishTask(a.taskId, {
        status: 'completed',
        result: { content: [{ type: 'text', text: 'ok' }] },
      });
      equal(
        pick(ended, 'status', 'result'),
        { status: 'completed', result: { content: [{ type: 'text', text: 'ok' }] } },
        'the outcome',
      );
      equal(await t.peer.finishTask(a.taskId, { status: 'failed' }), undefined, 'a second outcome');
      equal(
        await t.store.updateTask(a.taskId, { statusMessage: 'late' }),
        undefined,
        'a change after the end',
      );
      equal((await t.peer.getTask(undefined, a.taskId))?.status, 'completed', 'the status read elsewhere');
      const b = await t.create();
      const error = { code: -32603, message: 'boom', data: { cause: 'X' } };
      await t.store.finishTask(b.taskId, { status: 'failed', error, statusMessage: 'boom' });
      equal(
        pick(await t.peer.getTask(undefined, b.taskId), 'status', 'error', 'statusMessage'),
        { status: 'failed', error, statusMessage: 'boom' },
        'a failure',
      );
      await settle();
      equal(
        w.seen.map((s) => s.status),
        ['completed'],
        'what the watcher saw',
      );
    });

    it('cancel from another instance: the watcher on the running one is told; the work cannot complete it after', async (t) => {
      const a = await t.create('o');
      const w = await t.watch(a.taskId);
      const error = { code: -32800, message: 'the task was cancelled by request' };
      await t.peer.finishTask(a.taskId, { status: 'cancelled', error, statusMessage: 'cancelled' });
      await settle();
      equal(
        w.seen.map((s) => [s.status, s.error]),
        [['cancelled', error]],
        'what the watcher saw',
      );
      equal(
        await t.store.finishTask(a.taskId, { status: 'completed', result: {} }),
        undefined,
        'a late result',
      );
      equal((await t.store.getTask('o', a.taskId))?.status, 'cancelled', 'the status');
    });

    it('TTL expiry: the task is gone from every instance; a watcher of one still running is told it failed', async (t) => {
      const a = await t.create(undefined, 500);
      const b = await t.create(undefined, 2_000);
      await t.store.finishTask(b.taskId, { status: 'completed', result: {} });
      const w = await t.watch(a.taskId);
      t.clock.advance(499);
      check((await t.peer.getTask(undefined, a.taskId)) !== undefined, 'the task before its TTL');
      t.clock.advance(1);
      await settle();
      equal(await t.peer.getTask(undefined, a.taskId), undefined, 'the task after its TTL');
      equal(
        pick(w.seen[0], 'status', 'statusMessage'),
        { status: 'failed', statusMessage: 'the task expired' },
        'what the watcher saw',
      );
      equal(
        (await t.peer.listTasks(undefined)).map((x) => x.taskId),
        [b.taskId],
        'the tasks left',
      );
      t.clock.advance(1_500);
      equal(await t.peer.listTasks(undefined), [], 'the finished task after its TTL');
    });

    it('the cap: createTask answers undefined when full, and a task fits again once one expires', async (t) => {
      await t.create(undefined, 1_000);
      await t.create(undefined, 3_000);
      await t.create(undefined, 3_000);
      equal(await t.peer.createTask(undefined, 1_000), undefined, 'a task beyond the cap');
      t.clock.advance(1_000);
      await settle();
      check((await t.peer.createTask(undefined, 1_000)) !== undefined, 'a task once one expired');
    });

    it('owner binding: another owner can neither read nor list a task; an unowned one is everyone’s; oldest first', async (t) => {
      const a = await t.create('owner-a');
      const open = await t.create(undefined);
      const b = await t.create('owner-b');
      equal(await t.peer.getTask('owner-b', a.taskId), undefined, "owner-a's task read by owner-b");
      equal(
        await t.peer.getTask(undefined, a.taskId),
        undefined,
        "owner-a's task read by nobody in particular",
      );
      equal(
        (await t.peer.getTask('owner-b', open.taskId))?.taskId,
        open.taskId,
        'an unowned task read by owner-b',
      );
      equal(
        (await t.peer.listTasks('owner-a')).map((x) => x.taskId),
        [a.taskId, open.taskId],
        "owner-a's list",
      );
      equal(
        (await t.peer.listTasks('owner-b')).map((x) => x.taskId),
        [open.taskId, b.taskId],
        "owner-b's list",
      );
      equal(
        (await t.peer.listTasks(undefined)).map((x) => x.taskId),
        [open.taskId],
        'the list of nobody in particular',
      );
      equal(await t.peer.getTask('owner-a', 'no-such-task'), undefined, 'an unknown id');
    });
  });
}

async function turns(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
}

function check(condition: boolean, what: string): void {
  if (!condition) throw new Error(`task store contract: ${what} is not as the contract says`);
}

function equal(actual: unknown, expected: unknown, what: string): void {
  if (!same(actual, expected))
    throw new Error(
      `task store contract: ${what} is ${JSON.stringify(actual)}, the contract says ${JSON.stringify(expected)}`,
    );
}

/** Deep equality of plain data; a property set to `undefined` counts as absent, as JSON has it. */
function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keys = (o: object) => Object.keys(o).filter((k) => (o as Record<string, unknown>)[k] !== undefined);
  const [ka, kb] = [keys(a), keys(b)];
  if (ka.length !== kb.length) return false;
  return ka.every((k) => same((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

function pick(record: TaskRecord | undefined, ...fields: Array<keyof TaskRecord>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of fields) if (record?.[field] !== undefined) out[field] = record[field];
  return out;
}
