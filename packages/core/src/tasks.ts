/**
 * `@mcp-inflight/core/tasks`: tasks as a client (one call runs a task to its end, with progress,
 * deadlines and `tasks/cancel`) and as a server (a task store and the `tasks/*` methods), for the
 * 2025-11-25 tasks and the 2026-07-28 tasks extension. On its own entry, so a user pays for it only
 * when they import it.
 *
 * @module @mcp-inflight/core/tasks
 */
export type { TaskCallOptions, TaskErrorDetails } from './tasks/call-options.js';
export { callTask } from './tasks/call-task.js';
export { type ServeTasksOptions, serveTasks, taskCapabilities } from './tasks/serve-tasks.js';
export { taskSteps } from './tasks/task-record.js';
export {
  declaresTasksExtension,
  isTerminalStatus,
  RELATED_TASK_META_KEY,
  TASKS_EXTENSION,
  type TaskState,
  type TaskStatus,
  withTasksExtension,
} from './tasks/task-state.js';
export {
  type SharedTaskStore,
  type TaskChange,
  type TaskOutcome,
  type TaskRecord,
  TaskStore,
  type TaskStoreOptions,
} from './tasks/task-store.js';
