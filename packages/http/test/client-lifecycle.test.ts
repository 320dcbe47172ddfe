// HttpClient's session lifecycle: close() lets a cancel it just sent reach the server (bounded), a session
// the server forgot (404) is renewed and the call resent once [H28 H29], and a 2026-07-28 client sends no
// notifications [H34].
import { InflightError } from '@mcp-inflight/core';
import { ManualClock } from '@mcp-inflight/core/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type RunningHttpServer, serveHttp } from '../src/index.js';
import { BOTH_CLIENTS } from './fixtures/clients.js';
import { exchangeOf, postedMethods, recordingFetch } from './fixtures/recording-fetch.js';
import { observe, workServer } from './fixtures/work-server.js';

const observed = observe();
let server: RunningHttpServer;

beforeAll(async () => {
  server = await serveHttp(workServer(observed), { port: 0 });
});
afterAll(() => server.close());

const work = (steps: number, intervalMs: number) => ({ name: 'work', arguments: { steps, intervalMs } });

describe.each(BOTH_CLIENTS)('HttpClient over %s', (_via, HttpClient) => {
  describe('close() right after a cancel', () => {
    it('legacy: the notifications/cancelled POST reaches the server before close() aborts anything', async () => {
      const { fetch, wire } = recordingFetch();
      const client = new HttpClient({ url: server.url, fetch, revision: '2025-06-18' });
      await client.connect();
      const aborted = observed.nextAbort();
      const stop = new AbortController();
      const call = client.request('tools/call', work(100, 30), {
        signal: stop.signal,
        onprogress: () => stop.abort('user stop'),
      });
      await expect(call).rejects.toMatchObject({ code: 'CANCELLED' });
      await client.close(); // what a host does on Ctrl-C, at once
      const cancel = exchangeOf(wire, 'notifications/cancelled')!;
      expect(cancel.aborted).toBe(false);
      expect(cancel.status).toBe(202);
      expect((await aborted).code).toBe('CANCELLED');
    });

    it('waits at most 1 s (on the client’s clock) for a cancel POST that hangs', async () => {
      const clock = new ManualClock();
      const hung: AbortSignal[] = [];
      const fetch = scriptedFetch((body, signal) => {
        if (body?.method === 'notifications/cancelled') {
          hung.push(signal);
          return new Promise((_resolve, reject) =>
            signal.addEventListener('abort', () => reject(signal.reason)),
          );
        }
        return undefined;
      });
      const client = new HttpClient({ url: 'http://127.0.0.1:9/mcp', fetch, revision: '2025-06-18', clock });
      await client.connect();
      const stop = new AbortController();
      const call = client.request('tools/call', work(1, 1), { signal: stop.signal });
      await vi.waitFor(() => expect(fetch.calls).toContain('tools/call'));
      stop.abort('user stop');
      await expect(call).rejects.toMatchObject({ code: 'CANCELLED' });
      let closed = false;
      const closing = client.close().then(() => {
        closed = true;
      });
      await vi.waitFor(() => expect(hung).toHaveLength(1));
      clock.advance(999);
      await flush();
      expect(closed).toBe(false);
      expect(hung[0]!.aborted).toBe(false);
      clock.advance(1);
      await closing;
      expect(hung[0]!.aborted).toBe(true);
    });
  });

  describe('a session the server forgot (404)', () => {
    it('is renewed with initialize and the call resent once, transparently', async () => {
      const { fetch, wire } = recordingFetch();
      const client = new HttpClient({ url: server.url, fetch, revision: '2025-11-25' });
      await client.connect();
      const first = client.sessionId!;
      await globalThis.fetch(server.url, { method: 'DELETE', headers: { 'mcp-session-id': first } });
      const [a, b] = await Promise.all([client.request('tools/list'), client.request('tools/list')]);
      expect(a).toMatchObject({ tools: [{ name: 'work' }] });
      expect(b).toEqual(a);
      expect(client.sessionId).not.toBe(first);
      expect(postedMethods(wire).filter((m) => m === 'initialize')).toHaveLength(2); // one renewal for both
      const lists = wire.filter((e) => (e.body as { method?: string })?.method === 'tools/list');
      expect(lists.map((e) => [e.status, e.headers['mcp-session-id'] === first])).toEqual([
        [404, true],
        [404, true],
        [200, false],
        [200, false],
      ]);
      await client.close();
    });

    it('fails the call with UPSTREAM_CLOSED when the resend is refused again', async () => {
      const real = recordingFetch();
      // Every tools/list on a session is answered 404, as by a server that keeps losing its sessions.
      const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
        const body = typeof init?.body === 'string' ? JSON.parse(init.body) : undefined;
        if (body?.method === 'tools/list') return new Response('{}', { status: 404 });
        return real.fetch(input, init);
      }) as typeof globalThis.fetch;
      const client = new HttpClient({ url: server.url, fetch, revision: '2025-11-25' });
      const call = client.request('tools/list');
      await expect(call).rejects.toBeInstanceOf(InflightError);
      await expect(call).rejects.toMatchObject({
        code: 'UPSTREAM_CLOSED',
        message: expect.stringContaining('404'),
      });
      expect(postedMethods(real.wire).filter((m) => m === 'initialize')).toHaveLength(2);
      await client.close();
    });
  });

  describe('notify() on 2026-07-28', () => {
    it('is refused before anything is sent: the revision defines no client notifications over HTTP', async () => {
      const { fetch, wire } = recordingFetch();
      const client = new HttpClient({ url: server.url, fetch });
      expect((await client.connect()).revision).toBe('2026-07-28');
      await expect(client.notify('notifications/cancelled', { requestId: 5 })).rejects.toThrow(/2026-07-28/);
      expect(postedMethods(wire)).toEqual(['server/discover']);
      await client.close();
    });
  });

  /** Lets pending promise callbacks run. */
  async function flush(): Promise<void> {
    for (let i = 0; i < 10; i++) await Promise.resolve();
  }

  type Body = { id?: unknown; method?: string } | undefined;

  /**
   * A fetch that plays a 2025-06-18 server with no sockets: a session at initialize, 202 for notifications,
   * a `tools/call` stream that stays open until aborted. `override` may answer a request its own way.
   */
  function scriptedFetch(override: (body: Body, signal: AbortSignal) => Promise<Response> | undefined) {
    const calls: string[] = [];
    const fetch = (async (_input: RequestInfo | URL, init?: RequestInit) => {
      const body: Body = typeof init?.body === 'string' ? JSON.parse(init.body) : undefined;
      const signal = init?.signal ?? new AbortController().signal;
      calls.push(body?.method ?? init?.method ?? 'GET');
      const own = override(body, signal);
      if (own) return own;
      if (body?.method === 'initialize') {
        const result = {
          protocolVersion: '2025-06-18',
          capabilities: {},
          serverInfo: { name: 's', version: '1' },
        };
        return new Response(JSON.stringify({ jsonrpc: '2.0', id: body.id, result }), {
          headers: { 'content-type': 'application/json', 'mcp-session-id': 'scripted' },
        });
      }
      if (body?.method === 'tools/call') {
        const stream = new ReadableStream<Uint8Array>({
          start(controller) {
            signal.addEventListener('abort', () => controller.error(signal.reason));
          },
        });
        return new Response(stream, { headers: { 'content-type': 'text/event-stream' } });
      }
      return new Response(null, { status: body ? 202 : 200 });
    }) as typeof globalThis.fetch & { calls: string[] };
    fetch.calls = calls;
    return fetch;
  }
});
