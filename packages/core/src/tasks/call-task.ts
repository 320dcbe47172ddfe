import type { McpClient } from '../client/client.js';
import { DeadlineController } from '../deadline/deadline-controller.js';
import type { Endpoint } from '../endpoint/endpoint.js';
import { JsonRpcError } from '../endpoint/messages.js';
import type { TaskRouteHooks } from '../endpoint/outbound.js';
import { CLIENT_CAPABILITIES_META_KEY, isLegacy, type Revision } from '../eras/eras.js';
import {
  InflightError,
  type InflightErrorDetails,
  inflightErrorFromJsonRpc,
} from '../errors/inflight-error.js';
import type { ProgressParams } from '../schemas/types.js';
import {
  createdTaskOf,
  isTerminalStatus,
  TASKS_EXTENSION,
  type TaskFields,
  type TaskState,
  taskStateOf,
} from './task-state.js';
import { watchTask } from './task-watch.js';

/**
 * Options for {@link callTask}.
 *
 * @example
 * ```ts
 * import type { TaskCallOptions } from '@mcp-inflight/core/tasks';
 * const options: TaskCallOptions = {
 *   ttlMs: 300_000, // ask the server to keep the task 5 min (2025-11-25 `task.ttl`)
 *   idleMs: 30_000, // no progress and no status change for 30 s: cancel the task
 *   ceilingMs: 600_000, // 10 min from the first send, whatever happens
 *   onstatus: (task) => console.log(task.status, task.statusMessage),
 * };
 * ```
 */
export interface TaskCallOptions {
  /** Called with each accepted progress update, also after the `CreateTaskResult` (2025-11-25) [PG14]. */
  onprogress?: (progress: ProgressParams) => void;
  /** Called when the task's status or status message changes (from `tasks/get` or a notification). */
  onstatus?: (task: TaskState) => void;
  /** The task lifetime to ask for, in ms (2025-11-25 `params.task.ttl`; the server may override it). */
  ttlMs?: number;
  /** Polling interval for `tasks/get` when the server suggests none; its `pollInterval` wins. @default 1_000 */
  pollMs?: number;
  /** Idle window: reset by accepted progress and by each status change. @default 60_000 */
  idleMs?: number;
  /** Hard ceiling from the first send; nothing extends it. @default 600_000 */
  ceilingMs?: number;
  /** How long the `tasks/cancel` sent on a deadline or abort may take before giving up. @default 5_000 */
  cancelTimeoutMs?: number;
  /** The caller's cancel: sent as `tasks/cancel` once there is a task, as a request cancel before. */
  signal?: AbortSignal;
  /**
   * Capabilities to declare on a 2026-07-28 request besides the tasks extension (which is always added).
   * @default {}
   */
  clientCapabilities?: Record<string, unknown>;
}

/**
 * Details an error from {@link callTask} carries when the call ended after its task was created.
 *
 * @example
 * ```ts
 * import { InflightError } from '@mcp-inflight/core';
 * import type { TaskErrorDetails } from '@mcp-inflight/core/tasks';
 * declare const error: unknown;
 * if (InflightError.is(error)) {
 *   const details = error.details as TaskErrorDetails;
 *   if (details.taskCancelled === false) console.warn(`task ${details.taskId} may still be running`);
 * }
 * ```
 */
export interface TaskErrorDetails extends InflightErrorDetails {
  /** The task the call had started. */
  taskId?: string;
  /** Whether the server acknowledged `tasks/cancel`; `false`: the task may still run (see the message). */
  taskCancelled?: boolean;
}

/**
 * The rejection of {@link callTask} when a 2026-07-28 task needs input (`input_required`): answering its
 * `inputRequests` through `tasks/update` is the multi round-trip layer's job, not this one's, so the call
 * ends here and the task is cancelled (`taskCancelled` says whether the server took that).
 *
 * @example
 * ```ts
 * import { TaskInputRequiredError } from '@mcp-inflight/core/tasks';
 * declare const error: unknown;
 * if (error instanceof TaskInputRequiredError) console.log(Object.keys(error.inputRequests));
 * ```
 */
export class TaskInputRequiredError extends Error {
  /** Always `'TaskInputRequiredError'`. */
  override readonly name = 'TaskInputRequiredError';
  /** The task that asked. */
  readonly taskId: string;
  /** What the server asked for, as `tasks/get` sent it (keys are the server's). */
  readonly inputRequests: Record<string, unknown>;
  /** Whether the server acknowledged the `tasks/cancel` sent for the task. */
  readonly taskCancelled: boolean;

  constructor(taskId: string, inputRequests: Record<string, unknown>, taskCancelled: boolean) {
    super(`the task ${taskId} needs input (input_required); callTask does not answer inputRequests`);
    this.taskId = taskId;
    this.inputRequests = inputRequests;
    this.taskCancelled = taskCancelled;
  }
}

/**
 * Runs a request as a task to its end in one call: a 2025-11-25 task-augmented request (`params.task`,
 * when the server offers tasks for the method) or a 2026-07-28 request that the server may answer with
 * a task (the tasks extension is declared on it). The result is the final one (`tasks/result` on
 * 2025-11-25, the completed task's `result` on 2026-07-28), or the same `InflightError` / `JsonRpcError`
 * a plain call would reject with. A server that makes no task just answers, and that answer is returned.
 *
 * - Progress: the request's token stays routed until the task is terminal [PG14 PG15]; progress after
 *   the `CreateTaskResult` reaches `onprogress`. 2026-07-28 tasks carry none [T13].
 * - Deadline: one idle window, reset by accepted progress and by status changes (a new status or
 *   status message, from `tasks/get` or a status notification), and one ceiling from the first send.
 * - Cancel: once a task exists, a deadline or `signal` sends `tasks/cancel`, never
 *   `notifications/cancelled` [CN16 T11]; the rejection's `details.taskCancelled` says whether the server
 *   took it (`false` for a server without `tasks.cancel`). Before the `CreateTaskResult`, the request is
 *   cancelled as a request; if a task id arrives anyway, that task is cancelled too.
 * - Polling: `tasks/get` at the server's `pollInterval` (else `pollMs`); a status notification for the
 *   task is read the same way and wakes the loop early.
 * - `input_required`: on 2025-11-25 the call goes to `tasks/result` at once, so the server's requests
 *   reach the client's handlers [T5]; on 2026-07-28 the call rejects with {@link TaskInputRequiredError}
 *   and the task is cancelled: answering `inputRequests` belongs to the multi round-trip layer.
 *
 * @example
 * ```ts
 * import type { McpClient } from '@mcp-inflight/core';
 * import { callTask } from '@mcp-inflight/core/tasks';
 * declare const client: McpClient;
 * const result = await callTask(client, 'tools/call', { name: 'work', arguments: { steps: 5, intervalMs: 100 } }, {
 *   idleMs: 10_000,
 *   onprogress: (p) => console.log(`${p.progress}/${p.total}`),
 *   onstatus: (task) => console.log(task.status),
 * });
 * ```
 */
export async function callTask(
  client: McpClient,
  method: string,
  params: Record<string, unknown> = {},
  options: TaskCallOptions = {},
): Promise<unknown> {
  if (!client.server) await client.connect();
  const endpoint = client.endpoint;
  const revision = (client.server?.revision ?? client.revision) as Revision;
  const modern = !isLegacy(revision);
  const capabilities = client.server?.capabilities ?? {};
  const asTask = modern || offersTask(capabilities, method);
  const sendParams = !asTask
    ? params
    : modern
      ? withExtension(params, options)
      : withTaskParam(params, options);

  const clock = endpoint.clock;
  const ceilingMs = options.ceilingMs ?? 600_000;
  let onAbort: (reason: unknown) => void = noop;
  const deadline = new DeadlineController({
    idleMs: options.idleMs ?? 60_000,
    ceilingMs,
    clock,
    parent: options.signal,
    onAbort: (reason) => onAbort(reason),
  });
  const aborted = new Promise<never>((_, reject) => {
    onAbort = reject;
  });
  aborted.catch(noop);
  let release: (() => void) | undefined;
  let ended = false;
  const cancelTimeoutMs = options.cancelTimeoutMs ?? 5_000;
  const hooks: TaskRouteHooks = {
    onCreated: (stop) => {
      if (ended) stop();
      else release = stop;
    },
    // The call ended before its answer, and the answer made a task anyway: cancel that too.
    onLateResult: (result) => {
      const task = createdTaskOf(result, revision);
      if (task) void cancelTask(client, task.taskId, cancelTimeoutMs, modern, options).catch(noop);
    },
  };
  const finish = (): void => {
    ended = true;
    release?.();
    release = undefined;
    deadline.dispose();
  };

  let first: unknown;
  try {
    first = await client.request(method, sendParams, {
      ...(options.onprogress ? { onprogress: options.onprogress } : {}),
      parent: deadline,
      idleMs: Number.POSITIVE_INFINITY,
      ceilingMs: Number.POSITIVE_INFINITY,
      taskRoute: hooks,
    });
  } catch (error) {
    finish();
    throw error;
  }
  const created = asTask ? createdTaskOf(first, revision) : undefined;
  if (!created) {
    finish();
    return first;
  }
  const run = new TaskRun(client, endpoint, created, deadline, options, modern, capabilities);
  const ending = run.toEnd(() => finish());
  ending.catch(noop); // when the deadline wins the race, the loop stops on its own
  try {
    return await Promise.race([ending, aborted]);
  } catch (error) {
    if (!deadline.aborted) throw error;
    // A deadline or the caller's abort, with a task on the server: tasks/cancel, never the notification.
    finish();
    throw await run.cancelFor(InflightError.from(deadline.reason), cancelTimeoutMs);
  } finally {
    finish();
    run.dispose();
  }
}

/** One task being driven to its end: polls, status notifications, the final result. */
class TaskRun {
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
function cancelTask(
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

/** Whether a 2025-11-25 server offers a task for `method` (`tasks.requests.tools.call` for `tools/call`). */
function offersTask(capabilities: Record<string, unknown>, method: string): boolean {
  return has(capabilities, 'tasks', 'requests', ...method.split('/'));
}

function has(object: unknown, ...path: string[]): boolean {
  let at = object;
  for (const key of path) {
    if (typeof at !== 'object' || at === null) return false;
    at = (at as Record<string, unknown>)[key];
  }
  return typeof at === 'object' && at !== null;
}

function withTaskParam(params: Record<string, unknown>, options: TaskCallOptions): Record<string, unknown> {
  return { ...params, task: options.ttlMs === undefined ? {} : { ttl: options.ttlMs } };
}

/** Declares the tasks extension on the request itself, where 2026-07-28 reads capabilities [M2]. */
function withExtension(params: Record<string, unknown>, options: TaskCallOptions): Record<string, unknown> {
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

function noop(): void {}

/** How a poll loop ends once its call has ended by other means (never seen by a caller). */
const STOPPED = new Error('the task call has ended');
