// One admission per HTTP server, on real loopback sockets: at most maxInFlight handlers at once over its
// 2026-07-28 requests and its legacy sessions together, a bounded queue, -32010 past it, and a cancel (a
// legacy notifications/cancelled, a 2026-07-28 disconnect) that takes a waiting request out at once.
import { serveLifecycle } from '@mcp-inflight/core';
import {
  DEFAULT_MAX_IN_FLIGHT,
  DEFAULT_MAX_QUEUED_BYTES,
  QUEUED_REQUEST_OVERHEAD_BYTES,
} from '@mcp-inflight/core/adapter';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type HttpSetup, type RunningHttpServer, serveHttp } from '../src/index.js';
import { modernHeaders, modernRequest, RawHttp } from './fixtures/raw-http.js';

interface Holds {
  /** Keys of the calls whose handler started, in order. */
  started: string[];
  release(key: string): void;
  setup: HttpSetup;
}

/** A server whose `tools/call` holds until the test releases its `arguments.key`. */
function holds(): Holds {
  const started: string[] = [];
  const releases = new Map<string, () => void>();
  return {
    started,
    release: (key) => releases.get(key)!(),
    setup: (endpoint) => {
      serveLifecycle(endpoint, {
        serverInfo: { name: 'admission', version: '1' },
        capabilities: { tools: {} },
      });
      endpoint.setRequestHandler('tools/call', (params, ctx) => {
        const key = String((params?.arguments as { key?: unknown } | undefined)?.key);
        started.push(key);
        return new Promise((resolve, reject) => {
          releases.set(key, () => resolve({ content: [{ type: 'text', text: key }] }));
          ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason));
        });
      });
    },
  };
}

const call = (id: number | string, key: string) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'hold', arguments: { key } },
});
const modernCall = (id: number | string, key: string) =>
  modernRequest(id, 'tools/call', { name: 'hold', arguments: { key } });

let server: RunningHttpServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('admission over HTTP', () => {
  it('has the same defaults as stdio, over the whole server', async () => {
    const h = holds();
    server = await serveHttp(h.setup, { port: 0 });
    expect(server.handler.stats).toMatchObject({ inFlight: 0, queuedRequests: 0, refusedRequests: 0 });
    expect([DEFAULT_MAX_IN_FLIGHT, DEFAULT_MAX_QUEUED_BYTES]).toEqual([1_000, 8 * 1024 * 1024]);
  });

  it('runs maxInFlight handlers over 2026-07-28 requests and legacy sessions together; the rest wait in order', async () => {
    const h = holds();
    server = await serveHttp(h.setup, { port: 0, maxInFlight: 2 });
    const raw = new RawHttp(server.url);
    const session = await raw.initialize('2025-06-18');
    const legacy = raw.legacy(session, '2025-06-18');
    const m1 = raw.post(modernCall(1, 'm1'), modernHeaders('tools/call', 'hold'));
    await vi.waitFor(() => expect(h.started).toEqual(['m1']));
    const l1 = raw.post(call(1, 'l1'), legacy);
    await vi.waitFor(() => expect(h.started).toEqual(['m1', 'l1']));
    const m2 = raw.post(modernCall(2, 'm2'), modernHeaders('tools/call', 'hold'));
    const l2 = raw.post(call(2, 'l2'), legacy);
    await vi.waitFor(() => expect(server!.handler.stats.queuedRequests).toBe(2));
    expect(server.handler.stats.inFlight).toBe(2);
    h.release('l1');
    expect(await (await l1).text()).toContain('"text":"l1"');
    await vi.waitFor(() => expect(h.started).toEqual(['m1', 'l1', 'm2']));
    h.release('m1');
    await vi.waitFor(() => expect(h.started).toEqual(['m1', 'l1', 'm2', 'l2']));
    h.release('m2');
    h.release('l2');
    for (const [response, key] of [
      [m1, 'm1'],
      [m2, 'm2'],
      [l2, 'l2'],
    ] as const)
      expect(await (await response).text()).toContain(`"text":"${key}"`);
    await vi.waitFor(() => expect(server!.handler.stats).toMatchObject({ inFlight: 0, queuedRequests: 0 }));
    expect(server.handler.stats.longestWaitMs).toBeGreaterThanOrEqual(0);
  });

  it('answers -32010 at once when the queue is full, and keeps serving', async () => {
    const h = holds();
    const body = JSON.stringify(modernCall(2, 'q'));
    server = await serveHttp(h.setup, {
      port: 0,
      maxInFlight: 1,
      maxQueuedBytes: body.length + QUEUED_REQUEST_OVERHEAD_BYTES,
    });
    const raw = new RawHttp(server.url);
    const running = raw.post(modernCall(1, 'r'), modernHeaders('tools/call', 'hold'));
    await vi.waitFor(() => expect(h.started).toEqual(['r']));
    const waiting = raw.post(body, modernHeaders('tools/call', 'hold'));
    await vi.waitFor(() => expect(server!.handler.stats.queuedRequests).toBe(1));
    const refused = await raw.post(modernCall(3, 'x'), modernHeaders('tools/call', 'hold'));
    expect(await refused.json()).toEqual({
      jsonrpc: '2.0',
      id: 3,
      error: { code: -32010, message: 'Overloaded: retry later' },
    });
    expect(server.handler.stats.refusedRequests).toBe(1);
    h.release('r');
    await vi.waitFor(() => expect(h.started).toEqual(['r', 'q']));
    h.release('q');
    expect(await (await running).text()).toContain('"text":"r"');
    expect(await (await waiting).text()).toContain('"text":"q"');
    expect(h.started).not.toContain('x');
  });

  it('takes a waiting request out at once on its cancel (legacy) or its disconnect (2026-07-28): it never runs', async () => {
    const h = holds();
    server = await serveHttp(h.setup, { port: 0, maxInFlight: 1 });
    const raw = new RawHttp(server.url);
    const session = await raw.initialize('2025-06-18');
    const legacy = raw.legacy(session, '2025-06-18');
    const running = raw.post(call('run', 'run'), legacy);
    await vi.waitFor(() => expect(h.started).toEqual(['run']));

    const queuedLegacy = raw.post(call('wait', 'wait'), legacy);
    const abort = new AbortController();
    const queuedModern = raw
      .post(modernCall(7, 'gone'), modernHeaders('tools/call', 'hold'), abort.signal)
      .catch(() => undefined);
    await vi.waitFor(() => expect(server!.handler.stats.queuedRequests).toBe(2));

    const cancelled = await raw.post(
      {
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: 'wait', reason: 'no longer' },
      },
      legacy,
    );
    expect(cancelled.status).toBe(202);
    // Its POST stream ends with no response [CN9], while the running call still holds the only slot.
    const answer = await (await queuedLegacy).text();
    expect(answer).not.toContain('"id":"wait"');
    expect(server.handler.stats).toMatchObject({ queuedRequests: 1, cancelledWhileQueued: 1 });

    abort.abort(); // 2026-07-28: the closed stream is the cancel [CN24]
    await queuedModern;
    await vi.waitFor(() => expect(server!.handler.stats.queuedRequests).toBe(0));
    h.release('run');
    expect(await (await running).text()).toContain('"text":"run"');
    await vi.waitFor(() => expect(server!.handler.stats.inFlight).toBe(0));
    expect(h.started).toEqual(['run']);
  });
});
