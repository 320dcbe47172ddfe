import type { Endpoint, RequestContext, RequestHandler } from '@mcp-inflight/core';
import { JsonRpcError, JsonRpcErrorCode } from '@mcp-inflight/core';
import {
  declaresTasksExtension,
  hasTask,
  isLegacy,
  isTerminalStatus,
  TASKS_EXTENSION,
  type TaskFields,
} from '@mcp-inflight/core/adapter';
import { ServedTask } from './served-task.js';
import { cancelledError, missingCapability, serveTaskMethods, TaskServing } from './task-methods.js';
import type { SharedTaskStore } from './task-store.js';
import { runTaskWork } from './task-work.js';

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
  const serving = new TaskServing(endpoint, store);
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
    return startTask(serving, call, params, ctx);
  });
  serveTaskMethods(serving);
}

/**
 * Makes the task a `tools/call` asked for, starts its work and answers with the task (`CreateTaskResult`
 * on 2025-11-25, a `resultType: 'task'` result on 2026-07-28).
 */
async function startTask(
  serving: TaskServing,
  call: RequestHandler,
  params: Record<string, unknown> | undefined,
  ctx: RequestContext,
): Promise<Record<string, unknown>> {
  const { endpoint, store } = serving;
  const legacy = isLegacy(ctx.revision);
  const requested = ((params as TaskFields | undefined)?.task as { ttl?: unknown } | undefined)?.ttl;
  const record = await store.createTask(
    serving.ownerOf(ctx.revision),
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
          endpoint.notify('notifications/tasks/status', serving.view(task, ctx.revision));
        }
      : undefined,
  );
  if (ctx.signal.aborted) {
    // Cancelled as a request while the store made the task: no answer goes, so no work may run (rule 3).
    await store.finishTask(record.taskId, { status: 'cancelled', error: cancelledError() });
    throw ctx.signal.reason;
  }
  runTaskWork({ call, params, ctx, served, store, clock: endpoint.clock, ttlMs: record.ttlMs });
  // The task is in the store, so any instance answers for it, before this result goes [rule 15].
  const view = serving.view(record, ctx.revision);
  return legacy ? { task: view } : { ...view, resultType: 'task' };
}
