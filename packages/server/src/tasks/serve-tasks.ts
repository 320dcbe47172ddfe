import type {
  CallToolResult,
  Clock,
  Endpoint,
  HandlerLimits,
  RequestContext,
  RequestHandler,
  Revision,
} from '@mcp-inflight/core';
import { DeadlineController, JsonRpcError, JsonRpcErrorCode } from '@mcp-inflight/core';
import type { JsonRpcErrorObject } from '@mcp-inflight/core/adapter';
import {
  checkInputRequired,
  declaresTasksExtension,
  errorResponseFor,
  hasTask,
  isInputRequired,
  isLegacy,
  isTerminalStatus,
  nap,
  RELATED_TASK_META_KEY,
  TASKS_EXTENSION,
  type TaskFields,
} from '@mcp-inflight/core/adapter';
import { ServedTask } from './served-task.js';
import { awaitTaskInput, deliverTaskInput } from './task-input.js';
import { ownerKeyOf, type SharedTaskStore, type TaskRecord } from './task-store.js';

/** 2026-07-28: a client that did not declare the tasks extension on its request [T19]. */
const MISSING_CLIENT_CAPABILITY = -32021;

/**
 * The capabilities a server serving tasks declares: the 2025-11-25 `tasks` object (with `cancel`, `list`
 * and `tools/call` augmentation) and the 2026-07-28 tasks extension. Merge it into the lifecycle's.
 *
 * @example
 * ```ts
 * import { Endpoint, serveLifecycle } from '@mcp-inflight/core';
 * import { taskCapabilities } from '@mcp-inflight/server/tasks';
 * declare const endpoint: Endpoint;
 * serveLifecycle(endpoint, {
 *   serverInfo: { name: 'demo', version: '1.0.0' },
 *   capabilities: { tools: {}, ...taskCapabilities() },
 * });
 * ```
 */
export function taskCapabilities(): Record<string, unknown> {
  return {
    tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
    extensions: { [TASKS_EXTENSION]: {} },
  };
}

/**
 * Options for {@link serveTasks}.
 *
 * @example
 * ```ts
 * import type { ServeTasksOptions } from '@mcp-inflight/server/tasks';
 * const options: ServeTasksOptions = { taskable: (params) => params?.name === 'work' };
 * ```
 */
export interface ServeTasksOptions {
  /**
   * Which calls may run as tasks (list those tools with `execution.taskSupport: 'optional'`). A
   * 2025-11-25 task request for any other is answered -32601 [T17]; on 2026-07-28, where the server
   * decides, only these become tasks (for clients that declared the extension). @default every call
   */
  taskable?: (params: Record<string, unknown> | undefined) => boolean;
  /**
   * Which calls only run as tasks (list those tools with `execution.taskSupport: 'required'`): on
   * 2026-07-28 such a call from a client that did not declare the extension is answered -32021 [T29].
   * @default none
   */
  required?: (params: Record<string, unknown> | undefined) => boolean;
}

/**
 * Serves tasks on one endpoint: `tools/call` runs `call` as a task when the requestor asks (2025-11-25
 * `params.task`) or, on 2026-07-28, when the client declared the tasks extension and `taskable` says so;
 * otherwise `call` answers as usual. Adds `tasks/get`, `tasks/result`, `tasks/cancel`, `tasks/list`
 * (2025-11-25) and `tasks/update` (2026-07-28). 2025-11-25 tasks keep the request's progress token until
 * they end [PG14] and send `notifications/tasks/status` on each change; 2026-07-28 tasks carry no progress
 * [T13], so the work's progress messages become the task's `statusMessage`. A cancel stops the work
 * through its signal, on whichever instance it runs. Tasks live in `store` (TTL, cap, owner binding): the
 * in-memory {@link TaskStore} for one process, or any {@link SharedTaskStore} that every instance behind a
 * balancer shares; a task is in the store before its `CreateTaskResult` goes out.
 *
 * @example
 * ```ts
 * import { Endpoint } from '@mcp-inflight/core';
 * import { serveTasks, TaskStore } from '@mcp-inflight/server/tasks';
 * import { defineTool, serveTools } from '@mcp-inflight/server';
 * import * as z from 'zod';
 * const store = new TaskStore();
 * const endpoint = new Endpoint({ role: 'server', transport: 'stdio', channel: { write: () => {} } });
 * const served = serveTools(endpoint, [defineTool({ name: 'echo', input: z.object({}), run: () => 'hi' })]);
 * serveTasks(endpoint, store, served.call);
 * ```
 */
export function serveTasks(
  endpoint: Endpoint,
  store: SharedTaskStore,
  call: RequestHandler,
  options: ServeTasksOptions = {},
): void {
  const taskable = options.taskable ?? (() => true);
  const poll = store.pollIntervalMs;
  // A session (stdio pipe, HTTP session) owns its 2025-11-25 tasks; 2026-07-28 requests have no session,
  // so their tasks are bound to nobody and found by their unguessable id alone.
  const ownerOf = (revision: Revision): string | undefined =>
    isLegacy(revision) ? ownerKeyOf(endpoint) : undefined;
  const find = async (
    params: Record<string, unknown> | undefined,
    ctx: RequestContext,
  ): Promise<TaskRecord> => {
    if (!isLegacy(ctx.revision) && !declaresTasksExtension(ctx.meta)) throw missingCapability();
    const taskId = (params as TaskFields | undefined)?.taskId;
    const record =
      typeof taskId === 'string' ? await store.getTask(ownerOf(ctx.revision), taskId) : undefined;
    if (!record) {
      // A store that remembers expired ids says so, as the extension's error handling names it.
      if (typeof taskId === 'string' && (await store.hasExpired?.(ownerOf(ctx.revision), taskId)))
        throw new JsonRpcError(JsonRpcErrorCode.InvalidParams, 'Failed to retrieve task: Task has expired');
      throw notFound();
    }
    return record;
  };

  endpoint.setRequestHandler('tools/call', async (params, ctx) => {
    const legacy = isLegacy(ctx.revision);
    // 2026-07-28: never a task for a request that did not declare the extension itself [T24].
    const asked = legacy
      ? ctx.revision === '2025-11-25' && hasTask(params)
      : declaresTasksExtension(ctx.meta);
    if (!asked) {
      // 2026-07-28: a tool that can only answer with a task cannot answer this client at all [T29].
      if (!legacy && options.required?.(params)) throw missingCapability();
      return call(params, ctx);
    }
    if (!taskable(params)) {
      if (!legacy) return call(params, ctx); // the server decides: this one answers directly
      throw new JsonRpcError(JsonRpcErrorCode.MethodNotFound, 'this tool does not run as a task');
    }
    const requested = ((params as TaskFields | undefined)?.task as { ttl?: unknown } | undefined)?.ttl;
    const record = await store.createTask(
      ownerOf(ctx.revision),
      typeof requested === 'number' ? requested : undefined,
    );
    if (!record) throw new JsonRpcError(JsonRpcErrorCode.Overloaded, 'too many tasks; retry later');
    const served = new ServedTask(record.taskId);
    await served.watch(
      store,
      legacy
        ? (task) => {
            // Progress reported before the end goes out before the terminal status, and none after [PG15].
            if (isTerminalStatus(task.status)) ctx.endProgress();
            endpoint.notify('notifications/tasks/status', view(task, ctx.revision, poll));
          }
        : undefined,
    );
    if (ctx.signal.aborted) {
      // Cancelled as a request while the store made the task: no answer goes, so no work may run (rule 3).
      await store.finishTask(record.taskId, { status: 'cancelled', error: cancelledError() });
      throw ctx.signal.reason;
    }
    run(call, params, ctx, served, store, endpoint.clock, record.ttlMs);
    // The task is in the store, so any instance answers for it, before this result goes [rule 15].
    return legacy
      ? { task: view(record, ctx.revision, poll) }
      : { ...view(record, ctx.revision, poll), resultType: 'task' };
  });

  endpoint.setRequestHandler('tasks/get', async (params, ctx) => {
    const record = await find(params, ctx);
    const v = view(record, ctx.revision, poll) as TaskFields;
    if (isLegacy(ctx.revision)) return v;
    // 2026-07-28 inlines the outcome in the task [T20].
    if (record.status === 'completed') v.result = record.result;
    if (record.status === 'failed') v.error = record.error;
    // Every request still outstanding, each time it is asked, until answered [T31].
    if (record.status === 'input_required' && record.inputRequests) v.inputRequests = record.inputRequests;
    return v;
  });

  endpoint.setRequestHandler('tasks/result', async (params, ctx) => {
    // Removed by the 2026-07-28 tasks extension, whose tasks/get inlines the outcome [T28].
    if (!isLegacy(ctx.revision))
      throw new JsonRpcError(JsonRpcErrorCode.MethodNotFound, 'Method not found: tasks/result');
    const found = await find(params, ctx);
    // it blocks [T23]
    const record = isTerminalStatus(found.status)
      ? found
      : await untilTerminal(store, ownerOf(ctx.revision), found.taskId, ctx.signal);
    if (record.error) throw new JsonRpcError(record.error.code, record.error.message, record.error.data);
    const result = (record.result ?? {}) as Record<string, unknown>;
    const meta = ((result as TaskFields)._meta ?? {}) as Record<string, unknown>;
    return { ...result, _meta: { ...meta, [RELATED_TASK_META_KEY]: { taskId: record.taskId } } };
  });

  endpoint.setRequestHandler('tasks/cancel', async (params, ctx) => {
    const found = await find(params, ctx);
    // The task is `cancelled` before the response goes [T2], and stays so [T4]; the instance running its
    // work sees the end through the store and aborts it.
    const record = isTerminalStatus(found.status)
      ? found
      : ((await store.finishTask(found.taskId, {
          status: 'cancelled',
          error: cancelledError(),
          statusMessage: 'The task was cancelled by request.',
        })) ?? (await store.getTask(ownerOf(ctx.revision), found.taskId)));
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
    return isLegacy(ctx.revision) ? view(record, ctx.revision, poll) : {};
  });

  endpoint.setRequestHandler('tasks/list', async (_params, ctx) => {
    if (!isLegacy(ctx.revision))
      throw new JsonRpcError(JsonRpcErrorCode.MethodNotFound, 'Method not found: tasks/list');
    const tasks = await store.listTasks(ownerOf(ctx.revision));
    return { tasks: tasks.map((r) => view(r, ctx.revision, poll)) };
  });

  endpoint.setRequestHandler('tasks/update', async (params, ctx) => {
    if (isLegacy(ctx.revision))
      throw new JsonRpcError(JsonRpcErrorCode.MethodNotFound, 'Method not found: tasks/update');
    const record = await find(params, ctx);
    await deliverTaskInput(
      store,
      record.taskId,
      (params as { inputResponses?: unknown } | undefined)?.inputResponses,
    );
    return {}; // an acknowledgement only; the status shows what came of it [T34]
  });
}

/** -32021 naming the tasks extension, for a 2026-07-28 client that did not declare it [T19 T29]. */
function missingCapability(): JsonRpcError {
  return new JsonRpcError(MISSING_CLIENT_CAPABILITY, 'Missing required client capability', {
    requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
  });
}

function notFound(): JsonRpcError {
  return new JsonRpcError(JsonRpcErrorCode.InvalidParams, 'Failed to retrieve task: Task not found');
}

/** Runs the work in the background, under the task's own signal; its outcome ends the task. */
function run(
  call: RequestHandler,
  params: Record<string, unknown> | undefined,
  ctx: RequestContext,
  served: ServedTask,
  store: SharedTaskStore,
  clock: Clock,
  ttlMs: number,
): void {
  const legacy = isLegacy(ctx.revision);
  const endsBy = clock.now() + ttlMs;
  const taskId = served.taskId;
  const deadline = new DeadlineController({ clock, parent: served.abort.signal });
  const scopes: DeadlineController[] = [deadline];
  let roundParams = withoutTask(params);
  const contextOf = (scope: DeadlineController): RequestContext => ({
    id: ctx.id,
    method: ctx.method,
    revision: ctx.revision,
    params: roundParams,
    get signal() {
      return scope.signal;
    },
    progressToken: legacy ? ctx.progressToken : undefined,
    meta: ctx.meta,
    // 2025-11-25: the task is input_required while its work waits on the requestor [T37]; a 2026-07-28
    // task's work asks by returning input_required instead.
    task: legacy
      ? {
          taskId,
          onInputWait: (waiting) =>
            void store.updateTask(taskId, { status: waiting ? 'input_required' : 'working' }).catch(noop),
        }
      : undefined,
    deadline: scope,
    progress(progress, total, message) {
      scope.touch();
      if (legacy) return ctx.progress(progress, total, message);
      // No progress on 2026-07-28 tasks [T13]: the requestor sees the step as the status message.
      const statusMessage = message ?? (total === undefined ? `${progress}` : `${progress}/${total}`);
      void store.updateTask(taskId, { statusMessage }).catch(noop);
      return true;
    },
    limit(limits: HandlerLimits) {
      const child = new DeadlineController({
        idleMs: limits.idleMs ?? Number.POSITIVE_INFINITY,
        ceilingMs: limits.ceilingMs ?? Number.POSITIVE_INFINITY,
        parent: scope,
      });
      scopes.push(child);
      return contextOf(child);
    },
    endProgress: () => ctx.endProgress(),
  });
  const base = roundParams;
  // 2026-07-28: work that answers input_required, as a multi round-trip tool does, puts the task in
  // input_required; once tasks/update has answered every request it runs again with the answers and its
  // requestState, as a retry would [T31 T34]. The requestState never leaves the server here.
  const work = async (): Promise<unknown> => {
    for (let round = 1; ; round++) {
      const output = await call(roundParams, contextOf(deadline));
      if (legacy || !isInputRequired(output)) return output;
      if (round > TASK_INPUT_ROUNDS)
        throw new JsonRpcError(JsonRpcErrorCode.InternalError, 'the task kept asking for input');
      const asked = checkInputRequired('tools/call', output);
      const answers = await awaitTaskInput(served, store, asked, deadline.signal);
      const { inputResponses: _i, requestState: _r, ...rest } = base ?? {};
      roundParams = {
        ...rest,
        ...(Object.keys(answers).length > 0 ? { inputResponses: answers } : {}),
        ...(asked.requestState === undefined ? {} : { requestState: asked.requestState }),
      };
    }
  };
  work()
    .then(
      (result) => {
        served.settled = true;
        // 2025-11-25: a tool result with isError is a failed task; 2026-07-28: it is completed [T21 T22].
        const failed = legacy && (result as CallToolResult | undefined)?.isError === true;
        const outcome = { status: failed ? 'failed' : 'completed', result } as const;
        return persist(() => store.finishTask(taskId, outcome), clock, endsBy);
      },
      (error: unknown) => {
        served.settled = true;
        const wire = errorResponseFor(0, error) as { error: JsonRpcErrorObject };
        const outcome = { status: 'failed', error: wire.error, statusMessage: wire.error.message } as const;
        return persist(() => store.finishTask(taskId, outcome), clock, endsBy);
      },
    )
    .catch(noop) // a store away past the TTL: the TTL ends the task
    .finally(() => {
      for (const scope of scopes) scope.dispose();
      ctx.endProgress();
    });
}

/**
 * Writes a task's end, again and again while the store is away (Redis restarting), until the task's TTL
 * would have ended it anyway: a finished result is not lost to an outage shorter than the TTL.
 */
async function persist<T>(write: () => Promise<T>, clock: Clock, endsBy: number): Promise<T> {
  for (let waitMs = 50; ; waitMs = Math.min(waitMs * 2, 1_000)) {
    try {
      return await write();
    } catch (error) {
      if (clock.now() + waitMs >= endsBy) throw error;
      await nap(waitMs, clock).slept;
    }
  }
}

/** The most times a task's work may ask for input before the task fails. */
const TASK_INPUT_ROUNDS = 32;

/** What `tasks/result` answers for a task cancelled by request: the caller's cancel, as a plain call gets it. */
function cancelledError(): JsonRpcErrorObject {
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

/** The task as the revision names its fields: `ttl`/`pollInterval`, or `ttlMs`/`pollIntervalMs`. */
function view(record: TaskRecord, revision: Revision, pollIntervalMs: number): Record<string, unknown> {
  const legacy = isLegacy(revision);
  return {
    taskId: record.taskId,
    status: record.status,
    createdAt: record.createdAt,
    lastUpdatedAt: record.lastUpdatedAt,
    [legacy ? 'ttl' : 'ttlMs']: record.ttlMs,
    [legacy ? 'pollInterval' : 'pollIntervalMs']: pollIntervalMs,
    ...(record.statusMessage === undefined ? {} : { statusMessage: record.statusMessage }),
  };
}

function withoutTask(params: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!params || !('task' in params)) return params;
  const { task: _task, ...rest } = params;
  return rest;
}

function noop(): void {}
