import type { McpClient } from '../client/client.js';
import type { DeadlineController } from '../deadline/deadline-controller.js';
import type { Endpoint } from '../endpoint/endpoint.js';
import { JsonRpcError } from '../endpoint/messages.js';
import { CLIENT_CAPABILITIES_META_KEY } from '../eras/eras.js';
import { InflightError, inflightErrorFromJsonRpc } from '../errors/inflight-error.js';
import { type TaskCallOptions, type TaskErrorDetails, TaskInputRequiredError } from './call-options.js';
import {
  isTerminalStatus,
  TASKS_EXTENSION,
  type TaskFields,
  type TaskState,
  taskStateOf,
} from './task-state.js';
import { watchTask } from './task-watch.js';

/** One task being driven to its end: polls, status notifications, the final result. */
export class TaskRun {
  readonly #client: McpClient;
  readonly #deadline: DeadlineController;
  readonly #options: TaskCallOptions;
  readonly #modern: boolean;
  readonly #capabilities: Record<string, unknown>;
  #state: TaskState;
  #wake: (() => void) | undefined;
  #unwatch: () => void;
  #inFlight: Promise<unknown> | undefined;
  #stopped = false;

  constructor(
    client: McpClient,
    endpoint: Endpoint,
    created: TaskState,
    deadline: DeadlineController,
    options: TaskCallOptions,
    modern: boolean,
    capabilities: Record<string, unknown>,
  ) {
    this.#client = client;
    this.#deadline = deadline;
    this.#options = options;
    this.#modern = modern;
    this.#capabilities = capabilities;
    this.#state = created;
    options.onstatus?.(created);
    const method = modern ? 'notifications/tasks' : 'notifications/tasks/status';
    this.#unwatch = watchTask(endpoint, method, created.taskId, (params) => {
      const state = taskStateOf(params);
      if (state) this.#observe(state);
    });
  }

  get taskId(): string {
    return this.#state.taskId;
  }

  /** Polls until terminal (or, on 2025-11-25, `input_required`), then fetches the final result. */
  async toEnd(endProgress: () => void): Promise<unknown> {
    while (!this.#ready()) {
      // The server's suggested interval wins [T18]; a status notification wakes the loop early.
      await this.#sleep(this.#state.pollIntervalMs ?? this.#options.pollMs ?? 1_000);
      if (this.#stopped || this.#deadline.aborted) throw STOPPED;
      if (this.#ready()) break;
      this.#inFlight = this.#request('tasks/get', { taskId: this.taskId });
      const got = taskStateOf(await this.#inFlight);
      this.#inFlight = undefined;
      if (this.#stopped || this.#deadline.aborted) throw STOPPED;
      if (got && got.taskId === this.taskId) this.#observe(got);
    }
    const state = this.#state;
    if (this.#modern) {
      endProgress();
      if (state.status === 'input_required') {
        const requests = ((state.raw as TaskFields).inputRequests ?? {}) as Record<string, unknown>;
        const timeoutMs = this.#options.cancelTimeoutMs ?? 5_000;
        const cancelled = await cancelTask(this.#client, this.taskId, timeoutMs, true, this.#options)
          .then(() => true)
          .catch(() => false);
        throw new TaskInputRequiredError(this.taskId, requests, cancelled);
      }
      return this.#modernOutcome(state);
    }
    // 2025-11-25: progress stops at the terminal status [PG15]; tasks/result blocks until then anyway, and
    // on input_required it is where the server's requests come [T5].
    if (isTerminalStatus(state.status)) endProgress();
    this.#inFlight = this.#request('tasks/result', { taskId: this.taskId });
    const result = await this.#inFlight;
    this.#inFlight = undefined;
    endProgress();
    if (this.#state.status === 'cancelled') throw this.#cancelledByServer();
    return result;
  }

  /** Sends `tasks/cancel` for `cause` and returns the error the caller gets. */
  async cancelFor(cause: InflightError, timeoutMs: number): Promise<InflightError> {
    const details: TaskErrorDetails = { ...cause.details, taskId: this.taskId };
    const say = (cancelled: boolean, why?: string): InflightError =>
      new InflightError(
        cause.code,
        why ? `${cause.message}; the task ${this.taskId} could not be cancelled: ${why}` : cause.message,
        { ...details, taskCancelled: cancelled } as TaskErrorDetails,
        { cause, origin: cause.origin },
      );
    if (!this.#modern && !has(this.#capabilities, 'tasks', 'cancel'))
      return say(false, 'the server does not offer tasks/cancel');
    try {
      await cancelTask(this.#client, this.taskId, timeoutMs, this.#modern, this.#options);
      return say(true);
    } catch (error) {
      return say(false, error instanceof Error ? error.message : String(error));
    } finally {
      // A poll still on the wire settles by itself; waiting for it keeps nothing in flight after the call.
      await this.#inFlight?.catch(noop);
    }
  }

  dispose(): void {
    this.#stopped = true;
    this.#unwatch();
    this.#wake?.();
  }

  #ready(): boolean {
    const status = this.#state.status;
    return isTerminalStatus(status) || status === 'input_required';
  }

  #observe(state: TaskState): void {
    const was = this.#state;
    if (isTerminalStatus(was.status)) return; // a terminal status never changes [T4]
    this.#state = state;
    if (state.status !== was.status || state.statusMessage !== was.statusMessage) {
      this.#deadline.touch(); // a status change is activity: the idle window starts again
      this.#options.onstatus?.(state);
    }
    if (this.#ready()) this.#wake?.();
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = this.#deadline.clock.setTimer(() => done(), ms);
      const done = (): void => {
        timer.clear();
        this.#wake = undefined;
        resolve();
      };
      this.#wake = done;
    });
  }

  /** A request about the task: bounded by what is left of the ceiling, never a child of the deadline. */
  #request(method: string, params: Record<string, unknown>): Promise<unknown> {
    const d = this.#deadline;
    const left = d.startedAt + d.ceilingMs - d.clock.now();
    return this.#client.request(method, this.#modern ? withExtension(params, this.#options) : params, {
      idleMs: Number.POSITIVE_INFINITY,
      ceilingMs: Math.max(1, left),
      progress: false,
    });
  }

  #modernOutcome(state: TaskState): unknown {
    const raw = state.raw as TaskFields;
    if (state.status === 'completed') return raw.result;
    if (state.status === 'failed') {
      const e = (raw.error ?? { code: -32603, message: state.statusMessage ?? 'the task failed' }) as {
        code: number;
        message: string;
        data?: unknown;
      };
      throw inflightErrorFromJsonRpc(e) ?? new JsonRpcError(e.code, e.message, e.data);
    }
    throw this.#cancelledByServer();
  }

  #cancelledByServer(): InflightError {
    const why = this.#state.statusMessage;
    return new InflightError(
      'CANCELLED',
      `the task was cancelled by its server${why ? `: ${why}` : ''}`,
      this.#details(),
      { origin: 'remote' },
    );
  }

  #details(): TaskErrorDetails {
    return { taskId: this.taskId };
  }
}

/** Sends `tasks/cancel` with a ceiling of its own (2026-07-28: declaring the extension, as it must [T19]). */
export function cancelTask(
  client: McpClient,
  taskId: string,
  timeoutMs: number,
  modern: boolean,
  options: TaskCallOptions,
): Promise<unknown> {
  const params = modern ? withExtension({ taskId }, options) : { taskId };
  return client.request('tasks/cancel', params, {
    idleMs: Number.POSITIVE_INFINITY,
    ceilingMs: timeoutMs,
    progress: false,
  });
}

/** Whether `object` has an object at `path`. */
export function has(object: unknown, ...path: string[]): boolean {
  let at = object;
  for (const key of path) {
    if (typeof at !== 'object' || at === null) return false;
    at = (at as Record<string, unknown>)[key];
  }
  return typeof at === 'object' && at !== null;
}

/** Declares the tasks extension on the request itself, where 2026-07-28 reads capabilities [M2]. */
export function withExtension(
  params: Record<string, unknown>,
  options: TaskCallOptions,
): Record<string, unknown> {
  const meta = ((params as TaskFields)._meta ?? {}) as Record<string, unknown>;
  const declared = (options.clientCapabilities ?? {}) as { extensions?: Record<string, unknown> };
  return {
    ...params,
    _meta: {
      ...meta,
      [CLIENT_CAPABILITIES_META_KEY]: {
        ...declared,
        extensions: { ...declared.extensions, [TASKS_EXTENSION]: {} },
      },
    },
  };
}

/** How a poll loop ends once its call has ended by other means (never seen by a caller). */
const STOPPED = new Error('the task call has ended');

function noop(): void {}
