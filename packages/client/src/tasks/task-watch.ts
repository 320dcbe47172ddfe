import type { Endpoint } from '@mcp-inflight/core';

type Listener = (params: Record<string, unknown>) => void;

/** Per endpoint and notification method: the task drivers listening, by task id. */
const WATCHERS = new WeakMap<Endpoint, Map<string, Map<string, Listener>>>();

/**
 * Routes a task status notification to the driver of that task on this endpoint; returns the unwatch.
 * The tasks entry owns the status notification method on an endpoint it drives tasks on; a notification
 * for a task nobody here drives is ignored (rule 9: it is not ours to see).
 */
export function watchTask(
  endpoint: Endpoint,
  method: string,
  taskId: string,
  listener: Listener,
): () => void {
  let byMethod = WATCHERS.get(endpoint);
  if (!byMethod) {
    byMethod = new Map();
    WATCHERS.set(endpoint, byMethod);
  }
  let byTask = byMethod.get(method);
  if (!byTask) {
    const tasks = new Map<string, Listener>();
    byTask = tasks;
    byMethod.set(method, tasks);
    endpoint.setNotificationHandler(method, (params) => {
      const id = (params as { taskId?: unknown } | undefined)?.taskId;
      if (typeof id === 'string') tasks.get(id)?.(params as Record<string, unknown>);
    });
  }
  const tasks = byTask;
  tasks.set(taskId, listener);
  return () => {
    if (tasks.get(taskId) === listener) tasks.delete(taskId);
  };
}
