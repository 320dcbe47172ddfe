// Sessions cannot be pinned (rule 8): a legacy session ends after sessionIdleMs without contact from its
// client, even with work in flight, and that work is cancelled with SESSION_EXPIRED. Contact is a request
// or notification, an open GET stream, or a reply stream the client is draining. Driven by a ManualClock
// through the Fetch handler (no sleeps), then once on real sockets with the session cap.
import { InflightError, serveLifecycle } from '@mcp-inflight/core';
import { ManualClock } from '@mcp-inflight/core/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  createHttpHandler,
  HTTP_ERROR_CODES,
  type HttpHandler,
  type SessionExpiry,
  serveHttp,
} from '../src/index.js';
import { ACCEPT_BOTH, RawHttp } from './fixtures/raw-http.js';

const IDLE_MS = 1_000;
const REVISION = '2025-06-18';

interface Rig {
  clock: ManualClock;
  handler: HttpHandler;
  aborted: InflightError[];
  expired: SessionExpiry[];
}

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.handler.close();
  rig = undefined;
});

function makeRig(keepAliveMs = 0): Rig {
  const clock = new ManualClock();
  const aborted: InflightError[] = [];
  const expired: SessionExpiry[] = [];
  const handler = createHttpHandler(
    (endpoint) => {
      serveLifecycle(endpoint, { serverInfo: { name: 'pin', version: '1' }, capabilities: { tools: {} } });
      // Runs until aborted; reports one progress first when asked for it.
      endpoint.setRequestHandler('tools/call', (_params, ctx) => {
        ctx.progress(1);
        return new Promise((_, reject) => {
          ctx.signal.addEventListener('abort', () => {
            aborted.push(InflightError.from(ctx.signal.reason));
            reject(ctx.signal.reason);
          });
        });
      });
    },
    { clock, sessionIdleMs: IDLE_MS, keepAliveMs, onSessionExpired: (e) => void expired.push(e) },
  );
  rig = { clock, handler, aborted, expired };
  return rig;
}

function post(
  handler: HttpHandler,
  body: unknown,
  headers: Record<string, string>,
  disconnect?: AbortSignal,
) {
  return handler.handle(
    new Request('http://127.0.0.1/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: ACCEPT_BOTH, ...headers },
      body: JSON.stringify(body),
    }),
    { disconnect },
  );
}

async function initialize(handler: HttpHandler): Promise<Record<string, string>> {
  const response = await post(
    handler,
    {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: REVISION, capabilities: {}, clientInfo: { name: 't', version: '1' } },
    },
    {},
  );
  await response.text();
  const headers = {
    'mcp-session-id': response.headers.get('mcp-session-id')!,
    'mcp-protocol-version': REVISION,
  };
  await (await post(handler, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers)).text();
  return headers;
}

const call = (id: number, token?: string) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: {
    name: 'hang',
    arguments: {},
    ...(token === undefined ? {} : { _meta: { progressToken: token } }),
  },
});

/** Lets the handler's promises and stream reads run (no time passes on the ManualClock). */
const settle = () => new Promise((resolve) => setImmediate(resolve));

/** Advances the clock in steps, letting streams move between them. */
async function pass(clock: ManualClock, ms: number, stepMs = IDLE_MS / 4): Promise<void> {
  for (let done = 0; done < ms; done += stepMs) {
    clock.advance(stepMs);
    await settle();
  }
}

/** A consumer that keeps a read pending, as a client reading its stream does. */
function keepReading(body: ReadableStream<Uint8Array>): { stop: () => Promise<void> } {
  const reader = body.getReader();
  void (async () => {
    for (;;) if ((await reader.read().catch(() => ({ done: true }))).done) return;
  })();
  return { stop: () => reader.cancel() };
}

describe('legacy session expiry (ManualClock)', () => {
  it('a dropped long call does not pin its session: it expires and the call is cancelled with SESSION_EXPIRED', async () => {
    const { clock, handler, aborted, expired } = makeRig();
    const headers = await initialize(handler);
    const drop = new AbortController();
    const pending = post(handler, call(1), headers, drop.signal);
    await settle();
    drop.abort(); // a legacy disconnect is not a cancel: the call runs on
    await pending;
    await pass(clock, IDLE_MS - IDLE_MS / 4);
    expect(handler.stats.sessions).toBe(1);
    expect(aborted).toEqual([]);
    await pass(clock, IDLE_MS / 2);
    expect(handler.stats.sessions).toBe(0);
    expect(handler.stats.expiredSessions).toBe(1);
    expect(aborted.map((e) => e.code)).toEqual(['SESSION_EXPIRED']);
    expect(aborted[0]!.toJsonRpc().code).toBe(-32000);
    expect(expired).toEqual([{ sessionId: headers['mcp-session-id'], idleMs: IDLE_MS, inFlight: 1 }]);
    const after = await post(handler, { jsonrpc: '2.0', id: 9, method: 'ping' }, headers);
    expect([after.status, ((await after.json()) as { error: { code: number } }).error.code]).toEqual([
      404,
      HTTP_ERROR_CODES.SessionNotFound,
    ]);
  });

  it('a long call whose stream the client reads is never expired; once it stops reading, it is', async () => {
    const { clock, handler, aborted } = makeRig(IDLE_MS / 2);
    const headers = await initialize(handler);
    const response = await post(handler, call(1, 'p'), headers);
    const reading = keepReading(response.body!);
    await pass(clock, 5 * IDLE_MS);
    expect(handler.stats.sessions).toBe(1);
    expect(aborted).toEqual([]);
    await reading.stop();
    await pass(clock, 2 * IDLE_MS);
    expect(handler.stats.sessions).toBe(0);
    expect(aborted.map((e) => e.code)).toEqual(['SESSION_EXPIRED']);
  });

  it('a stream the client does not read is no contact, even while its connection is open', async () => {
    const { clock, handler, aborted } = makeRig(IDLE_MS / 2);
    const headers = await initialize(handler);
    await post(handler, call(1, 'p'), headers); // progress queued on it, never read
    await pass(clock, 2 * IDLE_MS);
    expect(handler.stats.sessions).toBe(0);
    expect(aborted.map((e) => e.code)).toEqual(['SESSION_EXPIRED']);
  });

  it('requests and an open GET stream are contact', async () => {
    const { clock, handler } = makeRig();
    const headers = await initialize(handler);
    for (let i = 0; i < 6; i++) {
      await pass(clock, IDLE_MS / 2);
      await (await post(handler, { jsonrpc: '2.0', id: 100 + i, method: 'ping' }, headers)).text();
    }
    expect(handler.stats.sessions).toBe(1);
    const get = await handler.handle(
      new Request('http://127.0.0.1/mcp', { headers: { ...headers, accept: 'text/event-stream' } }),
    );
    expect(get.status).toBe(200);
    await pass(clock, 5 * IDLE_MS);
    expect(handler.stats.sessions).toBe(1);
    await get.body!.cancel();
    await pass(clock, 2 * IDLE_MS);
    expect(handler.stats.sessions).toBe(0);
  });
});

describe('on real sockets, with the session cap', () => {
  it('dropped long calls no longer hold every slot: the session expires and a new client gets in', async () => {
    const expired: SessionExpiry[] = [];
    let aborted: InflightError | undefined;
    const server = await serveHttp(
      (endpoint) => {
        serveLifecycle(endpoint, { serverInfo: { name: 'pin', version: '1' }, capabilities: {} });
        endpoint.setRequestHandler(
          'tools/call',
          (_params, ctx) =>
            new Promise((_, reject) =>
              ctx.signal.addEventListener('abort', () => {
                aborted = InflightError.from(ctx.signal.reason);
                reject(ctx.signal.reason);
              }),
            ),
        );
      },
      // 2 s, not 300 ms: the cap must still hold at the second initialize, which load can delay.
      { port: 0, maxSessions: 1, sessionIdleMs: 2_000, onSessionExpired: (e) => void expired.push(e) },
    );
    try {
      const raw = new RawHttp(server.url);
      const session = await raw.initialize(REVISION);
      const drop = new AbortController();
      const started = Date.now();
      const pending = raw.post(call(1), raw.legacy(session, REVISION), drop.signal).catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 50));
      drop.abort();
      await pending;
      const full = await raw.post({
        jsonrpc: '2.0',
        id: 'init',
        method: 'initialize',
        params: { protocolVersion: REVISION, capabilities: {}, clientInfo: { name: 'b', version: '1' } },
      });
      expect(full.status).toBe(503); // the cap holds while the first session lives
      await full.text();
      await vi.waitFor(() => expect(server.handler.stats.sessions).toBe(0), {
        timeout: 20_000,
        interval: 10,
      });
      const expiredAfterMs = Date.now() - started;
      console.log(`pinned session: expired ${expiredAfterMs} ms after its last contact (sessionIdleMs 2000)`);
      // Expired by idleness (SESSION_EXPIRED, with its call in flight), not by the call's own 100 s of work.
      expect(expiredAfterMs).toBeGreaterThanOrEqual(1_995);
      expect(aborted?.code).toBe('SESSION_EXPIRED');
      expect(expired[0]?.inFlight).toBe(1);
      await raw.initialize(REVISION); // a new client gets the slot
      expect(server.handler.stats.sessions).toBe(1);
    } finally {
      await server.close();
    }
  });
});
