// serveHttp's own limits on real sockets: a client that sends its headers (or its body) too slowly is cut
// at the bound with a 408 that says why, connections past maxConnections get a 503, and every HTTP-level
// refusal carries its code from HTTP_ERROR_CODES: the spec's where it names one, else ours.
import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HTTP_ERROR_CODES, type RunningHttpServer, serveHttp } from '../src/index.js';
import { ACCEPT_BOTH, modernHeaders, modernRequest, RawHttp } from './fixtures/raw-http.js';
import { observe, workServer } from './fixtures/work-server.js';

const HEADERS_TIMEOUT_MS = 400;
const REQUEST_TIMEOUT_MS = 800;
/**
 * How late past its limit a cut may come: Node checks the limits every quarter of the headers limit, and
 * a busy machine delays timers. Far below Node's own defaults (60 s headers, 300 s request), which is what
 * this guards against.
 */
const CUT_SLACK_MS = 2 * HEADERS_TIMEOUT_MS;

let server: RunningHttpServer;
let raw: RawHttp;
let port: number;

beforeAll(async () => {
  server = await serveHttp(workServer(observe()), {
    port: 0,
    maxBodyBytes: 1_024,
    maxSessions: 1,
    maxConnections: 8,
    headersTimeoutMs: HEADERS_TIMEOUT_MS,
    requestTimeoutMs: REQUEST_TIMEOUT_MS,
    keepAliveTimeoutMs: 1_000,
  });
  raw = new RawHttp(server.url);
  port = Number(new URL(server.url).port);
});
afterAll(() => server.close());

interface Cut {
  /** ms from the first byte sent to the server closing the connection. */
  closedAfterMs: number;
  /** Everything the server wrote. */
  reply: string;
}

/** Opens a raw connection and sends `chunks` one every `everyMs`, until the server closes it. */
function trickle(chunks: string[], everyMs: number): Promise<Cut> {
  return new Promise((resolve, reject) => {
    const socket: Socket = connect(port, '127.0.0.1');
    let reply = '';
    let started = 0;
    let timer: NodeJS.Timeout | undefined;
    const send = (i: number): void => {
      if (i >= chunks.length || socket.destroyed) return;
      socket.write(chunks[i]!);
      timer = setTimeout(() => send(i + 1), everyMs);
    };
    socket.once('connect', () => {
      started = performance.now();
      send(0);
    });
    socket.setEncoding('utf8');
    socket.on('data', (text: string) => {
      reply += text;
    });
    socket.on('error', () => {}); // a reset after the 408 is part of being cut
    socket.once('close', () => {
      clearTimeout(timer);
      resolve({ closedAfterMs: performance.now() - started, reply });
    });
    setTimeout(() => {
      socket.destroy();
      reject(new Error(`still open after 10 s; got ${JSON.stringify(reply)}`));
    }, 10_000).unref();
  });
}

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 10));
}

function bodyOf(reply: string): { error: { code: number; message: string } } {
  return JSON.parse(reply.slice(reply.indexOf('\r\n\r\n') + 4));
}

describe('slow clients are cut at the bound', () => {
  it(`headers trickling in one byte per 50 ms: 408 within ${HEADERS_TIMEOUT_MS} ms + slack`, async () => {
    const head = `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nX-Slow: ${'a'.repeat(200)}\r\n\r\n`;
    const cut = await trickle([...head], 50);
    console.log(
      `slow headers: cut after ${cut.closedAfterMs.toFixed(0)} ms (limit ${HEADERS_TIMEOUT_MS} ms)`,
    );
    expect(cut.reply).toMatch(/^HTTP\/1\.1 408 /);
    expect(bodyOf(cut.reply).error.code).toBe(HTTP_ERROR_CODES.RequestTimeout);
    expect(cut.closedAfterMs).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 100); // the limit, not something sooner
    expect(cut.closedAfterMs).toBeLessThan(HEADERS_TIMEOUT_MS + CUT_SLACK_MS);
  });

  it(`a body trickling in: 408 within ${REQUEST_TIMEOUT_MS} ms + slack`, async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(200) } });
    const head = `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
    const cut = await trickle([head, ...body.match(/.{1,4}/g)!], 50);
    console.log(`slow body: cut after ${cut.closedAfterMs.toFixed(0)} ms (limit ${REQUEST_TIMEOUT_MS} ms)`);
    expect(cut.reply).toMatch(/^HTTP\/1\.1 408 /);
    expect(bodyOf(cut.reply).error.code).toBe(HTTP_ERROR_CODES.RequestTimeout);
    expect(cut.closedAfterMs).toBeLessThan(REQUEST_TIMEOUT_MS + CUT_SLACK_MS);
  });

  it('an idle kept-alive connection is closed after keepAliveTimeoutMs', async () => {
    const body = JSON.stringify(modernRequest(1, 'tools/list'));
    const head = [
      'POST /mcp HTTP/1.1',
      `Host: 127.0.0.1:${port}`,
      'Content-Type: application/json',
      'Accept: application/json, text/event-stream',
      'MCP-Protocol-Version: 2026-07-28',
      'Mcp-Method: tools/list',
      `Content-Length: ${body.length}`,
    ].join('\r\n');
    const cut = await trickle([`${head}\r\n\r\n${body}`], 10);
    console.log(
      `idle keep-alive: closed ${cut.closedAfterMs.toFixed(0)} ms after its request (limit 1000 ms)`,
    );
    expect(cut.reply).toMatch(/^HTTP\/1\.1 200 /);
    expect(cut.reply).toMatch(/keep-alive: timeout=1\r\n/i); // what the client is told
    // Node closes 1 s after the advertised timeout, so a client that trusts it never races the close.
    expect(cut.closedAfterMs).toBeGreaterThanOrEqual(1_000 - 100);
    expect(cut.closedAfterMs).toBeLessThan(1_000 + 1_000 + CUT_SLACK_MS);
  });

  it('connections past maxConnections get a 503 with our code; the others are served', async () => {
    const held = await Promise.all(
      Array.from(
        { length: 8 },
        () =>
          new Promise<Socket>((resolve) => {
            const socket = connect(port, '127.0.0.1', () => resolve(socket));
          }),
      ),
    );
    const refused = await trickle([''], 10);
    expect(refused.reply).toMatch(/^HTTP\/1\.1 503 /);
    expect(bodyOf(refused.reply).error.code).toBe(HTTP_ERROR_CODES.Overloaded);
    for (const socket of held) socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const served = await raw.post(modernRequest(1, 'tools/list'), modernHeaders('tools/list'));
    expect(served.status).toBe(200);
    await served.text();
  });
});

describe('every refusal carries its code', () => {
  it('400 for bytes that are not HTTP, 431 for headers past what Node reads', async () => {
    const garbage = await trickle(['HELLO THERE\r\n\r\n'], 10);
    expect(garbage.reply).toMatch(/^HTTP\/1\.1 400 /);
    expect(bodyOf(garbage.reply).error.code).toBe(HTTP_ERROR_CODES.BadHttpRequest);
    const huge = await trickle(
      [`GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`],
      10,
    );
    expect(huge.reply).toMatch(/^HTTP\/1\.1 431 /);
    expect(bodyOf(huge.reply).error.code).toBe(HTTP_ERROR_CODES.HeadersTooLarge);
  });

  const codeOf = async (response: Response) =>
    ((await response.json()) as { error: { code: number } }).error.code;

  it('404: -32601 for an unknown 2026-07-28 method, ours for a wrong path and an unknown session', async () => {
    const unknown = await raw.post(modernRequest(1, 'no/such'), modernHeaders('no/such'));
    expect([unknown.status, await codeOf(unknown)]).toEqual([404, -32601]);
    const path = await fetch(server.url.replace('/mcp', '/elsewhere'), { method: 'POST' });
    expect([path.status, await codeOf(path)]).toEqual([404, HTTP_ERROR_CODES.NotFound]);
    const session = await raw.post({ jsonrpc: '2.0', id: 1, method: 'ping' }, { 'mcp-session-id': 'gone' });
    expect([session.status, await codeOf(session)]).toEqual([404, HTTP_ERROR_CODES.SessionNotFound]);
  });

  it('413 and 415 for bodies, 503 for one session too many, 400 without a session', async () => {
    const large = await raw.post({
      jsonrpc: '2.0',
      id: 1,
      method: 'ping',
      params: { pad: 'x'.repeat(2_000) },
    });
    expect([large.status, await codeOf(large)]).toEqual([413, HTTP_ERROR_CODES.PayloadTooLarge]);
    const text = await raw.post('{}', { 'content-type': 'text/plain' });
    expect([text.status, await codeOf(text)]).toEqual([415, HTTP_ERROR_CODES.UnsupportedMediaType]);
    await raw.initialize();
    const second = await raw.post({
      jsonrpc: '2.0',
      id: 'init',
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    expect([second.status, await codeOf(second)]).toEqual([503, HTTP_ERROR_CODES.Overloaded]);
    const none = await raw.post({ jsonrpc: '2.0', id: 1, method: 'ping' });
    expect([none.status, await codeOf(none)]).toEqual([400, HTTP_ERROR_CODES.SessionRequired]);
  });

  it("codes of ours sit in -32003..-32019 (or -32000 for a lost exchange); the others are the spec's", () => {
    const spec = new Set([-32700, -32600, -32601, -32602, -32603, -32020, -32021, -32022]);
    const values = Object.values(HTTP_ERROR_CODES);
    expect(new Set(values).size).toBe(values.length);
    for (const code of values) {
      expect(spec.has(code) || code === -32000 || (code <= -32003 && code >= -32019), String(code)).toBe(
        true,
      );
    }
  });
});

describe('connection guards before any request: one address, silent sockets', () => {
  const FIRST_BYTE_MS = 300;
  let guarded: RunningHttpServer;
  let guardedPort: number;
  const seen = observe();
  beforeAll(async () => {
    guarded = await serveHttp(workServer(seen), {
      port: 0,
      maxConnections: 16,
      maxIdleConnectionsPerAddress: 4,
      firstByteTimeoutMs: FIRST_BYTE_MS,
      headersTimeoutMs: 5_000,
      optionNames: { maxIdleConnectionsPerAddress: '--max-idle-connections-per-address' },
    });
    guardedPort = Number(new URL(guarded.url).port);
  });
  afterAll(() => guarded.close());

  /** A raw connection from `localAddress` (any 127.x.y.z is a distinct source on Linux loopback). */
  function openFrom(localAddress: string) {
    const socket = connect({ port: guardedPort, host: '127.0.0.1', localAddress });
    socket.setEncoding('utf8');
    socket.on('error', () => {});
    let reply = '';
    socket.on('data', (text: string) => {
      reply += text;
    });
    const connected = new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    let ended = false;
    const closed = new Promise<string>((resolve) =>
      socket.once('close', () => {
        ended = true;
        resolve(reply);
      }),
    );
    return { socket, connected, closed, open: () => !ended && reply === '' };
  }

  /** A 2026-07-28 call of `work` from `localAddress` on a connection of its own, left running. */
  function longCallFrom(localAddress: string) {
    const body = JSON.stringify(
      modernRequest(1, 'tools/call', { name: 'work', arguments: { steps: 1, intervalMs: 60_000 } }),
    );
    const headers = {
      ...modernHeaders('tools/call', 'work'),
      'content-type': 'application/json',
      accept: ACCEPT_BOTH,
    };
    const req = httpRequest({
      port: guardedPort,
      host: '127.0.0.1',
      localAddress,
      method: 'POST',
      path: '/mcp',
      headers,
      agent: false,
    });
    req.on('error', () => {});
    req.end(body);
    return req;
  }

  it('past maxIdleConnectionsPerAddress one address gets 503 naming the limit; another address is served', async () => {
    // Connections serving a request are not idle: four long calls do not count against the four.
    const calls = Array.from({ length: 4 }, () => longCallFrom('127.0.0.2'));
    await until(() => seen.started >= 4);
    const held = Array.from({ length: 4 }, () => openFrom('127.0.0.2'));
    await Promise.all(held.map((h) => h.connected));
    const extra = openFrom('127.0.0.2');
    const reply = await extra.closed;
    expect(held.map((h) => h.open())).toEqual([true, true, true, true]);
    expect(reply).toMatch(/^HTTP\/1\.1 503 /);
    expect(bodyOf(reply).error).toEqual({
      code: HTTP_ERROR_CODES.Overloaded,
      message:
        'Service Unavailable: too many idle connections from one address (--max-idle-connections-per-address 4)',
    });
    const other = await fetch(guarded.url, {
      method: 'POST',
      headers: { ...modernHeaders('tools/list'), 'content-type': 'application/json', accept: ACCEPT_BOTH },
      body: JSON.stringify(modernRequest(1, 'tools/list')),
    });
    expect(other.status).toBe(200);
    await other.text();
    for (const h of held) h.socket.destroy();
    for (const call of calls) call.destroy();
  });

  it('a connection that sends nothing gets 408 and is closed; one that has begun its request is not', async () => {
    const silent = openFrom('127.0.0.3');
    const begun = openFrom('127.0.0.3');
    await Promise.all([silent.connected, begun.connected]);
    begun.socket.write('PO');
    const reply = await silent.closed;
    expect(reply).toMatch(/^HTTP\/1\.1 408 /);
    expect(bodyOf(reply).error).toEqual({
      code: HTTP_ERROR_CODES.RequestTimeout,
      message: 'Request Timeout: the connection sent nothing in time',
    });
    // Past the first-byte limit, well within the headers limit: the request that began is served.
    await new Promise((resolve) => setTimeout(resolve, FIRST_BYTE_MS));
    const body = JSON.stringify(modernRequest(1, 'tools/list'));
    const head = Object.entries({
      host: `127.0.0.1:${guardedPort}`,
      'content-type': 'application/json',
      accept: ACCEPT_BOTH,
      'content-length': String(body.length),
      connection: 'close',
      ...modernHeaders('tools/list'),
    }).map(([name, value]) => `${name}: ${value}\r\n`);
    begun.socket.end(`ST /mcp HTTP/1.1\r\n${head.join('')}\r\n${body}`);
    expect(await begun.closed).toMatch(/^HTTP\/1\.1 200 /);
  });
});
