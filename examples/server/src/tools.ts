import { setTimeout as sleep } from 'node:timers/promises';
import {
  type Endpoint,
  InflightError,
  isCancel,
  type RequestContext,
  serveLifecycle,
  type TransportKind,
} from '@mcp-inflight/core';
import { defineTool, serveTools, type Tool, ToolList } from '@mcp-inflight/server';
import { RequestStateSigner } from '@mcp-inflight/server/input';
import {
  type ServeTasksOptions,
  type SharedTaskStore,
  serveTasks,
  TaskStore,
  taskCapabilities,
} from '@mcp-inflight/server/tasks';
import * as z from 'zod';
import { confirmTool } from './confirm.js';

/** Counts of `work` calls, shared by every connection of one server process. */
export interface WorkCounters {
  running: number;
  completed: number;
  /** Ended because the caller asked (`isCancel`: a cancel, or a 2026-07-28 HTTP stream closed). */
  cancelled: number;
  /** Ended by anything else: a limit, a dropped peer on stdio or legacy HTTP, a shutdown. */
  stopped: number;
}

const workInput = z.object({
  steps: z.number().int().min(0).max(1_000_000),
  intervalMs: z.number().min(0).max(3_600_000),
  tag: z.string().optional(),
});

/**
 * One signer per process: a retry's requestState is verified by the key that sealed it. Random per
 * process unless `--request-state-secret-file` gives the secret every instance shares.
 */
let signer = new RequestStateSigner({ ttlMs: 300_000 });

/** Seals and opens requestState with `secret` from now on (`--request-state-secret-file`). */
export function useRequestStateSecret(secret: Uint8Array): void {
  signer = new RequestStateSigner({ ttlMs: 300_000, secret });
}

/**
 * The example's tools: `work` (sleeps `intervalMs` per step, reports progress after each, honours
 * cancellation), `status` (the `counters` as JSON text) and `confirm` (a two-round call that asks the
 * client to confirm, see confirm.ts).
 *
 * @example
 * ```ts
 * import { exampleTools } from './tools.js';
 * exampleTools({ running: 0, completed: 0, cancelled: 0, stopped: 0 }).map((t) => t.name); // ['work', 'status', 'confirm']
 * ```
 */
export function exampleTools(
  counters: WorkCounters,
  tasks = false,
  transport: TransportKind = 'stdio',
): Tool[] {
  return [
    defineTool({
      name: 'work',
      description:
        'Sleeps intervalMs per step for `steps` steps, reporting progress after each; honours cancellation.',
      input: workInput,
      run: (args, ctx) => work(args, ctx, counters, transport),
      // With tasks served, a client may run it as one [T17].
      ...(tasks ? { listing: { execution: { taskSupport: 'optional' } } } : {}),
    }),
    defineTool({
      name: 'status',
      description: 'Counts of work calls: running, completed, cancelled, stopped (as JSON text).',
      input: z.object({}),
      run: () => JSON.stringify(counters),
    }),
    confirmTool(signer, tasks),
  ];
}

async function work(
  { steps, intervalMs, tag }: z.output<typeof workInput>,
  ctx: RequestContext,
  counters: WorkCounters,
  transport: TransportKind,
): Promise<string> {
  const prefix = tag ? `${tag}: ` : '';
  counters.running++;
  try {
    for (let i = 1; i <= steps; i++) {
      await sleep(intervalMs, undefined, { signal: ctx.signal });
      ctx.progress(i, steps, `${prefix}step ${i} of ${steps}`);
    }
    counters.completed++;
    return `${prefix}done ${steps} steps`;
  } catch (error) {
    if (!ctx.signal.aborted) throw error;
    const cause = InflightError.from(ctx.signal.reason); // the cause (cancel, disconnect, limit) is the answer
    // A dropped peer on stdio or legacy HTTP, or a limit, is not the caller asking to stop.
    if (isCancel(cause, ctx.revision, transport)) counters.cancelled++;
    else counters.stopped++;
    throw cause;
  } finally {
    counters.running--;
  }
}

/**
 * Registers the server's lifecycle and its tools on one endpoint (one stdio pipe, one HTTP session or one
 * stateless request), through the library's tool layer.
 *
 * @example
 * ```ts
 * import { exampleTools, serveExample } from './tools.js';
 * declare const endpoint: import('@mcp-inflight/core').Endpoint;
 * serveExample(endpoint, exampleTools({ running: 0, completed: 0, cancelled: 0, stopped: 0 }));
 * ```
 */
export function serveExample(
  endpoint: Endpoint,
  tools: readonly Tool[] | ToolList,
  tasks?: SharedTaskStore,
  taskOptions: ServeTasksOptions = { taskable: exampleTaskable },
): void {
  // A list that can change says so: clients may then ask for its changes on a listen stream.
  const toolsCapability = { tools: tools instanceof ToolList ? { listChanged: true } : {} };
  serveLifecycle(endpoint, {
    serverInfo: { name: 'mcp-inflight-example-server', version: '0.1.0' },
    capabilities: tasks ? { ...toolsCapability, ...taskCapabilities() } : toolsCapability,
  });
  const served = serveTools(endpoint, tools);
  // Only `work` and `confirm` run as tasks (unless `taskOptions` say otherwise); tasks outlive a stateless
  // request, so the store is the process's.
  if (tasks) serveTasks(endpoint, tasks, served.call, taskOptions);
}

/**
 * Whether a call may run as a task with `--tasks`: `work` and `confirm` (whose task asks for input).
 *
 * @example
 * ```ts
 * import { exampleTaskable } from './tools.js';
 * exampleTaskable({ name: 'confirm', arguments: { action: 'deploy' } }); // true
 * ```
 */
export function exampleTaskable(params: Record<string, unknown> | undefined): boolean {
  return params?.name === 'work' || params?.name === 'confirm';
}

/**
 * Registers the example server on one endpoint. `counters` is shared across endpoints so `status` sees
 * the whole process; so is `tasks`, the process's task store (`--tasks`).
 */
export function setupExampleServer(
  endpoint: Endpoint,
  counters: WorkCounters,
  tasks?: SharedTaskStore,
): void {
  serveExample(endpoint, exampleTools(counters, tasks !== undefined, endpoint.transport), tasks);
}

/** The example's task limits: tasks live 60 s (at most 10 min), polled every 200 ms. */
export const EXAMPLE_TASK_LIMITS = { defaultTtlMs: 60_000, maxTtlMs: 600_000, pollIntervalMs: 200 } as const;

/** The process's task store for `--tasks` without `--redis`. */
export function exampleTaskStore(): TaskStore {
  return new TaskStore(EXAMPLE_TASK_LIMITS);
}
