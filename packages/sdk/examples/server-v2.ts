// The same tool on the official SDK v2: the handler's second argument is `ctx`, and the wrapper reads
// `ctx.mcpReq` (token, signal, notify) instead of v1's `extra`.

import { withProgress } from '@mcp-inflight/sdk';
import { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';

export function createServer(): McpServer {
  const server = new McpServer({ name: 'worker', version: '1.0.0' });
  server.registerTool(
    'work',
    { inputSchema: z.object({ steps: z.number().int(), intervalMs: z.number() }) },
    withProgress(async ({ steps, intervalMs }, ctx, progress) => {
      for (let i = 1; i <= steps; i++) {
        await new Promise((resolve) => setTimeout(resolve, intervalMs));
        if (ctx.mcpReq.signal.aborted) break;
        progress.report(i, steps, `step ${i} of ${steps}`);
      }
      return { content: [{ type: 'text', text: 'done' }] };
    }),
  );
  return server;
}
