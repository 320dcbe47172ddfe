import { ManualClock } from '@mcp-inflight/core/testing';
import type { TaskRecord } from './task-record.js';
import type { SharedTaskStore, TaskStoreOptions } from './task-store.js';
import { type ContractCase, type ContractTools, contractCases } from './task-store-cases.js';

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
  const setup = async (): Promise<ContractTools> => {
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
      if (task === undefined)
        throw new Error(
          'task store contract: createTask made a task below the cap is not as the contract says',
        );
      return task;
    };
    const watch = async (taskId: string) => {
      const seen: TaskRecord[] = [];
      const unwatch = await store.watchTask(taskId, (task) => seen.push(task));
      return { seen, unwatch };
    };
    return { clock: settings.clock, store, peer, create, watch, settle };
  };
  const it: ContractCase = (title, body) => runner.it(title, async () => body(await setup()));
  runner.describe(`${name}: the task store contract`, () => {
    for (const cases of contractCases) cases(it);
  });
}

async function turns(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
}
