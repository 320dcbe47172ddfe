import { setTimeout as sleep } from 'node:timers/promises';
import {
  type Endpoint,
  InflightError,
  JsonRpcError,
  JsonRpcErrorCode,
  type RequestContext,
  serveLifecycle,
} from '@mcp-inflight/core';
import { z } from 'zod';

/** Counts of `work` calls, shared by every connection of one server process. */
export interface WorkCounters {
  running: number;
  completed: number;
  cancelled: number;
}

/** One tool: what `tools/list` shows of it, and what `tools/call` runs. */
export interface Tool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  /** Runs the tool with the call's `arguments`; `ctx` carries its progress and cancellation. */
  call(args: unknown, ctx: RequestContext): unknown;
}

const workArgs = z.object({
  steps: z.number().int().min(0).max(1_000_000),
  intervalMs: z.number().min(0).max(3_600_000),
  tag: z.string().optional(),
});

/**
 * A tool result with one text block.
 *
 * @example
 * ```ts
 * import { text } from './tools.js';
 * text('done'); // { content: [{ type: 'text', text: 'done' }] }
 * ```
 */
export const text = (value: string) => ({ content: [{ type: 'text', text: value }] });

/**
 * The example's two tools: `work` (sleeps `intervalMs` per step, reports progress after each, honours
 * cancellation) and `status` (the `counters` as JSON text).
 *
 * @example
 * ```ts
 * import { exampleTools } from './tools.js';
 * exampleTools({ running: 0, completed: 0, cancelled: 0 }).map((t) => t.name); // ['work', 'status']
 * ```
 */
export function exampleTools(counters: WorkCounters): Tool[] {
  return [
    {
      name: 'work',
      description:
        'Sleeps intervalMs per step for `steps` steps, reporting progress after each; honours cancellation.',
      inputSchema: {
        type: 'object',
        properties: {
          steps: { type: 'integer', minimum: 0 },
          intervalMs: { type: 'number', minimum: 0 },
          tag: { type: 'string' },
        },
        required: ['steps', 'intervalMs'],
      },
      call: (args, ctx) => work(args, ctx, counters),
    },
    {
      name: 'status',
      description: 'Counts of work calls: running, completed, cancelled (as JSON text).',
      inputSchema: { type: 'object', properties: {} },
      call: () => text(JSON.stringify(counters)),
    },
  ];
}

async function work(args: unknown, ctx: RequestContext, counters: WorkCounters): Promise<unknown> {
  const parsed = workArgs.safeParse(args);
  if (!parsed.success) {
    throw new JsonRpcError(
      JsonRpcErrorCode.InvalidParams,
      `Invalid arguments for work: ${parsed.error.message}`,
    );
  }
  const { steps, intervalMs, tag } = parsed.data;
  counters.running++;
  try {
    for (let i = 1; i <= steps; i++) {
      await sleep(intervalMs, undefined, { signal: ctx.signal });
      ctx.progress(i, steps, `${tag ? `${tag}: ` : ''}step ${i} of ${steps}`);
    }
    counters.completed++;
    return text(`${tag ? `${tag}: ` : ''}done ${steps} steps`);
  } catch (error) {
    if (ctx.signal.aborted) {
      counters.cancelled++;
      throw InflightError.from(ctx.signal.reason);
    }
    throw error;
  } finally {
    counters.running--;
  }
}

/**
 * Registers the server's lifecycle and `tools/list` / `tools/call` for `tools` on one endpoint (one stdio
 * pipe, one HTTP session or one stateless request). An unknown tool is `-32602`, as the spec names it.
 *
 * @example
 * ```ts
 * import { exampleTools, serveTools } from './tools.js';
 * declare const endpoint: import('@mcp-inflight/core').Endpoint;
 * serveTools(endpoint, exampleTools({ running: 0, completed: 0, cancelled: 0 }));
 * ```
 */
export function serveTools(endpoint: Endpoint, tools: readonly Tool[]): void {
  serveLifecycle(endpoint, {
    serverInfo: { name: 'mcp-inflight-example-server', version: '0.1.0' },
    capabilities: { tools: {} },
  });
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  const listed = tools.map(({ call: _call, ...shown }) => shown);
  endpoint.setRequestHandler('tools/list', () => ({ tools: listed }));
  endpoint.setRequestHandler('tools/call', (params, ctx) => {
    const tool = byName.get(String(params?.name));
    if (!tool)
      throw new JsonRpcError(JsonRpcErrorCode.InvalidParams, `Unknown tool: ${String(params?.name)}`);
    return tool.call(params?.arguments ?? {}, ctx);
  });
}

/**
 * Registers the example server on one endpoint. `counters` is shared across endpoints so `status` sees
 * the whole process.
 */
export function setupExampleServer(endpoint: Endpoint, counters: WorkCounters): void {
  serveTools(endpoint, exampleTools(counters));
}
