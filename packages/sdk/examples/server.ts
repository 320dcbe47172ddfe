// A tool server on the official SDK v1 whose tool reports progress through mcp-inflight.

import { withProgress } from '@mcp-inflight/sdk';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

export function createServer(): McpServer {
  const server = new McpServer({ name: 'worker', version: '1.0.0' });
  server.registerTool(
    'work',
    { inputSchema: { steps: z.number().int(), intervalMs: z.number() } },
    // `progress` is a no-op without a token, drops non-increasing values, coalesces bursts, never throws,
    // flushes the last value before the result and goes quiet after the result or a cancel.
    withProgress(async ({ steps, intervalMs }, extra, progress) => {
      for (let i = 1; i <= steps; i++) {
        await new Promise((resolve) => setTimeout(resolve, intervalMs));
        if (extra.signal.aborted) break;
        progress.report(i, steps, `step ${i} of ${steps}`);
      }
      return { content: [{ type: 'text', text: 'done' }] };
    }),
  );
  return server;
}

export async function main(): Promise<void> {
  await createServer().connect(new StdioServerTransport());
}
