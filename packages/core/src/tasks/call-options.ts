import type { InflightErrorDetails } from '../errors/inflight-error.js';
import type { ProgressParams } from '../schemas/types.js';
import type { TaskState } from './task-state.js';

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
