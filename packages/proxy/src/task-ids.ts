// The task messages' shapes as the proxy reads and rewrites them: ids and TTLs.
import { RELATED_TASK_META_KEY } from '@mcp-inflight/core/adapter';

/** The upstream's task id in a CreateTaskResult of either shape, if it made a task. */
export function upstreamTaskIdOf(result: unknown, modern: boolean): string | undefined {
  if (!isObject(result)) return undefined;
  if (modern)
    return result.resultType === 'task' && typeof result.taskId === 'string' ? result.taskId : undefined;
  const task = result.task;
  return isObject(task) && typeof task.taskId === 'string' ? task.taskId : undefined;
}

/** A 2026-07-28 result without its `resultType`, for a legacy host. */
export function stripResultType(result: unknown): unknown {
  if (!isObject(result)) return result;
  const { resultType: _type, ...rest } = result;
  return rest;
}

/** A task's TTL in ms (`ttl` or `ttlMs`), if it names one. */
export function ttlOf(task: unknown, modern: boolean): number | undefined {
  if (!isObject(task)) return undefined;
  const ttl = modern ? task.ttlMs : task.ttl;
  return typeof ttl === 'number' && ttl >= 0 ? ttl : undefined;
}

/** Replaces the task id wherever the task messages carry it: the task, `task`, `tasks[]`, `_meta`. */
export function mapTaskIds(value: unknown, from: string, to: string): unknown {
  if (!isObject(value)) return value;
  const out: Record<string, unknown> = { ...value };
  if (out.taskId === from) out.taskId = to;
  if (isObject(out.task) && out.task.taskId === from) out.task = { ...out.task, taskId: to };
  if (Array.isArray(out.tasks)) out.tasks = out.tasks.map((t) => mapTaskIds(t, from, to));
  const meta = out._meta;
  if (isObject(meta) && isObject(meta[RELATED_TASK_META_KEY]) && meta[RELATED_TASK_META_KEY].taskId === from)
    out._meta = { ...meta, [RELATED_TASK_META_KEY]: { ...meta[RELATED_TASK_META_KEY], taskId: to } };
  return out;
}

/** A plain object (not null, not an array). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
