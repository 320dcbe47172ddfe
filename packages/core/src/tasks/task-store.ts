import { type Clock, systemClock, type TimerHandle } from '../clock/clock.js';
import type { JsonRpcErrorObject } from '../errors/inflight-error.js';
import type { TaskInput } from './task-input.js';
import { isTerminalStatus, type TaskStatus } from './task-state.js';

/**
 * Options for a {@link TaskStore}.
 *
 * @example
 * ```ts
 * import { TaskStore, type TaskStoreOptions } from '@mcp-inflight/core/tasks';
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
 * One task the store keeps: its state, its work's abort, its final outcome.
 *
 * @example
 * ```ts
 * import { TaskStore, type TaskRecord } from '@mcp-inflight/core/tasks';
 * const store = new TaskStore();
 * const task: TaskRecord = store.create(undefined, 60_000);
 * task.listeners.add((t) => console.log(t.status, t.statusMessage));
 * store.note(task, 'half way'); // the listener sees the new status message
 * ```
 */
export interface TaskRecord {
  /** The unguessable id (a random UUID). */
  readonly taskId: string;
  /** Who may see it: an endpoint (a session), or `undefined` for any requestor that knows the id. */
  readonly owner: object | undefined;
  /** ISO 8601 creation time. */
  readonly createdAt: string;
  /** Granted lifetime in ms from creation. */
  readonly ttlMs: number;
  /** Where it stands. */
  status: TaskStatus;
  /** The latest words about it (a 2026-07-28 task's progress shows here). */
  statusMessage: string | undefined;
  /** ISO 8601 time of the last change. */
  lastUpdatedAt: string;
  /** The final result, once completed (or failed with a tool error on 2025-11-25). */
  result: unknown;
  /** The JSON-RPC error the work ended with, if it did. */
  error: JsonRpcErrorObject | undefined;
  /** Stops the work (cancel, expiry). */
  readonly abort: AbortController;
  /** Told of each change (status notifications), and of the end (a blocked `tasks/result`). */
  readonly listeners: Set<(record: TaskRecord) => void>;
  /** The TTL timer, until the task is deleted. */
  expiry: TimerHandle | undefined;
  /** 2026-07-28: what the work asked for and is waiting on, while `input_required`. */
  input: TaskInput | undefined;
}

/**
 * The tasks a server keeps, shared by all of its connections (a stateless 2026-07-28 request has an
 * endpoint of its own, but its task must outlive it). Each task is bound to an owner when there is one
 * (a stdio connection, an HTTP session), so another owner can neither see nor cancel it (rule 9, [T27]); ids are
 * random UUIDs either way. A task is deleted when its TTL passes, and its work is stopped if it still runs;
 * the number of tasks is capped, so the table cannot grow for ever (rule 8).
 *
 * @example
 * ```ts
 * import { TaskStore } from '@mcp-inflight/core/tasks';
 * const store = new TaskStore({ defaultTtlMs: 60_000 });
 * const task = store.create(undefined, 30_000);
 * store.finish(task, 'completed', { content: [] });
 * store.size; // 1, until its 30 s are up
 * ```
 */
export class TaskStore {
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
  readonly #tasks = new Map<string, TaskRecord>();

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

  /** Makes a `working` task for `owner` that lives `requestedTtlMs` (bounded by `maxTtlMs`). */
  create(owner: object | undefined, requestedTtlMs: number | undefined): TaskRecord {
    const asked =
      typeof requestedTtlMs === 'number' && requestedTtlMs > 0 ? requestedTtlMs : this.defaultTtlMs;
    const ttlMs = Math.min(Math.floor(asked), this.maxTtlMs);
    const now = new Date().toISOString();
    const record: TaskRecord = {
      taskId: globalThis.crypto.randomUUID(),
      owner,
      createdAt: now,
      ttlMs,
      status: 'working',
      statusMessage: undefined,
      lastUpdatedAt: now,
      result: undefined,
      error: undefined,
      abort: new AbortController(),
      listeners: new Set(),
      expiry: undefined,
      input: undefined,
    };
    this.#tasks.set(record.taskId, record);
    record.expiry = this.clock.setTimer(() => this.#expire(record), ttlMs);
    return record;
  }

  /** The task `taskId` if `owner` may see it (its own, or one bound to no owner). */
  get(owner: object | undefined, taskId: unknown): TaskRecord | undefined {
    if (typeof taskId !== 'string') return undefined;
    const record = this.#tasks.get(taskId);
    if (!record || (record.owner !== undefined && record.owner !== owner)) return undefined;
    return record;
  }

  /** The tasks `owner` may see, oldest first. */
  list(owner: object | undefined): TaskRecord[] {
    return [...this.#tasks.values()].filter((r) => r.owner === undefined || r.owner === owner);
  }

  /**
   * Moves a task that has not ended to `working` or `input_required` and tells its listeners (also when
   * the status stays, as when some of its input requests were answered).
   */
  setStatus(record: TaskRecord, status: 'working' | 'input_required'): void {
    if (isTerminalStatus(record.status)) return;
    record.status = status;
    this.#changed(record);
  }

  /** A new status message on a running task (its requestor sees activity). */
  note(record: TaskRecord, statusMessage: string): void {
    if (isTerminalStatus(record.status) || record.statusMessage === statusMessage) return;
    record.statusMessage = statusMessage;
    this.#changed(record);
  }

  /** Ends the task; a terminal task never changes again [T4], so a late outcome is ignored. */
  finish(
    record: TaskRecord,
    status: TaskStatus,
    result?: unknown,
    error?: JsonRpcErrorObject,
    message?: string,
  ): boolean {
    if (isTerminalStatus(record.status)) return false;
    record.status = status;
    record.result = result;
    record.error = error;
    if (message !== undefined) record.statusMessage = message;
    this.#changed(record);
    record.listeners.clear();
    return true;
  }

  /** Stops every task's work and forgets them all (the server is closing). */
  clear(): void {
    for (const record of [...this.#tasks.values()]) this.#expire(record);
  }

  #changed(record: TaskRecord): void {
    record.lastUpdatedAt = new Date().toISOString();
    for (const listener of [...record.listeners]) listener(record);
  }

  #expire(record: TaskRecord): void {
    record.expiry?.clear();
    record.expiry = undefined;
    this.#tasks.delete(record.taskId);
    if (!isTerminalStatus(record.status)) {
      this.finish(
        record,
        'failed',
        undefined,
        { code: -32603, message: 'the task expired' },
        'the task expired',
      );
    }
    record.abort.abort(new Error('the task expired'));
    record.listeners.clear();
  }
}
