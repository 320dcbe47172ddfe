import { CLIENT_CAPABILITIES_META_KEY, isLegacy, type Revision } from '../revisions/revisions.js';

/**
 * A task's status. `completed`, `failed` and `cancelled` are terminal: a task never leaves them.
 *
 * @example
 * ```ts
 * import { isTerminalStatus, type TaskStatus } from '@mcp-inflight/core/adapter';
 * const status: TaskStatus = 'working';
 * isTerminalStatus(status); // false
 * ```
 */
export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/**
 * A task as one revision or the other describes it, in one shape: 2025-11-25 says `ttl` and
 * `pollInterval`, the 2026-07-28 tasks extension `ttlMs` and `pollIntervalMs`.
 *
 * @example
 * ```ts
 * import type { TaskState } from '@mcp-inflight/core/adapter';
 * const onstatus = (task: TaskState): void => console.log(task.taskId, task.status, task.statusMessage ?? '');
 * ```
 */
export interface TaskState {
  /** The id the server gave the task. */
  taskId: string;
  /** Where the task stands. */
  status: TaskStatus;
  /** The server's words about the status, if any. */
  statusMessage?: string | undefined;
  /** How long the server keeps the task from its creation, in ms (`null`: no limit; unset: not said). */
  ttlMs?: number | null | undefined;
  /** How often the server wants to be polled, in ms, if it said. */
  pollIntervalMs?: number | undefined;
  /** The task object as the server sent it (2026-07-28: with `result` or `error` once terminal). */
  raw: Record<string, unknown>;
}

/** The fields task messages may carry, for reading them without index-signature access. */
export type TaskFields = Partial<
  Record<
    | 'taskId'
    | 'status'
    | 'statusMessage'
    | 'ttl'
    | 'ttlMs'
    | 'pollInterval'
    | 'pollIntervalMs'
    | 'result'
    | 'error'
    | 'inputRequests'
    | 'resultType'
    | 'task'
    | '_meta',
    unknown
  >
>;

/**
 * The tasks extension's identifier on 2026-07-28 [T10 T16]: the key under `capabilities.extensions`.
 *
 * @example
 * ```ts
 * import { TASKS_EXTENSION } from '@mcp-inflight/core/adapter';
 * declare const serverCapabilities: { extensions?: Record<string, unknown> };
 * const offersTasks = serverCapabilities.extensions?.[TASKS_EXTENSION] !== undefined;
 * ```
 */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/**
 * The `_meta` key that ties a message to its task (2025-11-25) [T5]; a `tasks/result` answer carries it.
 *
 * @example
 * ```ts
 * import { RELATED_TASK_META_KEY } from '@mcp-inflight/core/adapter';
 * declare const result: { _meta?: Record<string, unknown> };
 * const related = result._meta?.[RELATED_TASK_META_KEY] as { taskId: string } | undefined;
 * ```
 */
export const RELATED_TASK_META_KEY = 'io.modelcontextprotocol/related-task';

const STATUSES: ReadonlySet<string> = new Set([
  'working',
  'input_required',
  'completed',
  'failed',
  'cancelled',
]);

/**
 * Whether `status` is terminal (`completed`, `failed`, `cancelled`).
 *
 * @example
 * ```ts
 * import { isTerminalStatus } from '@mcp-inflight/core/adapter';
 * isTerminalStatus('failed'); // true
 * ```
 */
export function isTerminalStatus(status: TaskStatus): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}

/** Reads a task object (a `tasks/get` result, a status notification, a CreateTaskResult's task). */
export function taskStateOf(value: unknown): TaskState | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const raw = value as TaskFields;
  if (typeof raw.taskId !== 'string' || typeof raw.status !== 'string' || !STATUSES.has(raw.status))
    return undefined;
  const ttl = raw.ttlMs !== undefined ? raw.ttlMs : raw.ttl;
  const poll = raw.pollIntervalMs ?? raw.pollInterval;
  return {
    taskId: raw.taskId,
    status: raw.status as TaskStatus,
    statusMessage: typeof raw.statusMessage === 'string' ? raw.statusMessage : undefined,
    ttlMs: ttl === null ? null : typeof ttl === 'number' ? ttl : undefined,
    pollIntervalMs: typeof poll === 'number' && poll >= 0 ? poll : undefined,
    raw: value as Record<string, unknown>,
  };
}

/**
 * The task a request's result started, if it did: 2025-11-25 wraps it (`{ task: {...} }`) [T6], the
 * 2026-07-28 extension flattens it and says `resultType: "task"` [T14].
 */
export function createdTaskOf(result: unknown, revision: Revision): TaskState | undefined {
  if (typeof result !== 'object' || result === null) return undefined;
  const r = result as TaskFields;
  if (!isLegacy(revision)) return r.resultType === 'task' ? taskStateOf(r) : undefined;
  return taskStateOf(r.task);
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Whether a 2026-07-28 request's `_meta` declares the tasks extension, as a server must check on each
 * request [M2 T24].
 *
 * @example
 * ```ts
 * import type { RequestContext } from '@mcp-inflight/core';
 * import { declaresTasksExtension } from '@mcp-inflight/core/adapter';
 * declare const ctx: RequestContext;
 * const mayGetATask = declaresTasksExtension(ctx.meta);
 * ```
 */
export function declaresTasksExtension(meta: Record<string, unknown> | undefined): boolean {
  const capabilities = meta?.[CLIENT_CAPABILITIES_META_KEY] as { extensions?: unknown } | undefined;
  const extensions = capabilities?.extensions;
  return isObject(extensions) && isObject(extensions[TASKS_EXTENSION]);
}

/**
 * Declares the tasks extension on a 2026-07-28 request's params, where that revision reads capabilities
 * [M2], beside the capabilities in `declared` (merged in order, their `extensions` too). The request's
 * own declaration replaces the one the endpoint would add, so pass what the client declares anyway
 * (`endpoint.clientCapabilities`).
 *
 * @example
 * ```ts
 * import type { Endpoint } from '@mcp-inflight/core';
 * import { withTasksExtension } from '@mcp-inflight/core/adapter';
 * declare const endpoint: Endpoint;
 * await endpoint.request('tasks/get', withTasksExtension({ taskId: 't-1' }, endpoint.clientCapabilities));
 * ```
 */
export function withTasksExtension(
  params: Record<string, unknown>,
  ...declared: Record<string, unknown>[]
): Record<string, unknown> {
  let capabilities: Record<string, unknown> = {};
  let extensions: Record<string, unknown> = {};
  for (const each of declared) {
    capabilities = { ...capabilities, ...each };
    const more = (each as { extensions?: unknown }).extensions;
    if (isObject(more)) extensions = { ...extensions, ...more };
  }
  const own = (params as TaskFields)._meta;
  const meta = isObject(own) ? own : {};
  return {
    ...params,
    _meta: {
      ...meta,
      [CLIENT_CAPABILITIES_META_KEY]: {
        ...capabilities,
        extensions: { ...extensions, [TASKS_EXTENSION]: {} },
      },
    },
  };
}
