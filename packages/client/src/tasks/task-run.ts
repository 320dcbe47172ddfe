import type { DeadlineController, Endpoint, Revision } from '@mcp-inflight/core';
import { eraCancelPolicy, InflightError, JsonRpcError } from '@mcp-inflight/core';
import {
  inflightErrorFromJsonRpc,
  isLegacy,
  isTerminalStatus,
  type Nap,
  nap,
  type TaskFields,
  type TaskState,
  taskStateOf,
  withTasksExtension,
} from '@mcp-inflight/core/adapter';
import { registeredHandlers } from '../input/request-with-input.js';
import { checkInputRequired, type InputRequests } from '../input/types.js';
import type { McpClient } from '../lifecycle/client.js';
import type { TaskCallOptions, TaskErrorDetails } from './call-options.js';
import type { IdleWindow } from './idle-window.js';
import { watchTask } from './task-watch.js';

/** The call a {@link TaskRun} drives its task within: where it goes, its deadline and idle window. */
export interface TaskRunCall {
  readonly client: McpClient;
  readonly endpoint: Endpoint;
  readonly revision: Revision;
  /** What the server declared in its handshake. */
  readonly capabilities: Record<string, unknown>;
  readonly options: TaskCallOptions;
  /** The call's signal and ceiling. */
  readonly deadline: DeadlineController;
  /** The call's idle window, a child of `deadline`. */
  readonly window: IdleWindow;
}

/** One task being driven to its end: polls, status notifications, the final result. */
export class TaskRun {
  readonly #client: McpClient;
  readonly #deadline: DeadlineController;
  readonly #window: IdleWindow;
  readonly #endpoint: Endpoint;
  readonly #options: TaskCallOptions;
  readonly #revision: Revision;
  readonly #modern: boolean;
  readonly #capabilities: Record<string, unknown>;
  #state: TaskState;
  #nap: Nap | undefined;
  #unwatch: () => void;
  #inFlight: Promise<unknown> | undefined;
  #stopped = false;
  /** Input request keys already answered: a poll repeats them until the server moves on [T33]. */
  readonly #answered = new Set<string>();
  #inputRounds = 0;
  /** Answers went out and no state has been seen since: wait for the next before asking again. */
  #stale = false;

  constructor(call: TaskRunCall, created: TaskState) {
    this.#client = call.client;
    this.#deadline = call.deadline;
    this.#window = call.window;
    this.#endpoint = call.endpoint;
    this.#options = call.options;
    this.#revision = call.revision;
    this.#modern = !isLegacy(call.revision);
    this.#capabilities = call.capabilities;
    this.#state = created;
    call.window.open();
    call.options.onstatus?.(created);
    const method = this.#modern ? 'notifications/tasks' : 'notifications/tasks/status';
    this.#unwatch = watchTask(call.endpoint, method, created.taskId, (params) => {
      const state = taskStateOf(params);
      if (state) this.#observe(state);
    });
  }

  get taskId(): string {
    return this.#state.taskId;
  }

  /** Polls until terminal (or, on 2025-11-25, `input_required`), then fetches the final result. */
  async toEnd(endProgress: () => void): Promise<unknown> {
    for (;;) {
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
      if (!this.#modern || this.#state.status !== 'input_required') break;
      await this.#answer();
      this.#stale = true;
    }
    const state = this.#state;
    if (this.#modern) {
      endProgress();
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
    // How a task is cancelled is the policy's answer, as for every other cancel [CN16 T11].
    const how = eraCancelPolicy(this.#revision, this.#endpoint.transport).outboundCancel('client', {
      method: 'tools/call',
      task: true,
    });
    if (how.value !== 'tasks/cancel')
      return say(false, `${this.#revision} has no tasks/cancel (${how.rule})`);
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
    this.#window.close();
    this.#unwatch();
    this.#nap?.wake();
  }

  #ready(): boolean {
    const status = this.#state.status;
    if (status !== 'input_required') return isTerminalStatus(status);
    if (!this.#modern) return true;
    if (this.#stale) return false;
    // 2026-07-28: only requests not yet answered call for the caller; else keep polling [T33]. A task
    // with no inputRequests object is malformed, which answering reports.
    const all = (this.#state.raw as TaskFields).inputRequests;
    if (typeof all !== 'object' || all === null) return true;
    return Object.keys(all).some((key) => !this.#answered.has(key));
  }

  /** The task's input requests not yet answered, checked as an input_required result's would be. */
  #unanswered(): InputRequests {
    const all = (this.#state.raw as TaskFields).inputRequests;
    const asked = checkInputRequired('tools/call', { resultType: 'input_required', inputRequests: all });
    const fresh: InputRequests = {};
    for (const [key, request] of Object.entries(asked.inputRequests ?? {}))
      if (!this.#answered.has(key)) fresh[key] = request;
    return fresh;
  }

  /**
   * Gathers answers to the task's new input requests and sends them with `tasks/update` [T32]. The idle
   * window is closed meanwhile and starts afresh after; the call's ceiling and signal bound the wait.
   * A failure to gather cancels the task and ends the call with that failure.
   */
  async #answer(): Promise<void> {
    const d = this.#deadline;
    const ask = this.#options.onInputRequired ?? registeredHandlers(this.#endpoint);
    const round = { method: 'tasks/update', round: ++this.#inputRounds, signal: d.signal };
    let requests: InputRequests = {};
    this.#window.close();
    let answers: Record<string, Record<string, unknown>>;
    try {
      requests = this.#unanswered(); // a malformed request is the server's fault: -32603
      answers = await d.race(Promise.resolve(ask(requests, round)));
    } catch (error) {
      if (d.aborted) throw STOPPED; // the call's own deadline or abort: its path sends tasks/cancel
      const timeoutMs = this.#options.cancelTimeoutMs ?? 5_000;
      await cancelTask(this.#client, this.taskId, timeoutMs, true, this.#options).catch(noop);
      throw error;
    } finally {
      this.#window.open();
    }
    const inputResponses: Record<string, unknown> = {};
    // A key left unanswered is asked again at the next poll, as the server still lists it.
    for (const key of Object.keys(requests)) {
      if (answers[key] === undefined) continue;
      this.#answered.add(key);
      inputResponses[key] = answers[key];
    }
    this.#inFlight = this.#request('tasks/update', { taskId: this.taskId, inputResponses });
    await this.#inFlight;
    this.#inFlight = undefined;
  }

  #observe(state: TaskState): void {
    const was = this.#state;
    if (isTerminalStatus(was.status)) return; // a terminal status never changes [T4]
    this.#state = state;
    this.#stale = false;
    if (state.status !== was.status || state.statusMessage !== was.statusMessage) {
      this.#window.touch(); // a status change is activity: the idle window starts again
      this.#options.onstatus?.(state);
    }
    if (this.#ready()) this.#nap?.wake();
  }

  #sleep(ms: number): Promise<void> {
    this.#nap = nap(ms, this.#deadline.clock);
    return this.#nap.slept;
  }

  /** A request about the task: bounded by what is left of the ceiling, never a child of the deadline. */
  #request(method: string, params: Record<string, unknown>): Promise<unknown> {
    const d = this.#deadline;
    const left = d.startedAt + d.ceilingMs - d.clock.now();
    return this.#client.request(
      method,
      this.#modern
        ? withTasksExtension(
            params,
            this.#endpoint.clientCapabilities,
            this.#options.clientCapabilities ?? {},
          )
        : params,
      {
        idleMs: Number.POSITIVE_INFINITY,
        ceilingMs: Math.max(1, left),
        progress: false,
      },
    );
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
  const declared = [client.endpoint.clientCapabilities, options.clientCapabilities ?? {}];
  const params = modern ? withTasksExtension({ taskId }, ...declared) : { taskId };
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

/** How a poll loop ends once its call has ended by other means (never seen by a caller). */
const STOPPED = /* @__PURE__ */ new Error('the task call has ended');

function noop(): void {}
