// Legacy cancels on real sockets: the stream of a request that ends with no response is ended exactly when
// core says so (Channel.suppressed) [CN9], whether the cancel came first (rule 3), was malformed (ignored
// [CN15]), or hit one element of a 2025-03-26 batch.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningHttpServer, serveHttp } from '../src/index.js';
import { EventReader, RawHttp, workCall } from './fixtures/raw-http.js';
import { observe, workServer } from './fixtures/work-server.js';

const observed = observe();
let server: RunningHttpServer;
let raw: RawHttp;

beforeAll(async () => {
  // Keep-alives far off: a stream that is left open must show up as a hang, not as comments.
  server = await serveHttp(workServer(observed), { port: 0, keepAliveMs: 60_000 });
  raw = new RawHttp(server.url);
});
afterAll(() => server.close());

const cancel = (requestId: unknown, reason: unknown = 'stop') => ({
  jsonrpc: '2.0',
  method: 'notifications/cancelled',
  params: { requestId, reason },
});

describe('a cancel that arrives before its request (rule 3)', () => {
  it('wins, and the request’s POST ends with no response instead of staying open', async () => {
    const session = await raw.initialize('2025-06-18');
    const headers = raw.legacy(session, '2025-06-18');
    const started = observed.started;
    expect((await raw.post(cancel(7), headers)).status).toBe(202);
    const response = await raw.post(workCall(7, 1, 10), headers);
    const events = await new EventReader(response.body!).rest(); // resolves only if the stream ends
    expect(events).toEqual([]);
    expect(observed.started).toBe(started); // the handler never ran
    // The id is no longer owed: the session's tables let go of it (rule 8).
    const again = await raw.post({ jsonrpc: '2.0', id: 7, method: 'ping' }, headers);
    expect(await again.json()).toEqual({ jsonrpc: '2.0', id: 7, result: {} });
  });

  it('answers a JSON-only client with 204', async () => {
    const session = await raw.initialize('2025-06-18');
    const headers = raw.legacy(session, '2025-06-18');
    await raw.post(cancel('j'), headers);
    const response = await raw.post(workCall('j', 1, 10), { ...headers, accept: 'application/json' });
    expect(response.status).toBe(204);
  });
});

describe('a malformed cancel', () => {
  it('is ignored [CN15]: the stream stays and carries the result', async () => {
    const session = await raw.initialize('2025-06-18');
    const headers = raw.legacy(session, '2025-06-18');
    const response = await raw.post(workCall(8, 3, 40), headers);
    const reader = new EventReader(response.body!);
    expect((await reader.next())!.message!.method).toBe('notifications/progress');
    expect((await raw.post(cancel(8, 42), headers)).status).toBe(202);
    const rest = await reader.rest();
    expect(rest.at(-1)!.message).toMatchObject({ id: 8, result: { content: [{ text: 'done 3' }] } });
  });
});

describe('2025-03-26 batches and cancels', () => {
  it('a cancelled element is counted as done: the others still come back as one array', async () => {
    const session = await raw.initialize('2025-03-26');
    const headers = raw.legacy(session, '2025-03-26');
    const response = await raw.post([workCall(20, 100, 30), workCall(21, 3, 30)], headers);
    const reader = new EventReader(response.body!);
    await reader.next();
    await raw.post(cancel(20), headers);
    const events = await reader.rest();
    const array = events.at(-1)!.message as unknown as { id: unknown }[];
    expect(array.map((m) => m.id)).toEqual([21]);
  });

  it('a batch whose every request is cancelled ends its stream with nothing', async () => {
    const session = await raw.initialize('2025-03-26');
    const headers = raw.legacy(session, '2025-03-26');
    const response = await raw.post([workCall(30, 100, 30)], headers);
    const reader = new EventReader(response.body!);
    await reader.next();
    await raw.post(cancel(30), headers);
    expect((await reader.rest()).every((e) => e.message!.method === 'notifications/progress')).toBe(true);
  });

  it('an early cancel inside a batch: the batch answers the rest, or ends empty', async () => {
    const session = await raw.initialize('2025-03-26');
    const headers = raw.legacy(session, '2025-03-26');
    await raw.post([cancel(40), cancel(42)], headers);
    const mixed = await raw.post([workCall(40, 1, 10), { jsonrpc: '2.0', id: 41, method: 'ping' }], headers);
    expect(await mixed.json()).toEqual([{ jsonrpc: '2.0', id: 41, result: {} }]);
    const alone = await raw.post([workCall(42, 1, 10)], headers);
    expect(await new EventReader(alone.body!).rest()).toEqual([]);
  });

  it('an invalid element and a cancelled request: the array with the error still arrives', async () => {
    const session = await raw.initialize('2025-03-26');
    const headers = raw.legacy(session, '2025-03-26');
    const response = await raw.post([workCall(50, 100, 30), 5], headers);
    const reader = new EventReader(response.body!);
    await reader.next();
    await raw.post(cancel(50), headers);
    const array = (await reader.rest()).at(-1)!.message as unknown as { id: unknown; error?: unknown }[];
    expect(array).toMatchObject([{ id: null, error: { code: -32600 } }]);
  });
});

describe('isolation of batch replies (rule 9, [H20])', () => {
  it('400 for a batch reusing an id in flight or repeating one; the first request keeps its stream', async () => {
    const session = await raw.initialize('2025-03-26');
    const headers = raw.legacy(session, '2025-03-26');
    const first = await raw.post(workCall(4, 4, 40), headers);
    const reader = new EventReader(first.body!);
    await reader.next();
    const clash = await raw.post(
      [
        { jsonrpc: '2.0', id: 4, method: 'ping' },
        { jsonrpc: '2.0', id: 5, method: 'ping' },
      ],
      headers,
    );
    expect(clash.status).toBe(400);
    expect((await clash.json()).error.code).toBe(-32600);
    const twice = await raw.post(
      [
        { jsonrpc: '2.0', id: 6, method: 'ping' },
        { jsonrpc: '2.0', id: 6, method: 'ping' },
      ],
      headers,
    );
    expect(twice.status).toBe(400);
    const rest = await reader.rest();
    expect(rest.at(-1)!.message).toMatchObject({ id: 4, result: { content: [{ text: 'done 4' }] } });
    // Ids of a refused batch were never taken: they are free to use.
    const ok = await raw.post([{ jsonrpc: '2.0', id: 5, method: 'ping' }], headers);
    expect(await ok.json()).toEqual([{ jsonrpc: '2.0', id: 5, result: {} }]);
  });
});
