import { setTimeout as sleep } from 'node:timers/promises';
import {
  type Endpoint,
  InflightError,
  JsonRpcError,
  JsonRpcErrorCode,
  serveLifecycle,
} from '@mcp-inflight/core';
import { z } from 'zod';

/** Counts of `work` calls, shared by every connection of one server process. */
export interface WorkCounters {
  running: number;
  completed: number;
  cancelled: number;
}

const workArgs = z.object({
  steps: z.number().int().min(0).max(1_000_000),
  intervalMs: z.number().min(0).max(3_600_000),
  tag: z.string().optional(),
});

const TOOLS = [
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
  },
  {
    name: 'status',
    description: 'Counts of work calls: running, completed, cancelled (as JSON text).',
    inputSchema: { type: 'object', properties: {} },
  },
];

const text = (value: string) => ({ content: [{ type: 'text', text: value }] });

/**
 * Registers the example server's lifecycle and tools on one endpoint (one stdio pipe, one HTTP session or
 * one stateless request). `counters` is shared across endpoints so `status` sees the whole process.
 */
export function setupExampleServer(endpoint: Endpoint, counters: WorkCounters): void {
  serveLifecycle(endpoint, {
    serverInfo: { name: 'mcp-inflight-example-server', version: '0.1.0' },
    capabilities: { tools: {} },
  });
  endpoint.setRequestHandler('tools/list', () => ({ tools: TOOLS }));
  endpoint.setRequestHandler('tools/call', async (params, ctx) => {
    const name = params?.name;
    if (name === 'status') return text(JSON.stringify(counters));
    if (name !== 'work')
      throw new JsonRpcError(JsonRpcErrorCode.InvalidParams, `Unknown tool: ${String(name)}`);
    const parsed = workArgs.safeParse(params?.arguments ?? {});
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
  });
}
