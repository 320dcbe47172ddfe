// 2026-07-28 listen streams on loopback HTTP, ours on both sides: the stream outlives every idle limit
// (keep-alive comments show it is alive), carries only what its filter asked for, ends when the client
// closes it (the handler is aborted and every table is back to 0), and a server's graceful end is the listen
// response then `notifications/cancelled`. A default client (no flag) gets what belongs to no call.
import { setTimeout as sleep } from 'node:timers/promises';
import { type Clock, type Endpoint, serveLifecycle, systemClock } from '@mcp-inflight/core';
import { ListenStreams } from '@mcp-inflight/server/listen';
import { afterEach, describe, expect, it } from 'vitest';
import { type RunningHttpServer, serveHttp } from '../src/index.js';
import { BOTH_CLIENTS } from './fixtures/clients.js';
import { recordingFetch } from './fixtures/recording-fetch.js';

// Every idle limit in play, short so the stream visibly outlives them, yet long enough that load cannot
// end a session before its GET stream is open (80 ms could, beside busy loops).
const LIMIT_MS = 400;

const running: RunningHttpServer[] = [];
afterEach(async () => {
  for (const server of running.splice(0)) await server.close();
});

async function start(listenStreams: ListenStreams, sessions: Endpoint[] = []): Promise<RunningHttpServer> {
  const server = await serveHttp(
    (endpoint, info) => {
      if (info.sessionId) sessions.push(endpoint);
      serveLifecycle(endpoint, {
        serverInfo: { name: 'listen-test', version: '1.0.0' },
        capabilities: { tools: { listChanged: true } },
      });
    },
    {
      port: 0,
      listenStreams,
      handlerIdleMs: LIMIT_MS,
      handlerCeilingMs: LIMIT_MS,
      sessionIdleMs: LIMIT_MS * 2,
      keepAliveMs: 30,
    },
  );
  running.push(server);
  return server;
}

/** Waits for a condition; the 20 s bound only ends a test that is broken, load cannot reach it. */
async function until(check: () => boolean, what: string): Promise<void> {
  const giveUpAt = performance.now() + 20_000;
  while (!check() && performance.now() < giveUpAt) await sleep(5);
  if (!check()) throw new Error(`timed out waiting for ${what}`);
}

/** POSTs a raw listen and returns the SSE text as it arrives. */
async function rawListen(url: string, id: number, notifications: Record<string, unknown>) {
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  const controller = new AbortController();
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'subscriptions/listen',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'subscriptions/listen',
      params: { _meta: meta, notifications },
    }),
    signal: controller.signal,
  });
  let text = '';
  const done = (async () => {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>)
        text += decoder.decode(chunk, { stream: true });
    } catch {
      // aborted by the test
    }
  })();
  const messages = (): Record<string, unknown>[] =>
    text
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)) as Record<string, unknown>);
  return { response, text: () => text, messages, done, close: () => controller.abort() };
}

describe.each(BOTH_CLIENTS)('HttpClient over %s', (_via, HttpClient) => {
  describe('a 2026-07-28 listen stream served by createHttpHandler', () => {
    it('acknowledges first, outlives the handler limits with keep-alives, and delivers only what was asked', async () => {
      const listenStreams = new ListenStreams({ offer: { promptsListChanged: false } });
      const server = await start(listenStreams);
      const stream = await rawListen(server.url, 7, { toolsListChanged: true, promptsListChanged: true });
      expect(stream.response.headers.get('content-type')).toBe('text/event-stream');
      await until(() => stream.messages().length === 1, 'the acknowledgment');
      expect(stream.messages()[0]).toEqual({
        jsonrpc: '2.0',
        method: 'notifications/subscriptions/acknowledged',
        params: {
          _meta: { 'io.modelcontextprotocol/subscriptionId': 7 },
          notifications: { toolsListChanged: true },
        },
      });
      await sleep(LIMIT_MS * 4); // past handlerIdleMs and handlerCeilingMs several times over
      expect(stream.text()).toContain(': keep-alive');
      expect(listenStreams.stats.streams).toBe(1);
      expect(listenStreams.notify('notifications/prompts/list_changed')).toBe(0); // not offered, not asked
      expect(listenStreams.notify('notifications/resources/updated', { uri: 'file:///a' })).toBe(0);
      expect(listenStreams.notify('notifications/tools/list_changed')).toBe(1);
      await until(() => stream.messages().length === 2, 'the list change');
      expect(stream.messages()[1]).toEqual({
        jsonrpc: '2.0',
        method: 'notifications/tools/list_changed',
        params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 7 } },
      });
      // The client closes its stream: that is the cancel [CN27]; nothing is left behind.
      stream.close();
      await stream.done;
      await until(() => listenStreams.stats.streams === 0, 'the stream to leave the table');
      await until(() => server.handler.stats.openStreams === 0, 'the HTTP stream to end');
      expect(server.handler.stats.statelessInFlight).toBe(0);
      expect(listenStreams.stats.cancelled).toBe(1);
    });

    it('ends gracefully on close(): the listen response, then notifications/cancelled, then the end', async () => {
      const listenStreams = new ListenStreams();
      const server = await start(listenStreams);
      const stream = await rawListen(server.url, 'sub-1' as unknown as number, { toolsListChanged: true });
      await until(() => stream.messages().length === 1, 'the acknowledgment');
      await server.close();
      running.length = 0;
      await stream.done;
      const [, response, cancelled] = stream.messages();
      expect(response).toEqual({
        jsonrpc: '2.0',
        id: 'sub-1',
        result: { resultType: 'complete', _meta: { 'io.modelcontextprotocol/subscriptionId': 'sub-1' } },
      });
      expect(cancelled).toMatchObject({ method: 'notifications/cancelled', params: { requestId: 'sub-1' } });
      expect(stream.messages()).toHaveLength(3);
      expect(listenStreams.stats).toMatchObject({ streams: 0, ended: 1 });
    });

    it('answers a listen with a filter that is not an object with -32602', async () => {
      const server = await start(new ListenStreams());
      const stream = await rawListen(server.url, 1, 'everything' as unknown as Record<string, unknown>);
      await stream.done;
      expect(JSON.parse(stream.text())).toMatchObject({ id: 1, error: { code: -32602 } });
    });
  });

  describe('HttpClient, with no listen option', () => {
    it('opens a listen stream for the list changes it handles, past every idle limit, and closes it on close()', async () => {
      const listenStreams = new ListenStreams();
      const server = await start(listenStreams);
      const { fetch, wire } = recordingFetch();
      const client = new HttpClient({ url: server.url, fetch, idleMs: LIMIT_MS, ceilingMs: LIMIT_MS });
      const seen: unknown[] = [];
      client.onNotification('notifications/tools/list_changed', (params) => seen.push(params));
      await client.connect();
      expect(client.revision).toBe('2026-07-28');
      await until(() => listenStreams.stats.streams === 1, 'the listen stream');
      await sleep(LIMIT_MS * 4); // the client's idle limit and ceiling, and the server's handler limits
      expect(listenStreams.stats.streams).toBe(1);
      listenStreams.notify('notifications/tools/list_changed');
      await until(() => seen.length === 1, 'the notification');
      expect(seen[0]).toMatchObject({
        _meta: { 'io.modelcontextprotocol/subscriptionId': expect.anything() },
      });
      const listen = wire.find(
        (e) => (e.body as { method?: string } | undefined)?.method === 'subscriptions/listen',
      );
      expect(listen?.body).toMatchObject({ params: { notifications: { toolsListChanged: true } } });
      await client.close();
      await until(() => listenStreams.stats.streams === 0, 'the server to see the stream close');
      await until(() => server.handler.stats.openStreams === 0, 'the HTTP stream to end');
      expect(listen?.aborted).toBe(true); // closed, not cancelled with a notification [CN22]
      expect(wire.some((e) => JSON.stringify(e.body ?? '').includes('notifications/cancelled'))).toBe(false);
      expect(client.stats()).toMatchObject({ outboundInFlight: 0, outboundTokens: 0 });
    });

    it('takes a server shutdown (response, then notifications/cancelled) as one graceful end', async () => {
      const listenStreams = new ListenStreams();
      const server = await start(listenStreams);
      const client = new HttpClient({ url: server.url });
      let ended = 0;
      client.endpoint.events.on('request-ended', (_d, _id, method, outcome) => {
        if (method === 'subscriptions/listen' && outcome === 'result') ended++;
      });
      client.onNotification('notifications/tools/list_changed', () => {});
      await client.connect();
      await until(() => listenStreams.stats.streams === 1, 'the listen stream');
      await server.close(); // the response, then notifications/cancelled
      running.length = 0;
      await until(() => ended === 1, 'the client to see a graceful end');
      expect(client.stats()).toMatchObject({ outboundInFlight: 0, errors: 0, lateResponses: 0 });
      await client.close();
    });

    it('sends listen again after its stream drops, after the retry the stream advised', async () => {
      const listenStreams = new ListenStreams();
      const server = await start(listenStreams);
      // The first listen's stream is cut after its first event, as a dropped connection would be, with the
      // SSE `retry` a server (or a proxy in between) may send; later ones pass untouched.
      let listens = 0;
      const cutting = (async (input: RequestInfo | URL, init?: RequestInit) => {
        const response = await fetch(input, init);
        if (!String(init?.body ?? '').includes('"subscriptions/listen"') || ++listens > 1) return response;
        const reader = response.body!.getReader();
        const { value } = await reader.read();
        const body = new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(new TextEncoder().encode('retry: 50\n\n'));
            controller.enqueue(value!);
            void reader.cancel(); // the server sees the stream close: its cancel [CN27]
            controller.close();
          },
        });
        return new Response(body, { status: 200, headers: response.headers });
      }) as typeof fetch;
      // The pause is read off the client's clock, not the wall: load can delay a timer, not change its delay.
      const delays: number[] = [];
      const clock: Clock = {
        now: () => systemClock.now(),
        setTimer: (fn, ms) => {
          delays.push(ms);
          return systemClock.setTimer(fn, ms);
        },
      };
      const client = new HttpClient({ url: server.url, fetch: cutting, clock });
      const seen: unknown[] = [];
      client.onNotification('notifications/tools/list_changed', (params) => seen.push(params));
      await client.connect();
      await until(() => listens === 2 && listenStreams.stats.streams === 1, 'a second listen');
      expect(delays).toContain(50); // the advised retry, not the 1 s default
      expect(delays).not.toContain(1_000);
      expect(listenStreams.stats.cancelled).toBe(1); // the first stream's handler was aborted and freed
      listenStreams.notify('notifications/tools/list_changed');
      await until(() => seen.length === 1, 'the change on the new stream');
      await client.close();
      await until(() => listenStreams.stats.streams === 0, 'the stream to close');
    });

    it('receives a legacy server request and notification that belong to no call (the GET stream)', async () => {
      const listenStreams = new ListenStreams();
      const sessions: Endpoint[] = [];
      const server = await start(listenStreams, sessions);
      const client = new HttpClient({ url: server.url, revision: '2025-11-25' });
      const changes: unknown[] = [];
      client.onRequest('roots/list', () => ({ roots: [{ uri: 'file:///work', name: 'work' }] }));
      client.onNotification('notifications/tools/list_changed', (params) => changes.push(params ?? {}));
      await client.connect();
      const session = sessions[0]!;
      // Nothing in flight from the client: the request can only travel on the GET stream [H19].
      const roots = await session.request('roots/list', {}, { idleMs: 2_000 });
      expect(roots).toEqual({ roots: [{ uri: 'file:///work', name: 'work' }] });
      expect(listenStreams.notify('notifications/tools/list_changed')).toBe(1);
      await until(() => changes.length === 1, 'the list change');
      await sleep(LIMIT_MS * 3); // an open GET stream is contact: the session outlives sessionIdleMs
      expect(server.handler.stats.sessions).toBe(1);
      await client.close();
      await until(() => server.handler.stats.sessions === 0, 'the session to end');
    });
  });
});
