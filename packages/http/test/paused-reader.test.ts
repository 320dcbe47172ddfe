// Flow control on SSE (rule 8): a client that stops reading must not grow the server. While it does not
// read, progress for its request is coalesced to the latest value instead of queued; a backlog of what
// cannot be dropped (a response) past the stream's byte budget ends the stream as its era says: on
// 2026-07-28 the request is cancelled, under legacy revisions the connection is cut and the result waits
// for a Last-Event-ID resume within the replay budget.
import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { serveLifecycle } from '@mcp-inflight/core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type RunningHttpServer, serveHttp } from '../src/index.js';
import { forceGc } from './fixtures/gc.js';
import { EventReader, MODERN, modernRequest, RawHttp } from './fixtures/raw-http.js';

const MESSAGE_BYTES = 1024 * 1024;
const BUDGET_BYTES = 2 * MESSAGE_BYTES;
const FLOOD_MS = 1_500;
/** What a paused reader may cost the server: its budget, one held progress, one message in flight. */
const BOUND_BYTES = BUDGET_BYTES + 2 * (MESSAGE_BYTES + 1_024);

let server: RunningHttpServer;
let raw: RawHttp;
let port: number;
let flooding = 0;

beforeAll(async () => {
  server = await serveHttp(
    (endpoint) => {
      serveLifecycle(endpoint, { serverInfo: { name: 'flood', version: '1' }, capabilities: { tools: {} } });
      endpoint.setRequestHandler('tools/call', async (params, ctx) => {
        const args = params?.arguments as { durationMs: number; resultBytes?: number };
        // With a result to send, flood until bytes wait for the client (its socket is full), however long
        // the kernel's buffers take to fill on this machine: the result then meets a real backlog.
        const big = 'x'.repeat(MESSAGE_BYTES);
        const until = Date.now() + args.durationMs;
        flooding++;
        try {
          const backlog = () => args.resultBytes !== undefined && server.handler.stats.bufferedBytes > 0;
          for (let step = 1; Date.now() < until && !backlog(); step++) {
            ctx.signal.throwIfAborted();
            ctx.progress(step, undefined, big);
            await sleep(2);
          }
        } finally {
          flooding--;
        }
        return { content: [{ type: 'text', text: 'y'.repeat(args.resultBytes ?? 10) }] };
      });
    },
    {
      port: 0,
      sseBudgetBytes: BUDGET_BYTES,
      sseStallMs: 300, // a backlog over the budget that has not shrunk in 300 ms: the client stopped reading
      maxBufferedBytes: BUDGET_BYTES,
      resumeWindowMs: 5_000,
    },
  );
  raw = new RawHttp(server.url);
  port = Number(new URL(server.url).port);
});
afterAll(() => server.close());

/** POSTs `body` on a raw socket, waits for the response headers, then stops reading. */
function pausedPost(
  body: unknown,
  headers: Record<string, string>,
): Promise<{ socket: Socket; head: string }> {
  const text = JSON.stringify(body);
  const lines = [
    'POST /mcp HTTP/1.1',
    `Host: 127.0.0.1:${port}`,
    'Content-Type: application/json',
    'Accept: application/json, text/event-stream',
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    `Content-Length: ${Buffer.byteLength(text)}`,
  ];
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(`${lines.join('\r\n')}\r\n\r\n${text}`));
    socket.on('error', () => {});
    let head = '';
    const onData = (chunk: Buffer): void => {
      head += chunk.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      socket.off('data', onData);
      socket.pause();
      resolve({ socket, head: head.slice(0, head.indexOf('\r\n\r\n')) });
    };
    socket.on('data', onData);
    socket.once('close', () => reject(new Error(`closed before the headers: ${head}`)));
  });
}

function callOf(id: number, durationMs: number, resultBytes?: number) {
  return {
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'flood', arguments: { durationMs, resultBytes }, _meta: { progressToken: `p${id}` } },
  };
}

const modernHeadersOf = { 'MCP-Protocol-Version': MODERN, 'Mcp-Method': 'tools/call', 'Mcp-Name': 'flood' };

/** Samples the handler's buffered bytes and the process's array buffers while the flood runs. */
async function sampleWhileFlooding(): Promise<{ maxBuffered: number; arrayBuffersGrowth: number }> {
  forceGc();
  const base = process.memoryUsage().arrayBuffers;
  let maxBuffered = 0;
  let maxArrayBuffers = base;
  await vi.waitFor(() => expect(flooding).toBe(1));
  while (flooding > 0) {
    maxBuffered = Math.max(maxBuffered, server.handler.stats.bufferedBytes);
    maxArrayBuffers = Math.max(maxArrayBuffers, process.memoryUsage().arrayBuffers);
    await sleep(25);
  }
  return { maxBuffered, arrayBuffersGrowth: maxArrayBuffers - base };
}

describe('a client that stops reading while a call sends 1 MiB progress messages', () => {
  it.each([
    ['2026-07-28', true],
    ['2025-06-18', false],
  ] as const)('%s: buffered bytes stay within budget + one held progress', async (revision, modern) => {
    let headers: Record<string, string> = modernHeadersOf;
    let body: unknown = modernRequest(
      1,
      'tools/call',
      { name: 'flood', arguments: { durationMs: FLOOD_MS } },
      {
        progressToken: 'p1',
      },
    );
    if (!modern) {
      const session = await raw.initialize(revision);
      headers = { 'Mcp-Session-Id': session, 'MCP-Protocol-Version': revision };
      body = callOf(1, FLOOD_MS);
    }
    const { socket, head } = await pausedPost(body, headers);
    expect(head).toMatch(/^HTTP\/1\.1 200/);
    const { maxBuffered, arrayBuffersGrowth } = await sampleWhileFlooding();
    console.log(
      `${revision} paused reader, ${FLOOD_MS} ms of 1 MiB progress: buffered max ${(maxBuffered / 2 ** 20).toFixed(2)} MiB, ` +
        `array buffers +${(arrayBuffersGrowth / 2 ** 20).toFixed(1)} MiB (bound ${(BOUND_BYTES / 2 ** 20).toFixed(2)} MiB)`,
    );
    expect(maxBuffered).toBeGreaterThan(0); // the client really was not reading: bytes waited for it
    expect(maxBuffered).toBeLessThanOrEqual(BOUND_BYTES);
    expect(arrayBuffersGrowth).toBeLessThan(16 * 2 ** 20); // before flow control: +26 MiB in 1.5 s
    socket.destroy();
    await vi.waitFor(() => expect(server.handler.stats.bufferedBytes).toBe(0));
  });

  it('2026-07-28: a response that cannot fit behind the backlog cancels the request; nothing stays', async () => {
    const before = server.handler.stats;
    const call = modernRequest(
      2,
      'tools/call',
      { name: 'flood', arguments: { durationMs: 20_000, resultBytes: 3 * MESSAGE_BYTES } },
      { progressToken: 'p2' },
    );
    const { socket } = await pausedPost(call, modernHeadersOf);
    // A client that does not read cannot see the close either: the server's tables tell.
    await vi.waitFor(() => expect(server.handler.stats.slowReaderEnds).toBe(before.slowReaderEnds + 1), {
      timeout: 20_000,
    });
    const after = server.handler.stats;
    expect(after.disconnectCancels).toBe(before.disconnectCancels + 1);
    expect(after.statelessInFlight).toBe(0);
    expect(after.bufferedBytes).toBe(0);
    expect(after.openStreams).toBe(before.openStreams);
    socket.destroy();
  });

  it('legacy: a result that cannot fit behind the backlog is kept and resumed with Last-Event-ID', async () => {
    const session = await raw.initialize('2025-11-25');
    const before = server.handler.stats;
    const { socket } = await pausedPost(callOf(3, 20_000, 3 * MESSAGE_BYTES), {
      'Mcp-Session-Id': session,
      'MCP-Protocol-Version': '2025-11-25',
    });
    await vi.waitFor(() => expect(server.handler.stats.slowReaderEnds).toBe(before.slowReaderEnds + 1), {
      timeout: 20_000,
    });
    socket.destroy();
    // The call's stream is the session's second (initialize had the first); 2025-11-25 primed it as `2-0`.
    // Only the result is kept: it alone passes maxBufferedBytes, and the newest event always stays.
    const kept = server.handler.stats.replayBytes - before.replayBytes;
    expect(kept).toBeGreaterThan(3 * MESSAGE_BYTES);
    expect(kept).toBeLessThanOrEqual(3 * MESSAGE_BYTES + 1_024);
    const resumed = await fetch(server.url, {
      headers: { ...raw.legacy(session), accept: 'text/event-stream', 'last-event-id': '2-0' },
    });
    expect(resumed.status).toBe(200);
    const events = await new EventReader(resumed.body!).rest();
    const result = events.at(-1)!.message as { id: number; result: { content: { text: string }[] } };
    expect(result.id).toBe(3);
    expect(result.result.content[0]!.text.length).toBe(3 * MESSAGE_BYTES);
    expect(server.handler.stats.bufferedBytes).toBe(0);
  });
});
