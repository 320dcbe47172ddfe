// Cancellation crossing eras through the proxy: a legacy host's notifications/cancelled (SDK v1 over stdio)
// reaches a 2026-07-28 HTTP upstream as the closing of that request's stream, with no notification POSTed
// [CN24 H34]. The upstream runs in this test process, so every POST it receives can be seen.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InflightError, serveLifecycle } from '@mcp-inflight/core';
import { createHttpHandler, type HttpHandler, toNodeListener } from '@mcp-inflight/http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { eventually, PROXY } from './procs.js';

interface Ended {
  tag: string;
  code: string;
  message: string;
  revision: string;
}

const posted: string[] = [];
const ended: Ended[] = [];
let handler: HttpHandler;
let server: Server;
let url: string;

beforeAll(async () => {
  handler = createHttpHandler((endpoint) => {
    serveLifecycle(endpoint, {
      serverInfo: { name: 'modern-upstream', version: '1.0.0' },
      capabilities: { tools: {} },
    });
    endpoint.setRequestHandler('tools/call', async (params, ctx) => {
      const { steps, intervalMs, tag } = (params?.arguments ?? {}) as {
        steps: number;
        intervalMs: number;
        tag: string;
      };
      for (let i = 1; i <= steps; i++) {
        const stopped = await new Promise<boolean>((resolve) => {
          const onAbort = () => {
            clearTimeout(timer);
            resolve(true);
          };
          const timer = setTimeout(() => {
            ctx.signal.removeEventListener('abort', onAbort);
            resolve(false);
          }, intervalMs);
          ctx.signal.addEventListener('abort', onAbort, { once: true });
        });
        if (stopped) {
          const reason = InflightError.from(ctx.signal.reason);
          ended.push({ tag, code: reason.code, message: reason.message, revision: ctx.revision });
          throw reason;
        }
        ctx.progress(i, steps);
      }
      return { content: [{ type: 'text', text: `${tag} done` }] };
    });
  });
  // Record the method of every POSTed message before the handler serves it.
  const recording: HttpHandler = {
    handle: async (request) => {
      if (request.method === 'POST')
        posted.push(String((JSON.parse(await request.clone().text()) as { method?: string }).method));
      return handler.handle(request);
    },
    close: () => handler.close(),
    stats: handler.stats,
  };
  server = createServer(toNodeListener(recording));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
});
afterAll(async () => {
  await handler?.close();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
});

it('a legacy stdio host’s notifications/cancelled closes the 2026-07-28 upstream request’s stream', async () => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [PROXY, '--upstream-http', url, '--upstream-revision', '2026-07-28', '--log', 'quiet'],
    stderr: 'pipe',
  });
  const host = new Client({ name: 'legacy-host', version: '1.0.0' });
  await host.connect(transport);
  const stop = new AbortController();
  let progress = 0;
  const call = host.callTool(
    { name: 'work', arguments: { steps: 100, intervalMs: 30, tag: 'x' } },
    undefined,
    {
      signal: stop.signal,
      onprogress: () => {
        if (++progress === 3) stop.abort('the user pressed stop');
      },
    },
  );
  await expect(call).rejects.toBeDefined();
  const [end] = await eventually(() => {
    expect(ended).toHaveLength(1);
    return ended;
  });
  // The upstream's handler saw its stream close (2026-07-28's cancel), served as a 2026-07-28 request...
  expect(end).toMatchObject({ tag: 'x', code: 'DISCONNECTED', revision: '2026-07-28' });
  // ...and the proxy POSTed nothing but requests: no notifications/cancelled on 2026-07-28 HTTP.
  expect(posted).not.toContain('notifications/cancelled');
  expect(posted.filter((m) => m === 'tools/call')).toHaveLength(1);
  await host.close();
});
