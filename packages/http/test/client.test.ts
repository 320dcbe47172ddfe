// HttpClient against our own server on real loopback sockets: negotiation, progress, limits, and the wire
// signal of each era's cancel.
import { InflightError } from '@mcp-inflight/core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type RunningHttpServer, serveHttp } from '../src/index.js';
import { breakingFetch } from './fixtures/breaking-fetch.js';
import { BOTH_CLIENTS } from './fixtures/clients.js';
import { exchangeOf, postedMethods, recordingFetch } from './fixtures/recording-fetch.js';
import { observe, workServer } from './fixtures/work-server.js';

const observed = observe();
let server: RunningHttpServer;

beforeAll(async () => {
  server = await serveHttp(workServer(observed), { port: 0, retryMs: 50 });
});
afterAll(() => server.close());

// Tests that expect every progress value space steps at least 60 ms apart: the server's relay coalesces
// updates closer than 50 ms (keeping the latest), by design.
const work = (steps: number, intervalMs: number) => ({ name: 'work', arguments: { steps, intervalMs } });

describe.each(BOTH_CLIENTS)('HttpClient over %s', (_via, HttpClient) => {
  describe('negotiation', () => {
    it.each([
      ['auto', '2026-07-28'],
      ['2026-07-28', '2026-07-28'],
      ['2025-11-25', '2025-11-25'],
      ['2025-06-18', '2025-06-18'],
      ['2025-03-26', '2025-03-26'],
    ] as const)('revision %s speaks %s and gets progress in order', async (wanted, speaks) => {
      const client = new HttpClient({ url: server.url, revision: wanted });
      const seen: [number, number | undefined, string | undefined][] = [];
      const result = await client.request('tools/call', work(3, 60), {
        onprogress: (p) => seen.push([p.progress, p.total, p.message]),
      });
      expect(client.revision).toBe(speaks);
      expect(client.sessionId === undefined).toBe(speaks === '2026-07-28');
      expect(result).toMatchObject({ content: [{ type: 'text', text: 'done 3' }] });
      expect(seen).toEqual([
        [1, 3, 'step 1'],
        [2, 3, 'step 2'],
        [3, 3, 'step 3'],
      ]);
      await client.close();
    });

    it('auto falls back on a -32022 that lists only legacy revisions, and initializes with the newest', async () => {
      const legacyOnly = await serveHttp(workServer(observe()), { port: 0, modern: false });
      const { fetch, wire } = recordingFetch();
      const client = new HttpClient({ url: legacyOnly.url, fetch });
      expect((await client.connect()).revision).toBe('2025-11-25');
      expect(postedMethods(wire)).toEqual(['server/discover', 'initialize', 'notifications/initialized']);
      expect(exchangeOf(wire, 'server/discover')!.status).toBe(400);
      expect(exchangeOf(wire, 'initialize')!.headers['mcp-protocol-version']).toBeUndefined();
      await client.close();
      await legacyOnly.close();
    });

    it('a pinned 2026-07-28 client refuses a server that only speaks legacy', async () => {
      const legacyOnly = await serveHttp(workServer(observe()), { port: 0, modern: false });
      const client = new HttpClient({ url: legacyOnly.url, revision: '2026-07-28' });
      await expect(client.connect()).rejects.toThrow(/not 2026-07-28/);
      await client.close();
      await legacyOnly.close();
    });

    it('sends the mirrored headers on 2026-07-28 and the session headers on legacy', async () => {
      const modern = recordingFetch();
      const a = new HttpClient({
        url: server.url,
        fetch: modern.fetch,
        clientInfo: { name: 'me', version: '9' },
      });
      await a.request('tools/call', { name: 'wörk', arguments: { steps: 1, intervalMs: 1 } });
      const call = exchangeOf(modern.wire, 'tools/call')!;
      expect(call.headers).toMatchObject({
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': '=?base64?d8O2cms=?=',
      });
      expect(call.body).toMatchObject({
        params: { _meta: { 'io.modelcontextprotocol/clientInfo': { name: 'me', version: '9' } } },
      });
      const legacy = recordingFetch();
      const b = new HttpClient({ url: server.url, fetch: legacy.fetch, revision: '2025-06-18' });
      await b.request('tools/list');
      expect(exchangeOf(legacy.wire, 'tools/list')!.headers).toMatchObject({
        'mcp-protocol-version': '2025-06-18',
        'mcp-session-id': b.sessionId,
      });
      await Promise.all([a.close(), b.close()]);
    });
  });

  describe('cancellation on the wire', () => {
    it('2026-07-28: an abort closes that request’s stream and sends nothing; the handler sees DISCONNECTED', async () => {
      const { fetch, wire } = recordingFetch();
      const client = new HttpClient({ url: server.url, fetch });
      await client.connect();
      const aborted = observed.nextAbort();
      const stop = new AbortController();
      const call = client.request('tools/call', work(100, 30), {
        signal: stop.signal,
        onprogress: () => stop.abort('enough'),
      });
      await expect(call).rejects.toMatchObject({ code: 'CANCELLED' });
      expect((await aborted).code).toBe('DISCONNECTED');
      expect(postedMethods(wire)).toEqual(['server/discover', 'tools/call']);
      expect(exchangeOf(wire, 'tools/call')!.aborted).toBe(true);
      await client.close();
    });

    it('legacy: an abort POSTs notifications/cancelled; the handler sees CANCELLED with our reason', async () => {
      const { fetch, wire } = recordingFetch();
      const client = new HttpClient({ url: server.url, fetch, revision: '2025-11-25' });
      await client.connect();
      const aborted = observed.nextAbort();
      const stop = new AbortController();
      const call = client.request('tools/call', work(100, 30), {
        signal: stop.signal,
        onprogress: () => stop.abort('enough'),
      });
      await expect(call).rejects.toMatchObject({ code: 'CANCELLED' });
      const reason = await aborted;
      expect(reason.code).toBe('CANCELLED');
      expect(reason.message).toContain('enough');
      const callId = (exchangeOf(wire, 'tools/call')!.body as { id: number }).id;
      expect(exchangeOf(wire, 'notifications/cancelled')!.body).toMatchObject({
        params: { requestId: callId },
      });
      await client.close();
    });

    it('never cancels initialize (the call still rejects for the caller)', async () => {
      const { fetch, wire } = recordingFetch();
      // Every POST leaves 50 ms late, so the 10 ms limit always fires while initialize is on its way.
      const slowFetch: typeof fetch = async (input, init) => {
        await new Promise((resolve) => setTimeout(resolve, 50));
        return fetch(input, init);
      };
      const client = new HttpClient({ url: server.url, fetch: slowFetch, revision: '2025-11-25' });
      await expect(client.connect({ timeoutMs: 10 })).rejects.toBeInstanceOf(InflightError);
      // Long enough for a cancel (held back 50 ms like every POST) to have gone out, had one been sent.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(postedMethods(wire)).toContain('initialize');
      expect(postedMethods(wire)).not.toContain('notifications/cancelled');
      await client.close();
    });
  });

  describe('deadlines', () => {
    it.each(['2026-07-28', '2025-11-25'] as const)(
      '%s: the idle limit fires when progress stops, and cancels era-correctly',
      async (revision) => {
        const client = new HttpClient({ url: server.url, revision });
        await client.connect();
        const aborted = observed.nextAbort();
        const call = client.request('tools/call', work(3, 400), { idleMs: 120 });
        await expect(call).rejects.toMatchObject({ code: 'IDLE_TIMEOUT' });
        const reason = await aborted;
        expect(reason.code).toBe(revision === '2026-07-28' ? 'DISCONNECTED' : 'CANCELLED');
        if (revision !== '2026-07-28') expect(reason.message).toContain('IDLE_TIMEOUT');
        await client.close();
      },
    );

    it('the ceiling fires even while progress flows', async () => {
      const client = new HttpClient({ url: server.url });
      let updates = 0;
      const started = Date.now();
      const call = client.request('tools/call', work(100, 20), {
        idleMs: 1_000,
        ceilingMs: 250,
        onprogress: () => updates++,
      });
      await expect(call).rejects.toMatchObject({ code: 'CEILING' });
      // CEILING, with progress flowing: the ceiling's own timer ended it (the 2 s of work would be a result,
      // the 1 s idle window an IDLE_TIMEOUT); how soon is load's business, never before the 250 ms.
      expect(Date.now() - started).toBeGreaterThanOrEqual(245);
      expect(updates).toBeGreaterThan(2);
      await client.close();
    });
  });

  describe('legacy streams that break', () => {
    it('are resumed with Last-Event-ID and the call still gets its result', async () => {
      const client = new HttpClient({ url: server.url, revision: '2025-11-25', fetch: breakingFetch(2) });
      const resumedBefore = server.handler.stats.resumedStreams;
      const seen: number[] = [];
      const result = await client.request('tools/call', work(4, 60), {
        onprogress: (p) => seen.push(p.progress),
      });
      expect(result).toMatchObject({ content: [{ text: 'done 4' }] });
      expect(seen).toEqual([1, 2, 3, 4]);
      expect(server.handler.stats.resumedStreams).toBe(resumedBefore + 1);
      await client.close();
    });

    it('fail the call with the upstream-closed cause when they cannot be resumed (2026-07-28)', async () => {
      const client = new HttpClient({ url: server.url, fetch: breakingFetch(1) });
      const call = client.request('tools/call', work(4, 40));
      await expect(call).rejects.toMatchObject({
        name: 'InflightError',
        code: 'UPSTREAM_CLOSED',
        message: expect.stringContaining('stream ended'),
      });
      await client.close();
    });
  });

  describe('sessions', () => {
    it('close() DELETEs the session; a session gone (404) is renewed for the call that found it', async () => {
      const { fetch, wire } = recordingFetch();
      const client = new HttpClient({ url: server.url, fetch, revision: '2025-11-25' });
      await client.connect();
      const first = client.sessionId!;
      await fetch(server.url, { method: 'DELETE', headers: { 'mcp-session-id': first } }); // the server forgets it
      await client.request('tools/list'); // 404, a new initialize, then the same request again [H29]
      const second = client.sessionId!;
      expect(second).not.toBe(first);
      const sessions = server.handler.stats.sessions;
      await client.close();
      expect(wire.at(-1)).toMatchObject({ method: 'DELETE', headers: { 'mcp-session-id': second } });
      await vi.waitFor(() => expect(server.handler.stats.sessions).toBe(sessions - 1));
    });

    it('listen: the GET stream brings unrelated notifications and server requests', async () => {
      const client = new HttpClient({ url: server.url, revision: '2025-11-25', listen: true });
      await client.connect();
      const changed = new Promise<void>((resolve) =>
        client.endpoint.setNotificationHandler('notifications/tools/list_changed', () => resolve()),
      );
      const sessionEndpoint = observed.sessions.get(client.sessionId!)!;
      sessionEndpoint.notify('notifications/tools/list_changed');
      await changed;
      // A server-to-client request with no related request goes on the GET stream; the answer is a POST.
      await expect(sessionEndpoint.request('ping', {}, { ceilingMs: 2_000 })).resolves.toEqual({});
      await client.close();
    });

    it('rejects calls after close()', async () => {
      const client = new HttpClient({ url: server.url });
      await client.close();
      await expect(client.request('tools/list')).rejects.toThrow(/closed/);
    });
  });
});
