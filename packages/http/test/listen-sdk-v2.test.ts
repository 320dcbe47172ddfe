// Listen streams against the official SDK v2 (2.4.0), which speaks 2026-07-28 `subscriptions/listen` on
// both sides, over loopback HTTP: our server with the SDK's Client, and our HttpClient with the SDK's
// createMcpHandler. The stream carries the list change, a client close ends it on the server (tables back
// to 0), and a server shutdown reaches the client as a graceful end.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { serveLifecycle } from '@mcp-inflight/core';
import { ListenStreams } from '@mcp-inflight/server/listen';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer as McpServerV2 } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { HttpClient, serveHttp } from '../src/index.js';
import { recordingFetch } from './fixtures/recording-fetch.js';

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 400 && !check(); i++) await sleep(5);
  if (!check()) throw new Error(`timed out waiting for ${what}`);
}

describe('our server, the official SDK v2 Client as listener', () => {
  it('acknowledges, delivers the list change, frees everything on close, and ends gracefully on shutdown', async () => {
    const listenStreams = new ListenStreams();
    const server = await serveHttp(
      (endpoint) =>
        serveLifecycle(endpoint, {
          serverInfo: { name: 'ours', version: '1.0.0' },
          capabilities: { tools: { listChanged: true } },
        }),
      // Handler limits far shorter than the test: a listen stream must not be subject to them.
      { port: 0, listenStreams, handlerIdleMs: 50, handlerCeilingMs: 50 },
    );
    try {
      const client = new ClientV2(
        { name: 'sdk-v2-listener', version: '1.0.0' },
        { versionNegotiation: { mode: { pin: '2026-07-28' } } },
      );
      const changes: unknown[] = [];
      client.setNotificationHandler('notifications/tools/list_changed', (n) => void changes.push(n));
      await client.connect(new TransportV2(new URL(server.url)));
      const first = await client.listen({ toolsListChanged: true, promptsListChanged: true });
      expect(first.honoredFilter).toEqual({ toolsListChanged: true, promptsListChanged: true });
      await sleep(200);
      expect(listenStreams.notify('notifications/tools/list_changed')).toBe(1);
      await until(() => changes.length === 1, 'the SDK client to see the list change');
      await first.close();
      expect(await first.closed).toBe('local');
      await until(() => listenStreams.stats.streams === 0, 'the server to see the stream close');
      await until(() => server.handler.stats.openStreams === 0, 'the HTTP stream to end');
      expect(server.handler.stats.statelessInFlight).toBe(0);

      const second = await client.listen({ toolsListChanged: true });
      await server.close(); // the listen response, then notifications/cancelled
      expect(await second.closed).toBe('graceful');
      expect(listenStreams.stats).toMatchObject({ streams: 0, ended: 1 });
      await client.close();
    } finally {
      await server.close();
    }
  });
});

describe('our HttpClient, the official SDK v2 createMcpHandler as server', () => {
  it('opens the listen stream by itself for its handler, gets the change, and closes the stream on close()', async () => {
    const handler = createMcpHandler(() => {
      const server = new McpServerV2(
        { name: 'sdk-v2', version: '2.0.0' },
        {
          supportedProtocolVersions: ['2026-07-28', '2025-11-25'],
          capabilities: { tools: { listChanged: true } },
        },
      );
      server.registerTool('noop', { inputSchema: z.object({}) }, () => ({ content: [] }));
      return server;
    });
    const http: Server = createServer(toNodeHandler(handler));
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
    const { fetch, wire } = recordingFetch();
    const client = new HttpClient({ url, fetch, idleMs: 100, ceilingMs: 100 });
    try {
      const changes: unknown[] = [];
      client.onNotification('notifications/tools/list_changed', (params) => changes.push(params));
      await client.connect();
      expect(client.revision).toBe('2026-07-28');
      const listens = () =>
        wire.filter((e) => (e.body as { method?: string }).method === 'subscriptions/listen');
      await until(() => listens().length === 1 && listens()[0]!.received.length > 0, 'the acknowledgment');
      expect(listens()[0]!.received[0]).toMatchObject({ method: 'notifications/subscriptions/acknowledged' });
      await sleep(300); // past the client's idle limit and ceiling
      handler.notify.toolsChanged();
      await until(() => changes.length === 1, 'the list change');
      expect(client.stats()).toMatchObject({ outboundInFlight: 1, errors: 0 });
      await client.close();
      await until(() => listens()[0]!.aborted, 'the stream to close');
      expect(wire.some((e) => JSON.stringify(e.body ?? '').includes('notifications/cancelled'))).toBe(false);
      expect(client.stats()).toMatchObject({ outboundInFlight: 0, outboundTokens: 0 });
    } finally {
      await client.close();
      await handler.close();
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    }
  });

  it('takes the SDK v2 server’s graceful end (its listen response) as the end of the stream', async () => {
    const handler = createMcpHandler(
      () =>
        new McpServerV2(
          { name: 'sdk-v2', version: '2.0.0' },
          { supportedProtocolVersions: ['2026-07-28'], capabilities: { tools: { listChanged: true } } },
        ),
    );
    const http: Server = createServer(toNodeHandler(handler));
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
    const client = new HttpClient({ url });
    const ends: string[] = [];
    client.endpoint.events.on('request-ended', (_direction, _id, method, outcome) => {
      if (method === 'subscriptions/listen') ends.push(outcome);
    });
    try {
      client.onNotification('notifications/tools/list_changed', () => {});
      await client.connect();
      await until(() => client.stats().outboundInFlight === 1, 'the listen stream');
      await sleep(100);
      await handler.close();
      await until(() => ends.length === 1, 'the end of the stream');
      expect(ends).toEqual(['result']);
      expect(client.stats()).toMatchObject({ outboundInFlight: 0, errors: 0, lateResponses: 0 });
    } finally {
      await client.close();
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    }
  });
});
