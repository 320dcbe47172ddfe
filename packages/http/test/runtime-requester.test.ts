// What the root entry's HttpClient sends through on each runtime. On Deno (2.9) `node:http` sends a request
// again, on a new connection, when it is destroyed before its response on a keep-alive socket reused from the
// agent's pool (denoland/deno#36786): a 2026-07-28 cancel is that destroy, so the server saw the cancel and
// then the same call start again and run. On Deno the client therefore sends through the global fetch,
// which closes the connection on abort and sends once. `.ci/runtime-e2e.mjs` checks the cancel on Deno
// itself; here Deno is simulated the way the client detects it, by `process.versions.deno`.
import { setTimeout as sleep } from 'node:timers/promises';
import { InflightError } from '@mcp-inflight/core';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { HttpClient, type RunningHttpServer, serveHttp } from '../src/index.js';
import { observe, workServer } from './fixtures/work-server.js';

const observed = observe();
let server: RunningHttpServer;

beforeAll(async () => {
  server = await serveHttp(workServer(observed), { port: 0 });
});
afterAll(() => server.close());
afterEach(() => {
  vi.unstubAllGlobals();
  delete (process.versions as Record<string, string | undefined>).deno;
});

/** Spies on `globalThis.fetch`, still sending through the real one; the bodies it was given, in order. */
function spyOnFetch(): string[] {
  const real = globalThis.fetch;
  const bodies: string[] = [];
  vi.stubGlobal('fetch', (input: RequestInfo | URL, init?: RequestInit) => {
    bodies.push(String(init?.body ?? ''));
    return real(input, init);
  });
  return bodies;
}

/** A 2026-07-28 call the client's idle limit cancels before the server has answered anything. */
async function cancelledBeforeItsResponse(client: HttpClient): Promise<unknown> {
  return client.callTool('work', { steps: 2, intervalMs: 1_000 }, { idleMs: 100 }).then(
    () => 'completed',
    (error: unknown) => (InflightError.is(error) ? error.code : error),
  );
}

describe('the root entry HttpClient', () => {
  it('sends over node:http on Node: the global fetch sees none of its requests', async () => {
    const bodies = spyOnFetch();
    const client = new HttpClient({ url: server.url });
    await client.connect();
    await client.callTool('work', { steps: 1, intervalMs: 1 });
    await client.close();
    expect(bodies).toEqual([]);
  });

  it('sends over the global fetch on Deno, and a call cancelled before its response runs once', async () => {
    Object.defineProperty(process.versions, 'deno', { value: '2.9.6', configurable: true, enumerable: true });
    const bodies = spyOnFetch();
    const client = new HttpClient({ url: server.url });
    // The connection discover used is back in the pool: the call below goes out on it, reused.
    await client.connect();
    expect(client.revision).toBe('2026-07-28');
    const started = observed.started;
    const aborted = observed.nextAbort();
    expect(await cancelledBeforeItsResponse(client)).toBe('IDLE_TIMEOUT');
    await aborted; // the server saw the cancel: its handler's signal fired
    await sleep(150); // a request sent again would start the work again by now
    expect(observed.started).toBe(started + 1);
    expect(bodies.filter((body) => body.includes('"tools/call"'))).toHaveLength(1);
    expect(bodies.some((body) => body.includes('"server/discover"'))).toBe(true);
    await client.close();
  });
});
