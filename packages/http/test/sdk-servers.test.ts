// Our HttpClient against the official SDK servers over real loopback sockets: v1 (legacy sessions) and v2
// with 2026-07-28 enabled. Progress must arrive, a cancel must reach the handler, and the wire must carry
// exactly the era's signal: the notification (legacy) or a closed stream and nothing else (2026-07-28).
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { McpServer as McpServerV1 } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createMcpHandler, McpServer as McpServerV2 } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { HttpClient } from '../src/index.js';
import { exchangeOf, postedMethods, recordingFetch } from './fixtures/recording-fetch.js';

/** What the SDK server's `work` handler saw. */
interface HandlerLog {
  aborted: string[];
  completed: number;
  onAbort?: () => void;
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
}

async function work(
  steps: number,
  intervalMs: number,
  signal: AbortSignal,
  report: (i: number) => Promise<void>,
  log: HandlerLog,
) {
  try {
    for (let i = 1; i <= steps; i++) {
      await sleep(intervalMs, undefined, { signal });
      await report(i);
    }
    log.completed++;
    return { content: [{ type: 'text' as const, text: `done ${steps}` }] };
  } catch (error) {
    if (signal.aborted) {
      log.aborted.push(String(signal.reason));
      log.onAbort?.();
    }
    throw error;
  }
}

/** SDK v1, stateful: one transport per session, the usual deployment. */
function v1Server(log: HandlerLog): Server {
  const transports = new Map<string, StreamableHTTPServerTransport>();
  return createServer(async (req, res) => {
    const sessionId = req.headers['mcp-session-id'];
    let transport = typeof sessionId === 'string' ? transports.get(sessionId) : undefined;
    if (!transport) {
      const fresh: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => void transports.set(id, fresh),
      });
      const server = new McpServerV1({ name: 'sdk-v1', version: '1.0.0' });
      server.registerTool(
        'work',
        { description: 'steps with progress', inputSchema: { steps: z.number(), intervalMs: z.number() } },
        ({ steps, intervalMs }, extra) =>
          work(
            steps,
            intervalMs,
            extra.signal,
            (i) =>
              extra.sendNotification({
                method: 'notifications/progress',
                params: { progressToken: extra._meta!.progressToken!, progress: i, total: steps },
              }),
            log,
          ),
      );
      await server.connect(fresh);
      transport = fresh;
    }
    await transport.handleRequest(req, res);
  });
}

/** SDK v2 `createMcpHandler` with 2026-07-28 enabled. */
function v2Server(log: HandlerLog): Server {
  const handler = createMcpHandler(() => {
    const server = new McpServerV2(
      { name: 'sdk-v2', version: '2.0.0' },
      { supportedProtocolVersions: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26'] },
    );
    server.registerTool(
      'work',
      {
        description: 'steps with progress',
        inputSchema: z.object({ steps: z.number(), intervalMs: z.number() }),
      },
      ({ steps, intervalMs }, ctx) =>
        work(
          steps,
          intervalMs,
          ctx.mcpReq.signal,
          (i) =>
            ctx.mcpReq.notify({
              method: 'notifications/progress',
              params: { progressToken: ctx.mcpReq._meta!.progressToken!, progress: i, total: steps },
            }),
          log,
        ),
    );
    return server;
  });
  return createServer(toNodeHandler(handler));
}

for (const era of ['v1 (legacy)', 'v2 (2026-07-28)'] as const) {
  describe(`HttpClient against the official SDK ${era} server`, () => {
    const log: HandlerLog = { aborted: [], completed: 0 };
    let server: Server;
    let url: string;
    const modern = era.startsWith('v2');

    beforeAll(async () => {
      server = modern ? v2Server(log) : v1Server(log);
      url = await listen(server);
    });
    afterAll(async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });

    it('negotiates the era from a 2026-07-28 probe and delivers progress', async () => {
      const { fetch, wire } = recordingFetch();
      const client = new HttpClient({ url, fetch });
      const seen: number[] = [];
      const result = await client.request(
        'tools/call',
        { name: 'work', arguments: { steps: 3, intervalMs: 40 } },
        {
          onprogress: (p) => seen.push(p.progress),
        },
      );
      expect((result as { content: unknown }).content).toEqual([{ type: 'text', text: 'done 3' }]);
      expect(seen).toEqual([1, 2, 3]);
      expect(client.revision).toBe(modern ? '2026-07-28' : '2025-11-25');
      expect(postedMethods(wire)).toEqual(
        modern
          ? ['server/discover', 'tools/call']
          : ['server/discover', 'initialize', 'notifications/initialized', 'tools/call'],
      );
      if (!modern) expect(exchangeOf(wire, 'server/discover')!.status).toBe(400); // v1: no session → fall back [H46]
      await client.close();
    });

    it(`cancels with exactly the era's signal (${modern ? 'stream closed, nothing sent' : 'notifications/cancelled'})`, async () => {
      const { fetch, wire } = recordingFetch();
      const client = new HttpClient({ url, fetch });
      await client.connect();
      const abort = new AbortController();
      const handlerAborted = new Promise<void>((resolve) => {
        log.onAbort = resolve;
      });
      let updates = 0;
      const call = client.request(
        'tools/call',
        { name: 'work', arguments: { steps: 100, intervalMs: 30 } },
        {
          signal: abort.signal,
          onprogress: () => {
            if (++updates === 2) abort.abort('user stop');
          },
        },
      );
      await expect(call).rejects.toMatchObject({ code: 'CANCELLED' });
      await handlerAborted; // the cancel reached the SDK handler
      const callEntry = exchangeOf(wire, 'tools/call')!;
      const callId = (callEntry.body as { id: number }).id;
      if (modern) {
        expect(postedMethods(wire)).toEqual(['server/discover', 'tools/call']);
        expect(callEntry.aborted).toBe(true);
      } else {
        expect(postedMethods(wire).at(-1)).toBe('notifications/cancelled');
        const cancel = exchangeOf(wire, 'notifications/cancelled')!;
        expect(cancel.body).toMatchObject({
          params: { requestId: callId, reason: expect.stringContaining('CANCELLED') },
        });
        await vi.waitFor(() => expect(cancel.status).toBe(202));
      }
      await client.close();
    });
  });
}
