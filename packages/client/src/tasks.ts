/**
 * `@mcp-inflight/client/tasks`: one call that runs a task to its end (2025-11-25 tasks and the 2026-07-28
 * tasks extension), with progress, deadlines and `tasks/cancel`, and the idle window it keeps. On its own
 * entry, so a client pays for it only when it imports it.
 *
 * @module @mcp-inflight/client/tasks
 */

export { isTerminalStatus, type TaskState, type TaskStatus } from '@mcp-inflight/core/adapter';
export type { TaskCallOptions, TaskErrorDetails } from './tasks/call-options.js';
export { callTask } from './tasks/call-task.js';
export { IdleWindow } from './tasks/idle-window.js';
