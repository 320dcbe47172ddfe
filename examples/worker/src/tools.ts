import { InflightError, isCancel, type RequestContext } from '@mcp-inflight/core';
import { defineTool, type Tool } from '@mcp-inflight/server';
import * as z from 'zod';

/**
 * Counts of `work` calls in this isolate (a Worker's module state lives as long as its isolate: on workerd
 * run locally that is the whole process; on Cloudflare each isolate has its own).
 */
export interface WorkCounters {
  running: number;
  completed: number;
  /** Ended because the caller asked: a 2026-07-28 stream closed, or a legacy `notifications/cancelled`. */
  cancelled: number;
  /** Ended by anything else: the handler's idle limit or ceiling, a shutdown. */
  stopped: number;
}

const workInput = z.object({
  steps: z.number().int().min(0).max(1_000_000),
  intervalMs: z.number().min(0).max(3_600_000),
  tag: z.string().optional(),
});

/**
 * The tools of examples/server, on what a Worker has (no `node:timers`): `work` sleeps `intervalMs` per
 * step, reports `{progress: i, total: steps, message}` after each and honours cancellation; `status` returns
 * `counters` as JSON text.
 *
 * @example
 * ```ts
 * import { workerTools } from './tools.js';
 * workerTools({ running: 0, completed: 0, cancelled: 0, stopped: 0 }).map((t) => t.name); // ['work', 'status']
 * ```
 */
export function workerTools(counters: WorkCounters): Tool[] {
  return [
    defineTool({
      name: 'work',
      description:
        'Sleeps intervalMs per step for `steps` steps, reporting progress after each; honours cancellation.',
      input: workInput,
      run: (args, ctx) => work(args, ctx, counters),
    }),
    defineTool({
      name: 'status',
      description: 'Counts of work calls: running, completed, cancelled, stopped (as JSON text).',
      input: z.object({}),
      run: () => JSON.stringify(counters),
    }),
  ];
}

async function work(
  { steps, intervalMs, tag }: z.output<typeof workInput>,
  ctx: RequestContext,
  counters: WorkCounters,
): Promise<string> {
  const prefix = tag ? `${tag}: ` : '';
  counters.running++;
  try {
    for (let i = 1; i <= steps; i++) {
      await sleep(intervalMs, ctx.signal);
      ctx.progress(i, steps, `${prefix}step ${i} of ${steps}`);
    }
    counters.completed++;
    return `${prefix}done ${steps} steps`;
  } catch (error) {
    if (!ctx.signal.aborted) throw error;
    const cause = InflightError.from(ctx.signal.reason); // the cause (cancel, disconnect, limit) is the answer
    if (isCancel(cause, ctx.revision, 'http')) counters.cancelled++;
    else counters.stopped++;
    throw cause;
  } finally {
    counters.running--;
  }
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts (its timer cleared). */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
