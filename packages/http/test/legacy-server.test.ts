// Legacy Streamable HTTP (2025-03-26 to 2025-11-25) on real loopback sockets, driven by raw fetch.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HTTP_ERROR_CODES, type RunningHttpServer, serveHttp } from '../src/index.js';
import { EventReader, RawHttp, workCall } from './fixtures/raw-http.js';
import { observe, workServer } from './fixtures/work-server.js';

const observed = observe();
let server: RunningHttpServer;
let raw: RawHttp;

beforeAll(async () => {
  server = await serveHttp(workServer(observed), { port: 0, keepAliveMs: 60_000 });
  raw = new RawHttp(server.url);
});
afterAll(() => server.close());

describe('sessions', () => {
  it('initialize mints Mcp-Session-Id; notifications get 202 with no body', async () => {
    const response = await raw.post({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18' },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ id: 1, result: { protocolVersion: '2025-06-18' } });
    const session = response.headers.get('mcp-session-id')!;
    expect(session).toMatch(/^[\x21-\x7e]{16,}$/);
    const note = await raw.post(
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      raw.legacy(session, '2025-06-18'),
    );
    expect(note.status).toBe(202);
    expect(await note.text()).toBe('');
  });

  it('asks for a session (400), refuses an unknown one (404), and 404s after DELETE', async () => {
    const ping = { jsonrpc: '2.0', id: 2, method: 'ping' };
    expect((await raw.post(ping)).status).toBe(400);
    expect((await raw.post(ping, { 'mcp-session-id': 'no-such-session' })).status).toBe(404);
    const session = await raw.initialize();
    expect(await (await raw.post(ping, raw.legacy(session))).json()).toEqual({
      jsonrpc: '2.0',
      id: 2,
      result: {},
    });
    const before = server.handler.stats.sessions;
    const deleted = await fetch(server.url, { method: 'DELETE', headers: raw.legacy(session) });
    expect(deleted.status).toBe(200);
    expect(server.handler.stats.sessions).toBe(before - 1);
    const after = await raw.post(ping, raw.legacy(session));
    expect(after.status).toBe(404);
    expect((await after.json()).error.code).toBe(HTTP_ERROR_CODES.SessionNotFound);
  });

  it('2024-11-05 has no Streamable HTTP: its initialize is offered 2025-03-26', async () => {
    const response = await raw.post({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2024-11-05' },
    });
    expect((await response.json()).result.protocolVersion).toBe('2025-03-26');
  });
});

describe('MCP-Protocol-Version header', () => {
  it('400 for a value that is not a legacy HTTP revision; absent means the session’s', async () => {
    const session = await raw.initialize('2025-06-18');
    const ping = { jsonrpc: '2.0', id: 3, method: 'ping' };
    const bad = await raw.post(ping, { 'mcp-session-id': session, 'mcp-protocol-version': '2099-01-01' });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error).toMatchObject({ code: -32022, data: { requested: '2099-01-01' } });
    const oldest = await raw.post(ping, { 'mcp-session-id': session, 'mcp-protocol-version': '2024-11-05' });
    expect(oldest.status).toBe(400);
    const absent = await raw.post(ping, { 'mcp-session-id': session });
    expect(absent.status).toBe(200);
  });
});

describe('replies', () => {
  it('a request with nothing to stream gets JSON; one with a token gets its own SSE stream that ends', async () => {
    const session = await raw.initialize();
    const plain = await raw.post({ jsonrpc: '2.0', id: 4, method: 'tools/list' }, raw.legacy(session));
    expect(plain.headers.get('content-type')).toBe('application/json');
    const streamed = await raw.post(workCall(5, 2, 20), raw.legacy(session));
    expect(streamed.headers.get('content-type')).toBe('text/event-stream');
    expect(streamed.headers.get('x-accel-buffering')).toBe('no');
    const events = await new EventReader(streamed.body!).rest(); // resolves: the response ended the stream
    expect(events.map((e) => e.message!.method ?? `response ${e.message!.id}`)).toEqual([
      'notifications/progress',
      'notifications/progress',
      'response 5',
    ]);
    expect(events.map((e) => e.id)).toEqual([
      expect.stringMatching(/^\d+-1$/),
      expect.stringMatching(/^\d+-2$/),
      expect.stringMatching(/^\d+-3$/),
    ]);
  });

  it('2025-11-25 streams open with a priming event (id, retry, empty data)', async () => {
    const session = await raw.initialize('2025-11-25');
    const text = await (await raw.post(workCall(6, 1, 10), raw.legacy(session))).text();
    expect(text).toMatch(/^id: \d+-0\nretry: 1000\ndata:\n\n/);
  });

  it('refuses a request id that is still in flight in the session (ids are fresh [J3])', async () => {
    const session = await raw.initialize();
    const first = await raw.post(workCall(7, 3, 50), raw.legacy(session));
    const again = await raw.post(workCall(7, 1, 10), raw.legacy(session));
    expect(again.status).toBe(400);
    expect((await again.json()).error.code).toBe(-32600);
    await first.text();
  });

  it('bad JSON gets -32700, a non-message -32600, and the session keeps serving', async () => {
    const session = await raw.initialize();
    const broken = await raw.post('{"jsonrpc":', raw.legacy(session));
    expect(broken.status).toBe(400);
    expect((await broken.json()).error.code).toBe(-32700);
    const notMessage = await raw.post({ hello: 'world' }, raw.legacy(session));
    expect(notMessage.status).toBe(400);
    expect((await notMessage.json()).error.code).toBe(-32600);
    const unknown = await raw.post({ jsonrpc: '2.0', id: 8, method: 'no/such' }, raw.legacy(session));
    expect((await unknown.json()).error.code).toBe(-32601);
    expect(
      await (await raw.post({ jsonrpc: '2.0', id: 9, method: 'ping' }, raw.legacy(session))).json(),
    ).toMatchObject({ result: {} });
  });
});

describe('2025-03-26 batches', () => {
  it('answers a batch with one array, progress on the same stream', async () => {
    const session = await raw.initialize('2025-03-26');
    const headers = raw.legacy(session, '2025-03-26');
    const response = await raw.post(
      [
        workCall(10, 2, 20),
        { jsonrpc: '2.0', method: 'notifications/whatever' },
        { jsonrpc: '2.0', id: 11, method: 'ping' },
      ],
      headers,
    );
    const events = await new EventReader(response.body!).rest();
    const last = events.at(-1)!.message as unknown as Record<string, unknown>[];
    expect(Array.isArray(last)).toBe(true);
    expect(last.map((m) => m.id).sort()).toEqual([10, 11]);
    expect(events.slice(0, -1).every((e) => e.message!.method === 'notifications/progress')).toBe(true);
  });

  it('202 for a batch of notifications; 400 for batches elsewhere, empty ones, or with initialize', async () => {
    const session = await raw.initialize('2025-03-26');
    const headers = raw.legacy(session, '2025-03-26');
    expect((await raw.post([{ jsonrpc: '2.0', method: 'notifications/a' }], headers)).status).toBe(202);
    expect((await raw.post([], headers)).status).toBe(400);
    expect(
      (await raw.post([{ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }], headers)).status,
    ).toBe(400);
    const newer = await raw.initialize('2025-06-18');
    const refused = await raw.post(
      [{ jsonrpc: '2.0', id: 1, method: 'ping' }],
      raw.legacy(newer, '2025-06-18'),
    );
    expect(refused.status).toBe(400);
    expect((await refused.json()).error.code).toBe(-32600);
  });
});

describe('GET stream', () => {
  it('carries unrelated server messages; a second one is 409; none without a session (405)', async () => {
    const session = await raw.initialize();
    const endpoint = observed.sessions.get(session)!;
    endpoint.notify('notifications/tools/list_changed'); // before any GET: kept for it
    const get = await fetch(server.url, { headers: { ...raw.legacy(session), accept: 'text/event-stream' } });
    expect(get.headers.get('content-type')).toBe('text/event-stream');
    const reader = new EventReader(get.body!);
    endpoint.notify('notifications/resources/list_changed');
    expect((await reader.next())!.message!.method).toBe('notifications/tools/list_changed');
    expect((await reader.next())!.message!.method).toBe('notifications/resources/list_changed');
    const second = await fetch(server.url, {
      headers: { ...raw.legacy(session), accept: 'text/event-stream' },
    });
    expect(second.status).toBe(409);
    const noSession = await fetch(server.url, { headers: { accept: 'text/event-stream' } });
    expect(noSession.status).toBe(405);
    expect(noSession.headers.get('allow')).toBe('POST');
    await fetch(server.url, { method: 'DELETE', headers: raw.legacy(session) });
    await reader.done; // the session's end closes its GET stream
  });

  it('406 unless the client accepts text/event-stream', async () => {
    const session = await raw.initialize();
    const get = await fetch(server.url, { headers: { ...raw.legacy(session), accept: 'application/json' } });
    expect(get.status).toBe(406);
  });
});

describe('isolation (rule 9)', () => {
  it('two sessions using the same request id and token do not meet', async () => {
    const a = await raw.initialize();
    const b = await raw.initialize();
    const callA = await raw.post(workCall(1, 6, 30, 'same'), raw.legacy(a));
    const callB = await raw.post(workCall(1, 3, 30, 'same'), raw.legacy(b));
    const readerA = new EventReader(callA.body!);
    await readerA.next();
    // A cancels its id 1; B's id 1 must run to the end.
    await raw.post(
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } },
      raw.legacy(a),
    );
    const eventsB = await new EventReader(callB.body!).rest();
    expect(eventsB.at(-1)!.message).toMatchObject({ id: 1, result: { content: [{ text: 'done 3' }] } });
    const restA = await readerA.rest();
    expect(restA.every((e) => e.message!.id === undefined)).toBe(true); // A got no response
  });
});
