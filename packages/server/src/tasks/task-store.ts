import type { InputResponses } from '@mcp-inflight/client/input';
import { type Clock, systemClock, type TimerHandle } from '@mcp-inflight/core';
import { isTerminalStatus } from '@mcp-inflight/core/adapter';
import { type TaskChange, type TaskOutcome, type TaskRecord, taskSteps } from './task-record.js';

/**
 * Options for a {@link TaskStore}.
 *
 * @example
 * ```ts
 * import { TaskStore, type TaskStoreOptions } from '@mcp-inflight/server/tasks';
 * const options: TaskStoreOptions = { defaultTtlMs: 60_000, maxTtlMs: 600_000, maxTasks: 500 };
 * const store = new TaskStore(options);
 * ```
 */
export interface TaskStoreOptions {
  /** @default systemClock */
  clock?: Clock;
  /** The lifetime of a task whose requestor named none, in ms from creation. @default 60_000 */
  defaultTtlMs?: number;
  /** The longest lifetime granted, whatever was asked [T25]. @default 3_600_000 */
  maxTtlMs?: number;
  /** The polling interval suggested to requestors, in ms. @default 1_000 */
  pollIntervalMs?: number;
  /** The most tasks kept at once (running or not yet expired); a request beyond it is refused. @default 1_000 */
  maxTasks?: number;
}

/**
 * The tasks a server keeps, behind an asynchronous interface so a networked store (Redis) fits: any
 * instance behind a balancer answers for any task (rule 15). Each method is one atomic step on plain
 * data ({@link TaskRecord}); a store never sees an `AbortController` or a listener of the work. Owners
 * are string keys, so a task bound to a session is invisible to every other owner (rule 9, [T27]).
 * `taskStoreContract` on `@mcp-inflight/core/testing` is the suite every implementation must pass.
 *
 * @example
 * ```ts
 * import type { SharedTaskStore } from '@mcp-inflight/server/tasks';
 * declare const store: SharedTaskStore;
 * const task = await store.createTask(undefined, 30_000); // undefined when the store is full
 * if (task) await store.finishTask(task.taskId, { status: 'completed', result: { content: [] } });
 * ```
 */
export interface SharedTaskStore {
  /** The polling interval suggested to requestors, in ms. */
  readonly pollIntervalMs: number;
  /**
   * Makes a `working` task for `owner` that lives `requestedTtlMs` (the store's default when unset,
   * bounded by its maximum), readable from every instance once this resolves; `undefined` when the
   * store already holds its most tasks.
   */
  createTask(owner: string | undefined, requestedTtlMs: number | undefined): Promise<TaskRecord | undefined>;
  /** The task `taskId` if `owner` may see it (its own, or one bound to no owner) and its TTL has not passed. */
  getTask(owner: string | undefined, taskId: string): Promise<TaskRecord | undefined>;
  /**
   * Whether `taskId` named a task `owner` could see whose TTL has passed, so `tasks/get` can answer
   * "Task has expired" rather than "Task not found". Optional: a store that forgets at once has none.
   */
  hasExpired?(owner: string | undefined, taskId: string): Promise<boolean>;
  /** The tasks `owner` may see, oldest first. */
  listTasks(owner: string | undefined): Promise<TaskRecord[]>;
  /**
   * Applies `change` to a task that has not ended and tells its watchers (also when only
   * `lastUpdatedAt` moves, except for a status message that did not change); `undefined` if the task
   * is gone or has ended.
   */
  updateTask(taskId: string, change: TaskChange): Promise<TaskRecord | undefined>;
  /**
   * Keeps the answers to outstanding input requests (others are ignored [T34]); once none is
   * outstanding the task is `working` again with every answer in `inputResponses`. Tells its watchers
   * when anything was kept. `undefined` if the task is gone.
   */
  answerTask(taskId: string, inputResponses: InputResponses): Promise<TaskRecord | undefined>;
  /**
   * Ends a task that has not ended and tells its watchers; a terminal task never changes again [T4],
   * so this resolves `undefined` for one (or one that is gone) and the first outcome stands.
   */
  finishTask(taskId: string, outcome: TaskOutcome): Promise<TaskRecord | undefined>;
  /**
   * Calls `listener` with the task after each change made on any instance, including its end by TTL
   * (as `failed`, "the task expired", if it had not ended); resolves once the watch is in place, with
   * the function that removes it. A store drops the watchers of a task it forgets.
   */
  watchTask(taskId: string, listener: (task: TaskRecord) => void): Promise<() => void>;
}

/** The string key of an owner object (an endpoint: a stdio connection, a legacy HTTP session). */
const OWNER_KEYS = new WeakMap<object, string>();

/**
 * The owner key serveTasks binds a session's tasks to: one random id per endpoint, for its lifetime.
 * Legacy sessions keep affinity (rule 15), so a key that lives in one process is enough.
 */
export function ownerKeyOf(owner: object): string {
  let key = OWNER_KEYS.get(owner);
  if (key === undefined) {
    key = globalThis.crypto.randomUUID();
    OWNER_KEYS.set(owner, key);
  }
  return key;
}

interface Kept {
  record: TaskRecord;
  expiry: TimerHandle | undefined;
  watchers: Set<(task: TaskRecord) => void>;
}

/**
 * The in-memory {@link SharedTaskStore}, the embedded default for one process: shared by all of a
 * server's endpoints (a stateless 2026-07-28 request has an endpoint of its own, but its task must
 * outlive it). Ids are random UUIDs; a task is deleted when its TTL passes; the number of tasks is
 * capped, so the table cannot grow for ever (rule 8). Records go in and out as copies, as they would
 * through a network. `get`, `list` and `size` read it synchronously, for tests in one process.
 *
 * @example
 * ```ts
 * import { TaskStore } from '@mcp-inflight/server/tasks';
 * const store = new TaskStore({ defaultTtlMs: 60_000 });
 * const task = await store.createTask(undefined, 30_000);
 * if (task) await store.finishTask(task.taskId, { status: 'completed', result: { content: [] } });
 * store.size; // 1, until its 30 s are up
 * ```
 */
export class TaskStore implements SharedTaskStore {
  /** The clock TTL timers run on. */
  readonly clock: Clock;
  /** The lifetime of a task whose requestor named none, in ms. */
  readonly defaultTtlMs: number;
  /** The longest lifetime granted, in ms. */
  readonly maxTtlMs: number;
  /** The polling interval suggested to requestors, in ms. */
  readonly pollIntervalMs: number;
  /** The most tasks kept at once. */
  readonly maxTasks: number;
  readonly #tasks = new Map<string, Kept>();

  constructor(options: TaskStoreOptions = {}) {
    this.clock = options.clock ?? systemClock;
    this.defaultTtlMs = options.defaultTtlMs ?? 60_000;
    this.maxTtlMs = options.maxTtlMs ?? 3_600_000;
    this.pollIntervalMs = options.pollIntervalMs ?? 1_000;
    this.maxTasks = options.maxTasks ?? 1_000;
  }

  /** Tasks kept now. */
  get size(): number {
    return this.#tasks.size;
  }

  /** Whether one more task fits. */
  get full(): boolean {
    return this.#tasks.size >= this.maxTasks;
  }

  /** The task `taskId` if `owner` may see it; an owner object (an endpoint) stands for its key. */
  get(owner: object | string | undefined, taskId: string): TaskRecord | undefined {
    const kept = this.#visible(keyOf(owner), taskId);
    return kept && copy(kept.record);
  }

  /** The tasks `owner` may see, oldest first; an owner object (an endpoint) stands for its key. */
  list(owner: object | string | undefined): TaskRecord[] {
    const key = keyOf(owner);
    return [...this.#tasks.values()]
      .filter((k) => k.record.owner === undefined || k.record.owner === key)
      .map((k) => copy(k.record));
  }

  /** Stops every task (failed, "the task expired", for its watchers) and forgets them all. */
  clear(): void {
    for (const kept of [...this.#tasks.values()]) this.#expire(kept);
  }

  async createTask(
    owner: string | undefined,
    requestedTtlMs: number | undefined,
  ): Promise<TaskRecord | undefined> {
    if (this.full) return undefined;
    const asked =
      typeof requestedTtlMs === 'number' && requestedTtlMs > 0 ? requestedTtlMs : this.defaultTtlMs;
    const ttlMs = Math.min(Math.floor(asked), this.maxTtlMs);
    const now = new Date().toISOString();
    const record: TaskRecord = {
      taskId: globalThis.crypto.randomUUID(),
      ...(owner === undefined ? {} : { owner }),
      createdAt: now,
      ttlMs,
      status: 'working',
      lastUpdatedAt: now,
    };
    const kept: Kept = { record, expiry: undefined, watchers: new Set() };
    this.#tasks.set(record.taskId, kept);
    kept.expiry = this.clock.setTimer(() => this.#expire(kept), ttlMs);
    return copy(record);
  }

  async getTask(owner: string | undefined, taskId: string): Promise<TaskRecord | undefined> {
    return this.get(owner, taskId);
  }

  async listTasks(owner: string | undefined): Promise<TaskRecord[]> {
    return this.list(owner);
  }

  async updateTask(taskId: string, change: TaskChange): Promise<TaskRecord | undefined> {
    const kept = this.#live(taskId);
    if (!kept) return undefined;
    const next = taskSteps.change(kept.record, change, new Date().toISOString());
    return next ? this.#changed(kept, next) : copy(kept.record);
  }

  async answerTask(taskId: string, inputResponses: InputResponses): Promise<TaskRecord | undefined> {
    const kept = this.#tasks.get(taskId);
    if (!kept) return undefined;
    const next = taskSteps.answer(kept.record, inputResponses, new Date().toISOString());
    return next ? this.#changed(kept, next) : copy(kept.record);
  }

  async finishTask(taskId: string, outcome: TaskOutcome): Promise<TaskRecord | undefined> {
    const kept = this.#live(taskId);
    return kept && this.#finish(kept, outcome);
  }

  async watchTask(taskId: string, listener: (task: TaskRecord) => void): Promise<() => void> {
    const watchers = this.#tasks.get(taskId)?.watchers;
    if (!watchers) return () => {};
    const own = (task: TaskRecord): void => listener(task);
    watchers.add(own);
    return () => watchers.delete(own);
  }

  #visible(owner: string | undefined, taskId: unknown): Kept | undefined {
    if (typeof taskId !== 'string') return undefined;
    const kept = this.#tasks.get(taskId);
    if (!kept || (kept.record.owner !== undefined && kept.record.owner !== owner)) return undefined;
    return kept;
  }

  /** The task if it has not ended. */
  #live(taskId: string): Kept | undefined {
    const kept = this.#tasks.get(taskId);
    return kept && !isTerminalStatus(kept.record.status) ? kept : undefined;
  }

  #finish(kept: Kept, outcome: TaskOutcome): TaskRecord {
    const ended = taskSteps.finish(kept.record, outcome, new Date().toISOString()) ?? kept.record;
    const told = this.#changed(kept, ended);
    kept.watchers.clear(); // a terminal task never changes again [T4]
    return told;
  }

  #changed(kept: Kept, next: TaskRecord): TaskRecord {
    kept.record = next;
    for (const watcher of [...kept.watchers]) watcher(copy(kept.record));
    return copy(kept.record);
  }

  #expire(kept: Kept): void {
    kept.expiry?.clear();
    kept.expiry = undefined;
    this.#tasks.delete(kept.record.taskId);
    if (!isTerminalStatus(kept.record.status)) this.#finish(kept, taskSteps.expired);
    kept.watchers.clear();
  }
}

function keyOf(owner: object | string | undefined): string | undefined {
  return typeof owner === 'object' ? ownerKeyOf(owner) : owner;
}

/** Records cross the store boundary as copies, as they would through a network. */
function copy<T>(value: T): T {
  return value === undefined ? value : structuredClone(value);
}
