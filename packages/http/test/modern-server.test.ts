// 2026-07-28 Streamable HTTP on real loopback sockets, driven by raw fetch: stateless requests, mirrored
// headers checked against the body, no sessions, no GET or DELETE.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeHeaderValue, type RunningHttpServer, serveHttp } from '../src/index.js';
import { EventReader, modernHeaders, modernRequest, RawHttp } from './fixtures/raw-http.js';
import { observe, workServer } from './fixtures/work-server.js';

const observed = observe();
let server: RunningHttpServer;
let raw: RawHttp;

beforeAll(async () => {
  server = await serveHttp(workServer(observed), { port: 0 });
  raw = new RawHttp(server.url);
});
afterAll(() => server.close());

const work = (id: number, steps = 2, name = 'work') =>
  modernRequest(
    id,
    'tools/call',
    { name, arguments: { steps, intervalMs: 20 } },
    { progressToken: `p${id}` },
  );

describe('stateless requests', () => {
  it('streams progress then the result on the request’s own stream; no session is minted', async () => {
    const response = await raw.post(work(1), {
      ...modernHeaders('tools/call', 'work'),
      'mcp-session-id': 'ignored',
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('mcp-session-id')).toBeNull();
    const events = await new EventReader(response.body!).rest();
    expect(events.map((e) => e.message!.method ?? 'response')).toEqual([
      'notifications/progress',
      'notifications/progress',
      'response',
    ]);
    expect(events.every((e) => e.id === '')).toBe(true); // not resumable: no event ids [H25]
    expect(events.at(-1)!.message).toMatchObject({ id: 1, result: { resultType: 'complete' } });
  });

  it('builds a fresh endpoint per request, so equal ids never meet (rule 9)', async () => {
    const before = observed.setups.length;
    const [a, b] = await Promise.all([
      raw.post(work(7, 3), modernHeaders('tools/call', 'work')),
      raw.post(work(7, 1), modernHeaders('tools/call', 'work')),
    ]);
    const [ea, eb] = await Promise.all([new EventReader(a.body!).rest(), new EventReader(b.body!).rest()]);
    expect(ea.at(-1)!.message).toMatchObject({ id: 7, result: { content: [{ text: 'done 3' }] } });
    expect(eb.at(-1)!.message).toMatchObject({ id: 7, result: { content: [{ text: 'done 1' }] } });
    expect(observed.setups.slice(before)).toEqual([{ revision: '2026-07-28' }, { revision: '2026-07-28' }]);
    expect(server.handler.stats.statelessInFlight).toBe(0);
  });

  it('answers server/discover with JSON (nothing to stream)', async () => {
    const response = await raw.post(modernRequest(2, 'server/discover'), modernHeaders('server/discover'));
    expect(response.headers.get('content-type')).toBe('application/json');
    expect((await response.json()).result.supportedVersions).toContain('2026-07-28');
  });

  it('decodes a Base64 Mcp-Name before comparing it', async () => {
    const response = await raw.post(
      work(3, 1, 'wörk'),
      modernHeaders('tools/call', encodeHeaderValue('wörk')),
    );
    expect(response.status).toBe(200);
    expect(encodeHeaderValue('wörk')).toMatch(/^=\?base64\?/);
    await response.text();
  });

  it('202 for a notification (none is defined over HTTP, it is ignored)', async () => {
    const response = await raw.post(
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } },
      { 'mcp-protocol-version': '2026-07-28' },
    );
    expect(response.status).toBe(202);
  });
});

describe('refusals', () => {
  const cases: [string, () => Promise<Response>, number, number][] = [
    [
      'header naming a legacy revision while _meta says 2026-07-28',
      () =>
        raw.post(work(1), { ...modernHeaders('tools/call', 'work'), 'mcp-protocol-version': '2025-11-25' }),
      400,
      -32020,
    ],
    [
      'no MCP-Protocol-Version header',
      () => raw.post(work(1), { 'mcp-method': 'tools/call', 'mcp-name': 'work' }),
      400,
      -32020,
    ],
    [
      'Mcp-Method differing from the body',
      () => raw.post(work(1), modernHeaders('tools/list', 'work')),
      400,
      -32020,
    ],
    [
      'no Mcp-Method',
      () => raw.post(work(1), { 'mcp-protocol-version': '2026-07-28', 'mcp-name': 'work' }),
      400,
      -32020,
    ],
    [
      'Mcp-Name differing from params.name',
      () => raw.post(work(1), modernHeaders('tools/call', 'other')),
      400,
      -32020,
    ],
    ['no Mcp-Name on tools/call', () => raw.post(work(1), modernHeaders('tools/call')), 400, -32020],
    [
      'a broken Base64 Mcp-Name',
      () => raw.post(work(1), modernHeaders('tools/call', '=?base64?%%%?=')),
      400,
      -32020,
    ],
    [
      'header 2026-07-28 but no envelope',
      () => raw.post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, modernHeaders('tools/list')),
      400,
      -32602,
    ],
    [
      'no clientCapabilities in _meta',
      () =>
        raw.post(
          {
            jsonrpc: '2.0',
            id: 1,
            method: 'tools/list',
            params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } },
          },
          modernHeaders('tools/list'),
        ),
      400,
      -32602,
    ],
    ['an unknown method', () => raw.post(modernRequest(1, 'no/such'), modernHeaders('no/such')), 404, -32601],
    [
      'a response from the client',
      () => raw.post({ jsonrpc: '2.0', id: 1, result: {} }, { 'mcp-protocol-version': '2026-07-28' }),
      400,
      -32600,
    ],
    ['a batch', () => raw.post([modernRequest(1, 'tools/list')], modernHeaders('tools/list')), 400, -32600],
  ];
  it.each(cases)('%s', async (_name, send, status, code) => {
    const response = await send();
    expect(response.status).toBe(status);
    expect((await response.json()).error.code).toBe(code);
  });

  it('an unsupported _meta revision gets -32022 listing what is supported', async () => {
    const body = modernRequest(
      1,
      'tools/list',
      {},
      { 'io.modelcontextprotocol/protocolVersion': '2099-01-01' },
    );
    const response = await raw.post(body, {
      ...modernHeaders('tools/list'),
      'mcp-protocol-version': '2099-01-01',
    });
    expect(response.status).toBe(400);
    expect((await response.json()).error).toMatchObject({
      code: -32022,
      data: { supported: ['2026-07-28'], requested: '2099-01-01' },
    });
  });

  it('GET and DELETE get 405', async () => {
    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(server.url, {
        method,
        headers: { 'mcp-protocol-version': '2026-07-28', accept: 'text/event-stream' },
      });
      expect(response.status).toBe(405);
    }
  });
});

describe('modern-only and legacy-only servers', () => {
  it('legacy: false refuses initialize with -32022 naming 2026-07-28; modern: false the reverse', async () => {
    const modernOnly = await serveHttp(workServer(observe()), { port: 0, legacy: false });
    const legacyOnly = await serveHttp(workServer(observe()), { port: 0, modern: false });
    try {
      const init = await new RawHttp(modernOnly.url).post({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25' },
      });
      expect(init.status).toBe(400);
      expect((await init.json()).error).toMatchObject({ code: -32022, data: { supported: ['2026-07-28'] } });
      const discover = await new RawHttp(legacyOnly.url).post(
        modernRequest(1, 'server/discover'),
        modernHeaders('server/discover'),
      );
      expect(discover.status).toBe(400);
      expect((await discover.json()).error).toMatchObject({
        code: -32022,
        data: { supported: ['2025-03-26', '2025-06-18', '2025-11-25'] },
      });
    } finally {
      await Promise.all([modernOnly.close(), legacyOnly.close()]);
    }
  });
});

describe('initialize and the 2026-07-28 envelope', () => {
  it('with the envelope it is a 2026-07-28 request, and 2026-07-28 has no initialize: 404 with -32601', async () => {
    const body = modernRequest(9, 'initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'confused', version: '1' },
    });
    const response = await raw.post(body, modernHeaders('initialize'));
    expect(response.status).toBe(404);
    expect(response.headers.get('mcp-session-id')).toBeNull();
    expect((await response.json()).error).toMatchObject({ code: -32601 });
  });

  it('a bare initialize selects a legacy session [M10], even under a stray 2026-07-28 header', async () => {
    const body = {
      jsonrpc: '2.0',
      id: 9,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'legacy', version: '1' },
      },
    };
    const response = await raw.post(body, modernHeaders('initialize'));
    expect(response.status).toBe(200);
    const session = response.headers.get('mcp-session-id');
    expect(session).toBeTruthy();
    const reply = await response.json();
    expect(reply.result.protocolVersion).toBe('2025-06-18');
    expect(reply.result.resultType).toBeUndefined(); // a legacy InitializeResult
    const ping = await raw.post(
      { jsonrpc: '2.0', id: 10, method: 'ping' },
      raw.legacy(session!, '2025-06-18'),
    );
    expect(await ping.json()).toEqual({ jsonrpc: '2.0', id: 10, result: {} });
  });
});
