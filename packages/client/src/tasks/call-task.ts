import type { Endpoint, Revision } from '@mcp-inflight/core';
import { DeadlineController, InflightError } from '@mcp-inflight/core';
import type { TaskRouteHooks, TaskState } from '@mcp-inflight/core/adapter';
import { createdTaskOf, isLegacy, withTasksExtension } from '@mcp-inflight/core/adapter';
import { requestWithInput } from '../input/request-with-input.js';
import type { McpClient } from '../lifecycle/client.js';
import type { TaskCallOptions } from './call-options.js';
import { IdleWindow } from './idle-window.js';
import { cancelTask, has, TaskRun, type TaskRunCall } from './task-run.js';

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
 * - Input: on 2025-11-25 a task in `input_required` sends the call to `tasks/result` at once, so the
 *   server's requests reach the client's handlers [T5]. On 2026-07-28 `onInputRequired` (by default the
 *   client's `onRequest` handlers) answers both shapes: an `input_required` answer to the request itself
 *   (retried with the answers until the server makes its task, as `requestWithInput` does [T36]), and a
 *   task in `input_required`, whose new requests are answered with `tasks/update` [T32], each key once
 *   [T33]. The idle window stops while input is gathered and starts afresh after; the ceiling runs on.
 *   When gathering fails (no handler, the handler throws), the task is cancelled and the call rejects
 *   with that error.
 *
 * @example
 * ```ts
 * import type { McpClient } from '@mcp-inflight/client';
 * import { callTask } from '@mcp-inflight/client/tasks';
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
  const call = new TaskCall(client, options);
  const asTask = call.modern || offersTask(call.capabilities, method);
  const sendParams = !asTask
    ? params
    : call.modern
      ? withTasksExtension(params, call.endpoint.clientCapabilities, options.clientCapabilities ?? {})
      : withTaskParam(params, options);
  let first: unknown;
  try {
    first = await call.send(method, sendParams);
  } catch (error) {
    call.finish();
    throw error;
  }
  const created = asTask ? createdTaskOf(first, call.revision) : undefined;
  if (!created) {
    call.finish();
    return first;
  }
  return await call.toEnd(created);
}

/**
 * One `callTask` call: where it goes, its deadline (the caller's signal and the ceiling from the first
 * send) with the idle window that is its child (closed while input is gathered), and the end that
 * releases both and the request's progress route.
 */
class TaskCall implements TaskRunCall {
  readonly client: McpClient;
  readonly endpoint: Endpoint;
  readonly revision: Revision;
  readonly modern: boolean;
  readonly capabilities: Record<string, unknown>;
  readonly options: TaskCallOptions;
  readonly deadline: DeadlineController;
  readonly window: IdleWindow;
  readonly #idleMs: number;
  readonly #cancelTimeoutMs: number;
  /** Rejects with the deadline's reason when it fires, to race the task's end. */
  readonly #aborted: Promise<never>;
  readonly #hooks: TaskRouteHooks;
  /** Closes the request's progress route, kept open past its answer while the task runs [PG14]. */
  #release: (() => void) | undefined;
  #ended = false;

  constructor(client: McpClient, options: TaskCallOptions) {
    this.client = client;
    this.endpoint = client.endpoint;
    this.revision = (client.server?.revision ?? client.revision) as Revision;
    this.modern = !isLegacy(this.revision);
    this.capabilities = client.server?.capabilities ?? {};
    this.options = options;
    let onAbort: (reason: unknown) => void = noop;
    this.deadline = new DeadlineController({
      ceilingMs: options.ceilingMs ?? 600_000,
      clock: this.endpoint.clock,
      parent: options.signal,
      onAbort: (reason) => onAbort(reason),
    });
    this.#idleMs = options.idleMs ?? 60_000;
    this.window = new IdleWindow(this.deadline, this.#idleMs);
    this.#aborted = new Promise<never>((_, reject) => {
      onAbort = reject;
    });
    this.#aborted.catch(noop);
    this.#cancelTimeoutMs = options.cancelTimeoutMs ?? 5_000;
    this.#hooks = {
      onCreated: (stop) => {
        if (this.#ended) stop();
        else this.#release = stop;
      },
      // The call ended before its answer, and the answer made a task anyway: cancel that too.
      onLateResult: (result) => {
        const task = createdTaskOf(result, this.revision);
        if (task)
          void cancelTask(client, task.taskId, this.#cancelTimeoutMs, this.modern, options).catch(noop);
      },
    };
  }

  /** The first request, whose answer is the task (or the result, when the server makes none). */
  send(method: string, params: Record<string, unknown>): Promise<unknown> {
    const { options } = this;
    const onprogress = options.onprogress ? { onprogress: options.onprogress } : {};
    return this.modern
      ? // The server may ask for input before it makes a task [T36]: each round has the idle window.
        requestWithInput(this.client, method, params, {
          ...onprogress,
          ...(options.onInputRequired ? { onInputRequired: options.onInputRequired } : {}),
          ...(options.maxRounds === undefined ? {} : { maxRounds: options.maxRounds }),
          parent: this.deadline,
          idleMs: this.#idleMs,
          ceilingMs: Number.POSITIVE_INFINITY,
          taskRoute: this.#hooks,
        })
      : this.client.request(method, params, {
          ...onprogress,
          // The window, so progress after the CreateTaskResult still touches it [PG14].
          parent: this.window.open(),
          idleMs: Number.POSITIVE_INFINITY,
          ceilingMs: Number.POSITIVE_INFINITY,
          taskRoute: this.#hooks,
        });
  }

  /** Drives the task `created` to its end, or cancels it with `tasks/cancel` when the deadline wins. */
  async toEnd(created: TaskState): Promise<unknown> {
    const run = new TaskRun(this, created);
    const ending = run.toEnd(() => this.finish());
    ending.catch(noop); // when the deadline wins the race, the loop stops on its own
    try {
      return await Promise.race([ending, this.#aborted]);
    } catch (error) {
      if (!this.deadline.aborted) throw error;
      // A deadline or the caller's abort, with a task on the server: tasks/cancel, never the notification.
      this.finish();
      throw await run.cancelFor(InflightError.from(this.deadline.reason), this.#cancelTimeoutMs);
    } finally {
      this.finish();
      run.dispose();
    }
  }

  /** Ends the call: its progress route, idle window and deadline. */
  finish(): void {
    this.#ended = true;
    this.#release?.();
    this.#release = undefined;
    this.window.close();
    this.deadline.dispose();
  }
}

/** Whether a 2025-11-25 server offers a task for `method` (`tasks.requests.tools.call` for `tools/call`). */
function offersTask(capabilities: Record<string, unknown>, method: string): boolean {
  return has(capabilities, 'tasks', 'requests', ...method.split('/'));
}

function withTaskParam(params: Record<string, unknown>, options: TaskCallOptions): Record<string, unknown> {
  return { ...params, task: options.ttlMs === undefined ? {} : { ttl: options.ttlMs } };
}

function noop(): void {}
