import type { Endpoint, RequestContext, Revision } from '@mcp-inflight/core';
import { JsonRpcError, JsonRpcErrorCode } from '@mcp-inflight/core';
import type { JsonRpcErrorObject } from '@mcp-inflight/core/adapter';
import {
  declaresTasksExtension,
  isLegacy,
  isTerminalStatus,
  RELATED_TASK_META_KEY,
  TASKS_EXTENSION,
  type TaskFields,
} from '@mcp-inflight/core/adapter';
import { deliverTaskInput } from './task-input.js';
import type { TaskRecord } from './task-record.js';
import { ownerKeyOf, type SharedTaskStore } from './task-store.js';

/** 2026-07-28: a client that did not declare the tasks extension on its request [T19]. */

type Params = Record<string, unknown> | undefined;

/** What the task methods of one endpoint share: its store, and whose tasks a request may see. */
export class TaskServing {
  readonly endpoint: Endpoint;
  readonly store: SharedTaskStore;
  /** The polling interval the store suggests, shown on every task. */
  readonly pollIntervalMs: number;

  constructor(endpoint: Endpoint, store: SharedTaskStore) {
    this.endpoint = endpoint;
    this.store = store;
    this.pollIntervalMs = store.pollIntervalMs;
  }

  /**
   * A session (stdio pipe, HTTP session) owns its 2025-11-25 tasks; 2026-07-28 requests have no session,
   * so their tasks are bound to nobody and found by their unguessable id alone.
   */
  ownerOf(revision: Revision): string | undefined {
    return isLegacy(revision) ? ownerKeyOf(this.endpoint) : undefined;
  }

  /** The task as the revision names its fields: `ttl`/`pollInterval`, or `ttlMs`/`pollIntervalMs`. */
  view(record: TaskRecord, revision: Revision): Record<string, unknown> {
    const legacy = isLegacy(revision);
    return {
      taskId: record.taskId,
      status: record.status,
      createdAt: record.createdAt,
      lastUpdatedAt: record.lastUpdatedAt,
      [legacy ? 'ttl' : 'ttlMs']: record.ttlMs,
      [legacy ? 'pollInterval' : 'pollIntervalMs']: this.pollIntervalMs,
      ...(record.statusMessage === undefined ? {} : { statusMessage: record.statusMessage }),
    };
  }

  /** The task `params.taskId` names, if the requestor may see it; the error the spec names otherwise. */
  async find(params: Params, ctx: RequestContext): Promise<TaskRecord> {
    if (!isLegacy(ctx.revision) && !declaresTasksExtension(ctx.meta)) throw missingCapability();
    const taskId = (params as TaskFields | undefined)?.taskId;
    const owner = this.ownerOf(ctx.revision);
    const record = typeof taskId === 'string' ? await this.store.getTask(owner, taskId) : undefined;
    if (!record) {
      // A store that remembers expired ids says so, as the extension's error handling names it.
      if (typeof taskId === 'string' && (await this.store.hasExpired?.(owner, taskId)))
        throw new JsonRpcError(JsonRpcErrorCode.InvalidParams, 'Failed to retrieve task: Task has expired');
      throw notFound();
    }
    return record;
  }
}

/** Adds `tasks/get`, `tasks/result`, `tasks/cancel`, `tasks/list` (2025-11-25) and `tasks/update` (2026-07-28). */
export function serveTaskMethods(serving: TaskServing): void {
  const { endpoint } = serving;
  endpoint.setRequestHandler('tasks/get', (params, ctx) => getTask(serving, params, ctx));
  endpoint.setRequestHandler('tasks/result', (params, ctx) => taskResult(serving, params, ctx));
  endpoint.setRequestHandler('tasks/cancel', (params, ctx) => cancelTask(serving, params, ctx));
  endpoint.setRequestHandler('tasks/list', (_params, ctx) => listTasks(serving, ctx));
  endpoint.setRequestHandler('tasks/update', (params, ctx) => updateTask(serving, params, ctx));
}

async function getTask(serving: TaskServing, params: Params, ctx: RequestContext): Promise<unknown> {
  const record = await serving.find(params, ctx);
  const v = serving.view(record, ctx.revision) as TaskFields;
  if (isLegacy(ctx.revision)) return v;
  // 2026-07-28 inlines the outcome in the task [T20].
  if (record.status === 'completed') v.result = record.result;
  if (record.status === 'failed') v.error = record.error;
  // Every request still outstanding, each time it is asked, until answered [T31].
  if (record.status === 'input_required' && record.inputRequests) v.inputRequests = record.inputRequests;
  return v;
}

async function taskResult(serving: TaskServing, params: Params, ctx: RequestContext): Promise<unknown> {
  // Removed by the 2026-07-28 tasks extension, whose tasks/get inlines the outcome [T28].
  if (!isLegacy(ctx.revision))
    throw new JsonRpcError(JsonRpcErrorCode.MethodNotFound, 'Method not found: tasks/result');
  const found = await serving.find(params, ctx);
  // it blocks [T23]
  const record = isTerminalStatus(found.status)
    ? found
    : await untilTerminal(serving.store, serving.ownerOf(ctx.revision), found.taskId, ctx.signal);
  if (record.error) throw new JsonRpcError(record.error.code, record.error.message, record.error.data);
  const result = (record.result ?? {}) as Record<string, unknown>;
  const meta = ((result as TaskFields)._meta ?? {}) as Record<string, unknown>;
  return { ...result, _meta: { ...meta, [RELATED_TASK_META_KEY]: { taskId: record.taskId } } };
}

async function cancelTask(serving: TaskServing, params: Params, ctx: RequestContext): Promise<unknown> {
  const { store } = serving;
  const found = await serving.find(params, ctx);
  // The task is `cancelled` before the response goes [T2], and stays so [T4]; the instance running its
  // work sees the end through the store and aborts it.
  const record = isTerminalStatus(found.status)
    ? found
    : ((await store.finishTask(found.taskId, {
        status: 'cancelled',
        error: cancelledError(),
        statusMessage: 'The task was cancelled by request.',
      })) ?? (await store.getTask(serving.ownerOf(ctx.revision), found.taskId)));
  if (!record) throw notFound();
  if (record.status !== 'cancelled' || record === found) {
    // 2025-11-25: a terminal task may not be cancelled [T3]; 2026-07-28 acknowledges anyway [T15 T12].
    if (isLegacy(ctx.revision))
      throw new JsonRpcError(
        JsonRpcErrorCode.InvalidParams,
        `Cannot cancel task: already in terminal status '${record.status}'`,
      );
    return {};
  }
  return isLegacy(ctx.revision) ? serving.view(record, ctx.revision) : {};
}

async function listTasks(serving: TaskServing, ctx: RequestContext): Promise<unknown> {
  if (!isLegacy(ctx.revision))
    throw new JsonRpcError(JsonRpcErrorCode.MethodNotFound, 'Method not found: tasks/list');
  const tasks = await serving.store.listTasks(serving.ownerOf(ctx.revision));
  return { tasks: tasks.map((r) => serving.view(r, ctx.revision)) };
}

async function updateTask(serving: TaskServing, params: Params, ctx: RequestContext): Promise<unknown> {
  if (isLegacy(ctx.revision))
    throw new JsonRpcError(JsonRpcErrorCode.MethodNotFound, 'Method not found: tasks/update');
  const record = await serving.find(params, ctx);
  await deliverTaskInput(
    serving.store,
    record.taskId,
    (params as { inputResponses?: unknown } | undefined)?.inputResponses,
  );
  return {}; // an acknowledgement only; the status shows what came of it [T34]
}

/** -32021 naming the tasks extension, for a 2026-07-28 client that did not declare it [T19 T29]. */
export function missingCapability(): JsonRpcError {
  return new JsonRpcError(JsonRpcErrorCode.MissingClientCapability, 'Missing required client capability', {
    requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
  });
}

function notFound(): JsonRpcError {
  return new JsonRpcError(JsonRpcErrorCode.InvalidParams, 'Failed to retrieve task: Task not found');
}

/** What `tasks/result` answers for a task cancelled by request: the caller's cancel, as a plain call gets it. */
export function cancelledError(): JsonRpcErrorObject {
  return { code: -32800, message: 'the task was cancelled by request', data: { cause: 'CANCELLED' } };
}

/** The task once it has ended, wherever it ends; rejects when `signal` aborts or the task is gone. */
async function untilTerminal(
  store: SharedTaskStore,
  owner: string | undefined,
  taskId: string,
  signal: AbortSignal,
): Promise<TaskRecord> {
  let unwatch: () => void = noop;
  let onEnd: (task: TaskRecord | undefined) => void = noop;
  const ended = new Promise<TaskRecord>((resolve, reject) => {
    const onAbort = (): void => {
      unwatch();
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    onEnd = (task) => {
      if (task && !isTerminalStatus(task.status)) return;
      signal.removeEventListener('abort', onAbort);
      unwatch();
      if (task) resolve(task);
      else reject(notFound());
    };
  });
  ended.catch(noop); // the caller sees the rejection; this only keeps it from looking unhandled
  unwatch = await store.watchTask(taskId, (task) => onEnd(task));
  // It may have ended before the watch was in place.
  onEnd(await store.getTask(owner, taskId));
  return ended;
}

function noop(): void {}
