// The edges of the HTTP server: origin and host checks, body limits, keep-alives, the node:http adapter.
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpHandler, HTTP_ERROR_CODES, type RunningHttpServer, serveHttp } from '../src/index.js';
import { EventReader, modernHeaders, modernRequest, RawHttp, workCall } from './fixtures/raw-http.js';
import { observe, workServer } from './fixtures/work-server.js';

let server: RunningHttpServer;
let raw: RawHttp;

beforeAll(async () => {
  server = await serveHttp(workServer(observe()), { port: 0, maxBodyBytes: 2_048, keepAliveMs: 60 });
  raw = new RawHttp(server.url);
});
afterAll(() => server.close());

/** A raw node:http request, to send a Host header fetch would not let us set: its status and body. */
function withHost(host: string): Promise<{ status: number; body: string }> {
  const url = new URL(server.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: { host, 'content-type': 'application/json' },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode!, body }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }));
  });
}

describe('DNS rebinding and browsers', () => {
  it('403 for a foreign Origin; a loopback origin passes with CORS headers', async () => {
    const foreign = await raw.post(
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { origin: 'https://evil.example' },
    );
    expect(foreign.status).toBe(403);
    const { error } = await foreign.json();
    expect(error).toMatchObject({ code: HTTP_ERROR_CODES.Forbidden });
    // The message names the option that lets the origin in.
    expect(error.message).toBe(
      `Forbidden: origin "https://evil.example" is not allowed; list it in the server's allowedOrigins option (loopback origins only by default)`,
    );
    const local = await raw.post(modernRequest(1, 'server/discover'), {
      ...modernHeaders('server/discover'),
      origin: 'http://localhost:5173',
    });
    expect(local.status).toBe(200);
    expect(local.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    expect(local.headers.get('access-control-expose-headers')).toContain('mcp-session-id');
  });

  it('answers a CORS preflight for an allowed origin', async () => {
    const preflight = await fetch(server.url, {
      method: 'OPTIONS',
      headers: { origin: 'http://127.0.0.1:3000' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')).toContain('mcp-protocol-version');
  });

  it("a preflight allows the Mcp-Param-* headers asked for and the server's corsAllowHeaders", async () => {
    const asked = 'content-type, mcp-param-region, Mcp-Param-Tenant-Id, x-team, x-not-allowed';
    const plain = await fetch(server.url, {
      method: 'OPTIONS',
      headers: { origin: 'http://127.0.0.1:3000', 'access-control-request-headers': asked },
    });
    const allowedBy = (response: Response) =>
      (response.headers.get('access-control-allow-headers') ?? '').split(', ');
    expect(allowedBy(plain)).toEqual(expect.arrayContaining(['mcp-param-region', 'mcp-param-tenant-id']));
    expect(allowedBy(plain)).not.toContain('x-team');
    expect(plain.headers.get('vary')).toBe('origin, access-control-request-headers');
    const handler = createHttpHandler(() => {}, { corsAllowHeaders: ['X-Team'] });
    const passing = await handler.handle(
      new Request('http://127.0.0.1/mcp', {
        method: 'OPTIONS',
        headers: { origin: 'http://localhost:5173', 'access-control-request-headers': asked },
      }),
    );
    expect(allowedBy(passing)).toEqual(
      expect.arrayContaining(['x-team', 'mcp-param-region', 'authorization']),
    );
    expect(allowedBy(passing)).not.toContain('x-not-allowed');
    await handler.close();
  });

  it('a 403 names the setting a command line gives in optionNames', async () => {
    const handler = createHttpHandler(() => {}, {
      optionNames: { allowedOrigins: '--allowed-origins', allowedHosts: '--allowed-hosts' },
    });
    const post = (headers: Record<string, string>) =>
      handler.handle(new Request('http://127.0.0.1/mcp', { method: 'POST', headers, body: '{}' }));
    const origin = await (await post({ origin: 'https://evil.example' })).json();
    expect(origin.error.message).toBe(
      'Forbidden: origin "https://evil.example" is not allowed; list it in --allowed-origins (loopback origins only by default)',
    );
    const host = await (await post({ host: 'attacker.example' })).json();
    expect(host.error.message).toMatch(/list its name in --allowed-hosts \(/);
    await handler.close();
  });

  it('403 when the Host header names another host; loopback names pass', async () => {
    const refused = await withHost('attacker.example:80');
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.body).error.message).toMatch(
      /^Forbidden: host "attacker.example:80" is not allowed; list its name in the server's allowedHosts option/,
    );
    // Passes the guard, then gets the legacy answer to a request without a session.
    expect((await withHost(`localhost:${new URL(server.url).port}`)).status).toBe(400);
  });

  it('binds loopback by default and reports the real port', () => {
    const address = server.server.address() as { address: string; port: number };
    expect(address.address).toBe('127.0.0.1');
    expect(server.url).toBe(`http://127.0.0.1:${address.port}/mcp`);
  });
});

describe('bodies and methods', () => {
  it('413 past maxBodyBytes, declared or streamed', async () => {
    const big = { jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(4_000) } };
    expect((await raw.post(big)).status).toBe(413);
    const chunked = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(JSON.stringify(big)));
        controller.close();
      },
    });
    const streamed = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: chunked,
      duplex: 'half',
    } as RequestInit);
    expect(streamed.status).toBe(413);
  });

  it('406 when the client accepts neither JSON nor SSE', async () => {
    const response = await raw.post({ jsonrpc: '2.0', id: 1, method: 'ping' }, { accept: 'text/html' });
    expect(response.status).toBe(406);
  });

  it('415 unless the body is JSON; 405 for other methods; 404 off the MCP path', async () => {
    const text = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: '{}',
    });
    expect(text.status).toBe(415);
    const put = await fetch(server.url, { method: 'PUT' });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, POST, DELETE');
    const elsewhere = await fetch(server.url.replace('/mcp', '/other'), { method: 'POST' });
    expect(elsewhere.status).toBe(404);
  });
});

describe('keep-alives', () => {
  it('a quiet request opens its SSE stream and gets comment keep-alives before its result', async () => {
    const session = await raw.initialize();
    // No progress token: nothing to stream, but it takes long enough for keep-alives (every 60 ms).
    const call = {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'work', arguments: { steps: 1, intervalMs: 250 } },
    };
    const response = await raw.post(call, raw.legacy(session));
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const reader = new EventReader(response.body!);
    const events = await reader.rest();
    expect(events.map((e) => e.message!.id)).toEqual([2]);
    const comments = reader.raw.join('').match(/^: keep-alive$/gm) ?? [];
    expect(comments.length).toBeGreaterThanOrEqual(2);
  });
});

describe('close()', () => {
  it('answers handlers in flight with a SHUTDOWN error and ends every stream', async () => {
    const own = await serveHttp(workServer(observe()), { port: 0 });
    const ownRaw = new RawHttp(own.url);
    const session = await ownRaw.initialize();
    const legacyCall = new EventReader(
      (await ownRaw.post(workCall(1, 100, 50), ownRaw.legacy(session))).body!,
    );
    const modernCall = new EventReader(
      (
        await ownRaw.post(
          modernRequest(
            2,
            'tools/call',
            { name: 'work', arguments: { steps: 100, intervalMs: 50 } },
            { progressToken: 'm' },
          ),
          modernHeaders('tools/call', 'work'),
        )
      ).body!,
    );
    await Promise.all([legacyCall.next(), modernCall.next()]);
    await own.close();
    const [legacyRest, modernRest] = await Promise.all([legacyCall.rest(), modernCall.rest()]);
    expect(legacyRest.at(-1)!.message).toMatchObject({ id: 1, error: { data: { cause: 'SHUTDOWN' } } });
    expect(modernRest.at(-1)!.message).toMatchObject({ id: 2, error: { data: { cause: 'SHUTDOWN' } } });
    expect(own.handler.stats).toMatchObject({ sessions: 0, statelessInFlight: 0 });
  });
});
