import { LifecycleClient } from '@mcp-inflight/client';
import type { RequestId, Revision } from '@mcp-inflight/core';
import { Endpoint, InflightError, serveLifecycle } from '@mcp-inflight/core';
import type { JsonRpcMessage } from '@mcp-inflight/core/adapter';
import { ManualClock } from '@mcp-inflight/core/testing';
import { describe, expect, it } from 'vitest';
import { ListenLoop } from '../../../client/src/lifecycle/listen-loop.js';
import { ListenStreams } from './listen-streams.js';

/** Lets queued microtasks (handler dispatch, promise settlement) run; never sleeps. */
const drain = async (): Promise<void> => {
  for (let i = 0; i < 20; i++) await Promise.resolve();
};

const LIMIT_MS = 100;

/** A client and a server on one in-memory stdio-like channel; every limit on both sides is LIMIT_MS. */
function pair(serverRevision?: Revision) {
  const clock = new ManualClock();
  const listenStreams = new ListenStreams();
  const toServer: JsonRpcMessage[] = [];
  const toClient: JsonRpcMessage[] = [];
  let connected = true;
  const server: Endpoint = new Endpoint({
    role: 'server',
    transport: 'stdio',
    clock,
    revision: serverRevision,
    handlerIdleMs: LIMIT_MS,
    handlerCeilingMs: LIMIT_MS,
    channel: {
      write: (m) => {
        toClient.push(m as JsonRpcMessage);
        if (connected) endpoint.receiveText(JSON.stringify(m));
      },
    },
  });
  serveLifecycle(server, {
    serverInfo: { name: 'listen-unit', version: '1.0.0' },
    capabilities: { tools: { listChanged: true }, resources: { subscribe: true } },
  });
  listenStreams.serve(server);
  const endpoint: Endpoint = new Endpoint({
    role: 'client',
    transport: 'stdio',
    clock,
    idleMs: LIMIT_MS,
    ceilingMs: LIMIT_MS,
    channel: {
      write: (m) => {
        toServer.push(m as JsonRpcMessage);
        if (connected) server.receiveText(JSON.stringify(m));
      },
    },
  });
  const client = new LifecycleClient(
    endpoint,
    { clientInfo: { name: 'unit', version: '1.0.0' }, capabilities: {} },
    {
      notify: async (method, params) => endpoint.notify(method, params),
      close: async () => endpoint.close(),
    },
  );
  const listens = () => toServer.filter((m) => m.method === 'subscriptions/listen');
  return {
    clock,
    listenStreams,
    server,
    endpoint,
    client,
    toServer,
    toClient,
    listens,
    cut: () => {
      connected = false;
    },
  };
}

async function connected(p: ReturnType<typeof pair>): Promise<void> {
  const connecting = p.client.connect({ revision: '2026-07-28' });
  await drain();
  await connecting;
  await drain();
}

describe('a listen stream over stdio (both sides ours)', () => {
  it('is opened for the list changes a client handles, outlives every limit, and ends on the client cancel', async () => {
    const p = pair();
    const seen: unknown[] = [];
    p.client.onNotification('notifications/tools/list_changed', (params) => seen.push(params));
    await connected(p);
    expect(p.listens()).toHaveLength(1);
    const listen = p.listens()[0]!;
    expect(listen.params).toMatchObject({ notifications: { toolsListChanged: true } });
    expect((listen.params as { _meta: Record<string, unknown> })._meta.progressToken).toBeUndefined();
    // The acknowledgment comes first, tagged with the listen's id [L9 L10].
    expect(p.toClient.at(-1)).toMatchObject({
      method: 'notifications/subscriptions/acknowledged',
      params: {
        _meta: { 'io.modelcontextprotocol/subscriptionId': listen.id },
        notifications: { toolsListChanged: true },
      },
    });
    p.clock.advance(LIMIT_MS * 100); // the client's idle and ceiling, the server's handler limits
    await drain();
    expect(p.listenStreams.stats.streams).toBe(1);
    expect(p.endpoint.stats.outboundInFlight).toBe(1);
    expect(p.server.stats.inboundInFlight).toBe(1);
    expect(p.listenStreams.notify('notifications/tools/list_changed')).toBe(1);
    expect(seen).toEqual([{ _meta: { 'io.modelcontextprotocol/subscriptionId': listen.id } }]);
    expect(p.endpoint.stats.ignoredNotifications).toBe(0); // the acknowledgment was expected
    await p.client.close();
    // stdio has no stream to close: the cancel is the notification [CN27 CN25].
    expect(p.toServer.at(-1)).toMatchObject({
      method: 'notifications/cancelled',
      params: { requestId: listen.id },
    });
    await drain();
    expect(p.listenStreams.stats).toMatchObject({ streams: 0, cancelled: 1 });
    expect(p.server.stats.inboundInFlight).toBe(0);
    expect(p.endpoint.stats).toMatchObject({ outboundInFlight: 0, outboundTokens: 0 });
    expect(p.toClient.filter((m) => m.id === listen.id)).toEqual([]); // no response after a cancel [CN25]
  });

  it('ends gracefully with the response, then notifications/cancelled; the client reads the first and listens again', async () => {
    const p = pair();
    p.client.onNotification('notifications/tools/list_changed', () => {});
    await connected(p);
    const id = p.listens()[0]!.id as RequestId;
    const before = p.toClient.length;
    expect(p.listenStreams.end(p.server, 'draining')).toBe(1);
    await drain();
    expect(p.toClient.slice(before)).toEqual([
      {
        jsonrpc: '2.0',
        id,
        result: { resultType: 'complete', _meta: { 'io.modelcontextprotocol/subscriptionId': id } },
      },
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'draining' } },
    ]);
    expect(p.server.stats).toMatchObject({ inboundInFlight: 0, lateResults: 0 });
    // The client ended it at the response; the cancel after it referenced a finished request [CN11].
    expect(p.endpoint.stats).toMatchObject({
      outboundInFlight: 0,
      lateResponses: 0,
      errors: 0,
      ignoredCancels: 1,
    });
    p.clock.advance(999);
    await drain();
    expect(p.listens()).toHaveLength(1);
    p.clock.advance(1);
    await drain();
    expect(p.listens()).toHaveLength(2); // a server keeps no subscription: the client asks again [LS4 LS5]
    await p.client.close();
  });

  it('accepts notifications/cancelled alone as the end, and a response alone', async () => {
    const p = pair();
    p.client.onNotification('notifications/tools/list_changed', () => {});
    await connected(p);
    p.cut(); // from here the test plays the server
    const first = p.listens()[0]!.id as RequestId;
    p.endpoint.receive({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: first } });
    await drain();
    expect(p.endpoint.stats).toMatchObject({ outboundInFlight: 0, ignoredCancels: 0, errors: 0 });
    p.clock.advance(1_000);
    await drain();
    const second = p.listens()[1]!.id as RequestId;
    expect(second).not.toBe(first);
    p.endpoint.receive({ jsonrpc: '2.0', id: second, result: { resultType: 'complete' } });
    await drain();
    expect(p.endpoint.stats).toMatchObject({ outboundInFlight: 0, lateResponses: 0, errors: 0 });
    p.clock.advance(1_000);
    await drain();
    expect(p.listens()).toHaveLength(3);
    await p.client.close();
  });

  it('sends no listen on a legacy revision, and a legacy client asking for one gets -32601', async () => {
    const p = pair();
    p.client.onNotification('notifications/tools/list_changed', () => {});
    const connecting = p.client.connect({ revision: '2025-06-18' });
    await drain();
    await connecting;
    await drain();
    expect(p.listens()).toHaveLength(0);
    const asked = p.endpoint.request('subscriptions/listen', { notifications: { toolsListChanged: true } });
    await drain();
    await expect(asked).rejects.toMatchObject({ code: -32601 });
    // A list change reaches the legacy connection unasked, as its revision has it.
    expect(p.listenStreams.notify('notifications/tools/list_changed')).toBe(1);
    expect(p.toClient.at(-1)).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/tools/list_changed',
      params: {},
    });
    expect(p.listenStreams.notify('notifications/resources/updated', { uri: 'file:///x' })).toBe(0);
    await p.client.close();
  });

  it('asks only for what the server declares it can send', async () => {
    const p = pair();
    p.client.onNotification('notifications/prompts/list_changed', () => {}); // not declared: not asked
    await connected(p);
    expect(p.listens()).toHaveLength(0);
    p.client.onNotification('notifications/tools/list_changed', () => {});
    await drain();
    expect(p.listens().map((m) => m.params)).toMatchObject([{ notifications: { toolsListChanged: true } }]);
    expect((p.listens()[0]!.params as { notifications: object }).notifications).not.toHaveProperty(
      'promptsListChanged',
    );
    await p.client.close();
  });

  it('adds a subscribed resource to the filter, and replaces the stream when the filter changes', async () => {
    const p = pair();
    await connected(p);
    expect(p.listens()).toHaveLength(0); // nothing handled, nothing asked: no stream
    const updates: unknown[] = [];
    p.client.onNotification('notifications/resources/updated', (params) => updates.push(params?.uri));
    expect(p.listens()).toHaveLength(0);
    await p.client.subscribeResource('file:///a.md');
    await drain();
    expect(p.listens()).toHaveLength(1);
    await p.client.subscribeResource('file:///b.md');
    await drain();
    expect(p.listens()).toHaveLength(2);
    expect(p.listens()[1]!.params).toMatchObject({
      notifications: { resourceSubscriptions: ['file:///a.md', 'file:///b.md'] },
    });
    expect(p.listenStreams.stats.streams).toBe(1); // the first one was cancelled
    expect(p.listenStreams.notify('notifications/resources/updated', { uri: 'file:///b.md' })).toBe(1);
    expect(p.listenStreams.notify('notifications/resources/updated', { uri: 'file:///c.md' })).toBe(0);
    expect(updates).toEqual(['file:///b.md']);
    await p.client.unsubscribeResource('file:///a.md');
    await p.client.unsubscribeResource('file:///b.md');
    await drain();
    expect(p.listenStreams.stats.streams).toBe(0); // an empty filter: no stream at all
    await p.client.close();
  });
});

describe('ListenLoop', () => {
  it('re-sends listen after a drop, after the server retry if it gave one, else 1 s doubling', async () => {
    const p = pair();
    await connected(p);
    let retryMs: number | undefined;
    const loop = new ListenLoop({
      endpoint: p.endpoint,
      filter: () => ({ toolsListChanged: true }),
      retryMs: () => retryMs,
    });
    // A dropped stream, as both sides see it: the client's request fails, the server's handler is aborted.
    const drop = () => {
      const id = p.listens().at(-1)!.id as RequestId;
      p.endpoint.failOutbound(id, new InflightError('UPSTREAM_CLOSED'));
      p.server.abortInbound(id, new InflightError('DISCONNECTED'));
    };
    loop.refresh();
    await drain();
    expect(loop.opened).toBe(1);
    drop();
    await drain();
    p.clock.advance(999);
    await drain();
    expect(loop.opened).toBe(1);
    p.clock.advance(1);
    await drain();
    expect(loop.opened).toBe(2);
    drop();
    await drain();
    p.clock.advance(1_999);
    await drain();
    expect(loop.opened).toBe(2); // a second failure in a row waits twice as long
    p.clock.advance(1);
    await drain();
    expect(loop.opened).toBe(3);
    retryMs = 50; // the server's advice wins [H18]
    drop();
    await drain();
    p.clock.advance(50);
    await drain();
    expect(loop.opened).toBe(4);
    loop.stop();
    await drain();
    p.clock.advance(60_000);
    await drain();
    expect(loop.opened).toBe(4);
    expect(p.endpoint.stats.outboundInFlight).toBe(0);
    expect(p.listenStreams.stats.streams).toBe(0);
    await p.client.close();
  });
});

describe('ListenStreams', () => {
  it('forgets legacy endpoints once they close', () => {
    const listenStreams = new ListenStreams();
    const endpoints = Array.from(
      { length: 200 },
      () =>
        new Endpoint({
          role: 'server',
          transport: 'stdio',
          revision: '2025-06-18',
          channel: { write: () => {} },
        }),
    );
    for (const endpoint of endpoints) {
      listenStreams.serve(endpoint);
      endpoint.close();
    }
    expect(listenStreams.stats.legacyEndpoints).toBeLessThan(130); // swept as the set doubles (rule 8)
    expect(listenStreams.notify('notifications/tools/list_changed')).toBe(0);
    expect(listenStreams.stats.legacyEndpoints).toBe(0);
  });

  it('never remembers a stateless 2026-07-28 endpoint', () => {
    const listenStreams = new ListenStreams();
    listenStreams.serve(
      new Endpoint({
        role: 'server',
        transport: 'http',
        revision: '2026-07-28',
        channel: { write: () => {} },
      }),
    );
    expect(listenStreams.stats.legacyEndpoints).toBe(0);
  });
});
