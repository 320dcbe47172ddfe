import type { InflightErrorDetails } from '@mcp-inflight/core';
import type { ProgressParams, TaskState } from '@mcp-inflight/core/adapter';
import type { InputHandler } from '../input/request-with-input.js';

/**
 * Options for {@link callTask}.
 *
 * @example
 * ```ts
 * import type { TaskCallOptions } from '@mcp-inflight/client/tasks';
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
   * 2026-07-28: gathers the answers to what the server asks for, before it makes a task (an
   * `input_required` answer to the request, retried with the answers) or while a task waits
   * (`input_required` on `tasks/get`, answered with `tasks/update`). Each request is shown once, however
   * often polls repeat it. The idle window does not run while it gathers; the ceiling does.
   * @default the client's own handlers for each method (`client.onRequest('elicitation/create', …)`)
   */
  onInputRequired?: InputHandler;
  /** 2026-07-28: the most rounds of input before the task is created, the first request included. @default 8 */
  maxRounds?: number;
  /**
   * Capabilities to declare on this call's 2026-07-28 requests, beside the client's own (its
   * `capabilities`) and the tasks extension (always added).
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
 * import type { TaskErrorDetails } from '@mcp-inflight/client/tasks';
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
