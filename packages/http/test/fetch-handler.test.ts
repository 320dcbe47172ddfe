// The Fetch handler on its own (no sockets), on a ManualClock: session expiry, limits, close().
import { InflightError, serveLifecycle } from '@mcp-inflight/core';
import { ManualClock } from '@mcp-inflight/core/testing';
import { describe, expect, it, vi } from 'vitest';
import { createHttpHandler, type HttpHandler } from '../src/index.js';

const URL_ = 'http://127.0.0.1/mcp';

function post(handler: HttpHandler, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return handler.handle(
    new Request(URL_, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      body: JSON.stringify(body),
    }),
  );
}

async function initialize(handler: HttpHandler): Promise<Response> {
  return post(handler, {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25' },
  });
}

/** A server whose `hold` tool waits until the test releases it. */
function holdingHandler(clock: ManualClock, options = {}) {
  const releases: (() => void)[] = [];
  const handler = createHttpHandler(
    (endpoint) => {
      serveLifecycle(endpoint, { serverInfo: { name: 'hold', version: '1' }, capabilities: { tools: {} } });
      endpoint.setRequestHandler(
        'tools/call',
        () => new Promise((resolve) => releases.push(() => resolve({ content: [] }))),
      );
    },
    { clock, keepAliveMs: 0, sessionIdleMs: 1_000, ...options },
  );
  const release = (): void => {
    for (const resolve of releases.splice(0)) resolve();
  };
  return { handler, held: () => releases.length, release };
}

describe('legacy session expiry', () => {
  it('ends an idle session after sessionIdleMs; later requests get 404', async () => {
    const clock = new ManualClock();
    const { handler } = holdingHandler(clock);
    const session = (await initialize(handler)).headers.get('mcp-session-id')!;
    clock.advance(999);
    expect(
      (await post(handler, { jsonrpc: '2.0', id: 1, method: 'ping' }, { 'mcp-session-id': session })).status,
    ).toBe(200);
    clock.advance(999); // the ping above was activity: not idle long enough yet
    expect(handler.stats.sessions).toBe(1);
    clock.advance(1);
    expect(handler.stats.sessions).toBe(0);
    expect(
      (await post(handler, { jsonrpc: '2.0', id: 2, method: 'ping' }, { 'mcp-session-id': session })).status,
    ).toBe(404);
    expect(clock.pendingTimers).toBe(0);
  });

  it('keeps a session whose client waits on its reply, and ends it once that settles and time passes', async () => {
    const clock = new ManualClock();
    const { handler, held, release } = holdingHandler(clock);
    const session = (await initialize(handler)).headers.get('mcp-session-id')!;
    const call = post(
      handler,
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x' } },
      { 'mcp-session-id': session },
    );
    await vi.waitFor(() => expect(held()).toBe(1));
    clock.advance(5_000);
    expect(handler.stats.sessions).toBe(1);
    release();
    expect((await call).status).toBe(200);
    clock.advance(1_000);
    expect(handler.stats.sessions).toBe(0);
  });

  it('refuses new sessions past maxSessions with 503', async () => {
    const { handler } = holdingHandler(new ManualClock(), { maxSessions: 2 });
    expect((await initialize(handler)).status).toBe(200);
    expect((await initialize(handler)).status).toBe(200);
    expect((await initialize(handler)).status).toBe(503);
  });

  it('a failed initialize leaves no session behind', async () => {
    const handler = createHttpHandler(() => {}, { clock: new ManualClock(), keepAliveMs: 0 }); // no initialize handler
    const response = await initialize(handler);
    expect((await response.json()).error.code).toBe(-32601);
    expect(handler.stats.sessions).toBe(0);
  });
});

describe('setup and close', () => {
  it('a throwing setup is a 500 with -32603 and reported to onError', async () => {
    const errors: unknown[] = [];
    const handler = createHttpHandler(
      () => {
        throw new Error('boom');
      },
      { onError: (error) => errors.push(error), keepAliveMs: 0 },
    );
    const response = await initialize(handler);
    expect(response.status).toBe(500);
    expect((await response.json()).error.code).toBe(-32603);
    expect(errors).toHaveLength(1);
  });

  it('after close() every request gets 503', async () => {
    const { handler } = holdingHandler(new ManualClock());
    await handler.close();
    expect((await initialize(handler)).status).toBe(503);
  });
});

describe('a request the application ends with no response (Channel.suppressed)', () => {
  it('2026-07-28: its stream ends and its endpoint is let go', async () => {
    const handler = createHttpHandler(
      (endpoint) => {
        endpoint.setRequestHandler('tools/call', (_params, ctx) => {
          // e.g. a proxy whose upstream vanished drops the call: no response will follow [CN9]
          queueMicrotask(() => endpoint.abortInbound(ctx.id, new InflightError('UPSTREAM_CLOSED')));
          return new Promise(() => {});
        });
      },
      { clock: new ManualClock(), keepAliveMs: 0 },
    );
    const body = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: 'x',
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    };
    const response = await post(handler, body, {
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'x',
    });
    expect(await response.text()).toBe('');
    expect(handler.stats.statelessInFlight).toBe(0);
  });
});

describe('a long string through the Fetch reply', () => {
  it('arrives as the same text, its pieces joined in the Blob, content and all', async () => {
    const text = 'é😀a'.repeat(25_000); // over 64 Ki UTF-16 units and no escape: a piece of its own
    const handler = createHttpHandler((endpoint) => {
      serveLifecycle(endpoint, { serverInfo: { name: 'long', version: '1' }, capabilities: { tools: {} } });
      endpoint.setRequestHandler('tools/call', async () => ({ content: [{ type: 'text', text }] }));
    });
    const session = (await initialize(handler)).headers.get('mcp-session-id')!;
    const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'long', arguments: {} } };
    const response = await post(handler, call, {
      'mcp-session-id': session,
      'mcp-protocol-version': '2025-11-25',
    });
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const message = (await response.json()) as { result: { content: { text: string }[] } };
    expect(message.result.content[0]!.text === text).toBe(true);
    await handler.close();
  });
});

describe('waitUntil (runtimes that end a request with its response)', () => {
  it("hands each POST's work over until its stream ends, a legacy call's beyond its client's drop", async () => {
    const clock = new ManualClock();
    const { handler, held, release } = holdingHandler(clock);
    const session = (await initialize(handler)).headers.get('mcp-session-id')!;
    let settled = 0;
    const handed: Promise<unknown>[] = [];
    const waitUntil = (work: Promise<unknown>): void => {
      handed.push(work);
      void work.then(() => settled++);
    };
    const dropped = new AbortController();
    const request = new Request(URL_, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': session,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x' } }),
    });
    const reply = handler.handle(request, { disconnect: dropped.signal, waitUntil });
    await vi.waitFor(() => expect(held()).toBe(1));
    expect(handed).toHaveLength(1);
    dropped.abort(); // a legacy disconnect is no cancel: the call runs on, and so must its request's work
    await Promise.resolve();
    expect(settled).toBe(0);
    release();
    await reply;
    await handed[0];
    expect(settled).toBe(1);
  });
});
