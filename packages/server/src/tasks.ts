/**
 * `@mcp-inflight/server/tasks`: tasks as a server: a task store and the `tasks/*` methods, for the
 * 2025-11-25 tasks and the 2026-07-28 tasks extension. On its own entry, so a server pays for it only when
 * it imports it.
 *
 * @module @mcp-inflight/server/tasks
 */

export {
  declaresTasksExtension,
  isTerminalStatus,
  RELATED_TASK_META_KEY,
  TASKS_EXTENSION,
  type TaskState,
  type TaskStatus,
  withTasksExtension,
} from '@mcp-inflight/core/adapter';
export { type ServeTasksOptions, serveTasks, taskCapabilities } from './tasks/serve-tasks.js';
export { type TaskChange, type TaskOutcome, type TaskRecord, taskSteps } from './tasks/task-record.js';
export { type SharedTaskStore, TaskStore, type TaskStoreOptions } from './tasks/task-store.js';
