// The HTTP client pointed where no MCP endpoint is (an admin port, a wrong path) says what happened and
// what to fix, whatever revision it asked for; a real 2026-07-28 server's 404 for an unknown method is
// still that server's own error. Real loopback servers.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { JsonRpcError } from '@mcp-inflight/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient, type RunningHttpServer, serveHttp } from '../src/index.js';
import { observe, workServer } from './fixtures/work-server.js';

let admin: Server;
let adminUrl: string;
let mcp: RunningHttpServer;

beforeAll(async () => {
  // Like the proxy's admin listener: plain-text 404 for anything but its routes.
  admin = createServer((_req, res) =>
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: /healthz, /readyz, /metrics\n'),
  );
  await new Promise<void>((resolve) => admin.listen(0, '127.0.0.1', resolve));
  adminUrl = `http://127.0.0.1:${(admin.address() as AddressInfo).port}/mcp`;
  mcp = await serveHttp(workServer(observe()), { port: 0 });
});
afterAll(async () => {
  admin.close();
  await mcp.close();
});

async function connectError(url: string, revision?: '2026-07-28' | '2025-11-25'): Promise<Error> {
  const client = new HttpClient({ url, ...(revision ? { revision } : {}) });
  try {
    await client.connect();
  } catch (error) {
    return error as Error;
  } finally {
    await client.close();
  }
  throw new Error('connected');
}

const FIX =
  "no MCP endpoint there; check the URL's port and path (the server's MCP endpoint, often /mcp, not an admin or health port)";

describe('a URL that answers 404', () => {
  it('an admin port: HTTP 404 at the URL, what it said, what to check (auto and each era)', async () => {
    const expected = `HTTP 404 from ${adminUrl} ("not found: /healthz, /readyz, /metrics"): ${FIX}`;
    const auto = await connectError(adminUrl);
    expect(auto).toBeInstanceOf(JsonRpcError);
    expect(auto.message).toBe(expected);
    expect((auto as JsonRpcError).data).toEqual({ httpStatus: 404 });
    expect((await connectError(adminUrl, '2025-11-25')).message).toBe(expected);
    const modern = await connectError(adminUrl, '2026-07-28');
    expect(modern.name).toBe('NegotiationError');
    expect(modern.message).toBe(`server/discover was refused (${expected}), not 2026-07-28`);
  });

  it("a wrong path on an MCP server: the server's own hint is kept, the query not shown; the right path's -32601 is kept", async () => {
    const wrong = `${mcp.url.replace('/mcp', '/api/mcp')}?key=secret`;
    const error = await connectError(wrong, '2026-07-28');
    expect(error.message).toBe(
      `server/discover was refused (HTTP 404 from ${new URL(wrong).origin}/api/mcp ("Not Found: the MCP endpoint is /mcp"): ${FIX}), not 2026-07-28`,
    );
    // At the right path, a 2026-07-28 server's 404 for an unknown method is its own -32601, unchanged.
    const client = new HttpClient({ url: mcp.url, revision: '2026-07-28' });
    await client.connect();
    const unknown = await client.request('no/such/method').catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(JsonRpcError);
    expect((unknown as JsonRpcError).code).toBe(-32601);
    expect((unknown as JsonRpcError).message).not.toContain('no MCP endpoint');
    await client.close();
  });
});
