import type { InputRequest } from '@mcp-inflight/client/input';
import type { ManualClock } from '@mcp-inflight/core/testing';
import type { TaskRecord } from './task-record.js';
import type { SharedTaskStore } from './task-store.js';

/** What each case of the contract gets: a fresh store (and its peer) on a fresh `ManualClock`. */
export interface ContractTools {
  /** The clock the store's TTL timers run on; the case moves it. */
  clock: ManualClock;
  /** The store under contract. */
  store: SharedTaskStore;
  /** Another instance's view of the same tasks (the store itself when none was given). */
  peer: SharedTaskStore;
  /** Makes a task on `store`, failing the case when the store refuses one below its cap. */
  create(owner?: string, ttlMs?: number): Promise<TaskRecord>;
  /** Watches a task on `store`, keeping what the watcher is told. */
  watch(taskId: string): Promise<{ seen: TaskRecord[]; unwatch: () => void }>;
  /** Lets a networked store deliver what it has in flight before the case looks. */
  settle(): Promise<void>;
}

/** Registers one case of the contract under its title. */
export type ContractCase = (title: string, body: (t: ContractTools) => Promise<void>) => void;

/** The contract's cases, in groups, in the order they are registered. */
export const contractCases: ReadonlyArray<(it: ContractCase) => void> = [
  recordCases,
  statusCases,
  inputCases,
  endCases,
  lifetimeCases,
  ownerCases,
];

const ASK: InputRequest = { method: 'elicitation/create', params: { message: 'Sure?' } };

/** The task as made: its fields and TTL, readable from another instance at once, and plain data. */
function recordCases(it: ContractCase): void {
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
}

/** Changes to a running task: its status and status message, seen by its watchers. */
function statusCases(it: ContractCase): void {
  it('status and status message: watchers are told of each change, not of a message that stayed', async (t) => {
    const a = await t.create();
    const w = await t.watch(a.taskId);
    const noted = await t.store.updateTask(a.taskId, { statusMessage: 'step 1' });
    equal(noted?.statusMessage, 'step 1', 'the updated record');
    await t.store.updateTask(a.taskId, { statusMessage: 'step 1' });
    await t.peer.updateTask(a.taskId, { status: 'input_required' });
    await t.store.updateTask(a.taskId, { status: 'working' });
    await t.settle();
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
    await t.settle();
    equal(w.seen.length, 3, 'changes seen after unwatch');
    equal((await t.peer.getTask(undefined, a.taskId))?.statusMessage, 'step 2', 'the message read elsewhere');
  });
}

/** Input requests and their answers (2026-07-28): a round, partial answers, the next round. */
function inputCases(it: ContractCase): void {
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
    await t.settle();
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
}

/** A task's end: the first outcome stands, from this instance or another (a cancel). */
function endCases(it: ContractCase): void {
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
    equal(await t.store.updateTask(a.taskId, { statusMessage: 'late' }), undefined, 'a change after the end');
    equal((await t.peer.getTask(undefined, a.taskId))?.status, 'completed', 'the status read elsewhere');
    const b = await t.create();
    const error = { code: -32603, message: 'boom', data: { cause: 'X' } };
    await t.store.finishTask(b.taskId, { status: 'failed', error, statusMessage: 'boom' });
    equal(
      pick(await t.peer.getTask(undefined, b.taskId), 'status', 'error', 'statusMessage'),
      { status: 'failed', error, statusMessage: 'boom' },
      'a failure',
    );
    await t.settle();
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
    await t.settle();
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
}

/** What bounds the table: the TTL, and the cap on tasks kept at once. */
function lifetimeCases(it: ContractCase): void {
  it('TTL expiry: the task is gone from every instance; a watcher of one still running is told it failed', async (t) => {
    const a = await t.create(undefined, 500);
    const b = await t.create(undefined, 2_000);
    await t.store.finishTask(b.taskId, { status: 'completed', result: {} });
    const w = await t.watch(a.taskId);
    t.clock.advance(499);
    check((await t.peer.getTask(undefined, a.taskId)) !== undefined, 'the task before its TTL');
    t.clock.advance(1);
    await t.settle();
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
    await t.settle();
    check((await t.peer.createTask(undefined, 1_000)) !== undefined, 'a task once one expired');
  });
}

/** Owner binding: a session sees its own tasks and the unowned ones, never another's [T27]. */
function ownerCases(it: ContractCase): void {
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
