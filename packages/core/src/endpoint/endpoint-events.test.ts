import { describe, expect, it } from 'vitest';
import { ManualClock } from '../clock/manual-clock.js';
import { InflightError } from '../errors/inflight-error.js';
import type { TransportKind } from '../policy/era-cancel-policy.js';
import { ProgressRelay } from '../relay/progress-relay.js';
import { LATEST_LEGACY_REVISION } from '../revisions/revisions.js';
import type { Channel } from './channel.js';
import { Endpoint } from './endpoint.js';
import type { EndpointEvents } from './events.js';

const drain = async (): Promise<void> => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
};

type Seen = [keyof EndpointEvents, ...unknown[]];

/** Records every event of an endpoint as [name, ...args]. */
function record(endpoint: Endpoint): Seen[] {
  const seen: Seen[] = [];
  const names: (keyof EndpointEvents)[] = [
    'request-started',
    'request-ended',
    'progress-accepted',
    'progress-dropped',
    'cancel-sent',
    'cancel-received',
    'deadline-fired',
    'late',
    'error',
  ];
  for (const name of names) endpoint.events.on(name, (...args: unknown[]) => seen.push([name, ...args]));
  return seen;
}

function pair(transport: TransportKind = 'stdio') {
  const clock = new ManualClock();
  const relay = new ProgressRelay({ clock, minIntervalMs: 0 });
  let client!: Endpoint;
  let server!: Endpoint;
  const serverChannel: Channel = { write: (m) => client.receiveText(JSON.stringify(m)) };
  const clientChannel: Channel = {
    write: (m) => server.receiveText(JSON.stringify(m)),
    cancelRequest: (id, notification) =>
      notification
        ? server.receiveText(JSON.stringify(notification))
        : server.abortInbound(id, new InflightError('DISCONNECTED')),
  };
  server = new Endpoint({ role: 'server', transport, channel: serverChannel, clock, progressRelay: relay });
  client = new Endpoint({ role: 'client', transport, channel: clientChannel, clock, progressRelay: relay });
  return { clock, client, server };
}

describe('Endpoint.events', () => {
  it('a call with progress: started, accepted and dropped progress on both sides, ended with its result', async () => {
    const { client, server } = pair();
    const clientSeen = record(client);
    const serverSeen = record(server);
    server.setRequestHandler('tools/call', (_params, ctx) => {
      ctx.progress(1, 3, 'one');
      ctx.progress(1, 3); // not increasing: dropped
      ctx.progress(2, 3);
      return { content: [] };
    });
    await client.request('tools/call', { name: 'work' }, { onprogress: () => {} });
    await drain();
    expect(serverSeen).toEqual([
      ['request-started', 'inbound', 0, 'tools/call', LATEST_LEGACY_REVISION],
      ['progress-accepted', 'inbound', 0, 1, 3, 'one'],
      ['progress-dropped', 'inbound', 0, 1, 'not-increasing'],
      ['progress-accepted', 'inbound', 0, 2, 3, undefined],
      ['request-ended', 'inbound', 0, 'tools/call', 'result', undefined],
    ]);
    expect(clientSeen).toEqual([
      ['request-started', 'outbound', 0, 'tools/call', LATEST_LEGACY_REVISION],
      ['progress-accepted', 'outbound', 0, 1, 3, 'one'],
      ['progress-accepted', 'outbound', 0, 2, 3, undefined],
      ['request-ended', 'outbound', 0, 'tools/call', 'result', undefined],
    ]);
  });

  it("a user's cancel: cancel-sent on the client, cancel-received on the server, both ended as aborted", async () => {
    const { client, server } = pair();
    const clientSeen = record(client);
    const serverSeen = record(server);
    server.setRequestHandler(
      'tools/call',
      (_params, ctx) => new Promise((resolve) => ctx.signal.addEventListener('abort', resolve)),
    );
    const stop = new AbortController();
    const call = client.request('tools/call', {}, { signal: stop.signal }).catch((e: unknown) => e);
    await drain();
    stop.abort('user pressed stop');
    const error = (await call) as InflightError;
    await drain();
    expect(error.code).toBe('CANCELLED');
    expect(clientSeen.map((e) => e[0])).toEqual(['request-started', 'request-ended', 'cancel-sent']);
    expect(clientSeen[2]).toEqual(['cancel-sent', 0, 'tools/call', error, 'notification']);
    expect(serverSeen.map((e) => e[0])).toEqual([
      'request-started',
      'cancel-received',
      'request-ended',
      'late',
    ]);
    expect(serverSeen[1]).toEqual(['cancel-received', 0, 'tools/call', error.wireReason()]);
    expect(serverSeen[2]?.slice(0, 5)).toEqual(['request-ended', 'inbound', 0, 'tools/call', 'aborted']);
    expect(serverSeen[3]).toEqual(['late', 'result', 0]);
  });

  it('deadlines: the idle limit fires on the client (close-stream on 2026-07-28 HTTP), the ceiling on the server', async () => {
    const { clock, client, server } = pair('http');
    const clientSeen = record(client);
    server.setRequestHandler('tools/call', () => new Promise(() => {}));
    const call = client
      .request('tools/call', {}, { idleMs: 100, ceilingMs: 1_000, revision: '2026-07-28' })
      .catch((e: unknown) => e);
    await drain();
    clock.advance(100);
    const error = (await call) as InflightError;
    expect(error.code).toBe('IDLE_TIMEOUT');
    expect(clientSeen.map((e) => e[0])).toEqual([
      'request-started',
      'deadline-fired',
      'request-ended',
      'cancel-sent',
    ]);
    expect(clientSeen[1]).toEqual(['deadline-fired', 'outbound', 0, 'tools/call', error]);
    expect(clientSeen[3]).toEqual(['cancel-sent', 0, 'tools/call', error, 'close-stream']);

    const handlerSide = new Endpoint({
      role: 'server',
      transport: 'stdio',
      channel: { write: () => {} },
      clock,
      handlerCeilingMs: 50,
    });
    const serverSeen = record(handlerSide);
    handlerSide.setRequestHandler('slow', () => new Promise(() => {}));
    handlerSide.receive({ jsonrpc: '2.0', id: 'a', method: 'slow' });
    await drain();
    clock.advance(50);
    expect(serverSeen.map((e) => e[0])).toEqual(['request-started', 'deadline-fired', 'request-ended']);
    expect(serverSeen[1]?.[4]).toMatchObject({ code: 'CEILING' });
  });

  it('late messages and errors: a response and progress for nothing in flight, a notification handler that throws', () => {
    const endpoint = new Endpoint({ role: 'client', transport: 'stdio', channel: { write: () => {} } });
    const seen = record(endpoint);
    endpoint.receive({ jsonrpc: '2.0', id: 99, result: {} });
    endpoint.receive({
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken: 7, progress: 1 },
    });
    const boom = new Error('listener bug');
    endpoint.setNotificationHandler('notifications/message', () => {
      throw boom;
    });
    endpoint.receive({ jsonrpc: '2.0', method: 'notifications/message', params: {} });
    expect(seen).toEqual([
      ['late', 'response', 99],
      ['late', 'progress', 7],
      ['error', boom, 'notification handler for notifications/message'],
    ]);
  });

  it('emits nothing and makes no emitter until someone reads `events`', async () => {
    const { client, server } = pair();
    server.setRequestHandler('tools/call', (_params, ctx) => {
      ctx.progress(1);
      return {};
    });
    await client.request('tools/call', {}, { onprogress: () => {} });
    // The emitter is made on first read, empty: nothing was queued for it.
    expect(client.events.eventNames()).toEqual([]);
    expect(server.events).toBe(server.events);
  });
});

describe('Endpoint.drain', () => {
  it('resolves true once every request in flight has settled, and removes its listener', async () => {
    const { client, server } = pair();
    let finish!: () => void;
    server.setRequestHandler(
      'tools/call',
      () => new Promise<object>((resolve) => (finish = () => resolve({}))),
    );
    const call = client.request('tools/call', {});
    await drain();
    const drained = server.drain(1_000);
    const clientDrained = client.drain(1_000);
    finish();
    await call;
    expect([await drained, await clientDrained]).toEqual([true, true]);
    expect([
      server.events.listenerCount('request-ended'),
      client.events.listenerCount('request-ended'),
    ]).toEqual([0, 0]);
    expect(await server.drain(0)).toBe(true); // nothing in flight: at once
  });

  it('resolves false when the grace passes with work still running, which then goes on', async () => {
    const { clock, client, server } = pair();
    server.setRequestHandler('tools/call', () => new Promise(() => {}));
    const call = client.request('tools/call', {}, { idleMs: 10_000 }).catch((e: unknown) => e);
    await drain();
    const drained = server.drain(500);
    clock.advance(499);
    await drain();
    expect(server.stats.inboundInFlight).toBe(1);
    clock.advance(1);
    expect(await drained).toBe(false);
    expect(server.stats.inboundInFlight).toBe(1);
    expect(server.events.listenerCount('request-ended')).toBe(0);
    server.shutdown('grace over');
    // The peer's SHUTDOWN answer reaches the client as the same InflightError a local one would be.
    expect(await call).toMatchObject({ code: 'SHUTDOWN', origin: 'remote' });
    expect(clock.pendingTimers).toBe(0);
  });

  it('waits for nothing when the grace is not a positive number, and leaves no listener or timer', async () => {
    const { clock, client, server } = pair();
    server.setRequestHandler('tools/call', () => new Promise(() => {}));
    void client.request('tools/call', {}, { idleMs: 10_000 }).catch(() => {});
    await drain();
    const timers = clock.pendingTimers;
    expect([await server.drain(0), await server.drain(-1), await server.drain(Number.NaN)]).toEqual([
      false,
      false,
      false,
    ]);
    expect(server.stats.inboundInFlight).toBe(1);
    expect(server.events.listenerCount('request-ended')).toBe(0);
    expect(clock.pendingTimers).toBe(timers);
    client.close();
  });

  it('arms one timer on the clock and clears it when the work ends first; an Infinity grace arms none', async () => {
    const { clock, client, server } = pair();
    const finish: (() => void)[] = [];
    server.setRequestHandler(
      'tools/call',
      () => new Promise<object>((resolve) => finish.push(() => resolve({}))),
    );
    const first = client.request('tools/call', {});
    await drain();
    const timers = clock.pendingTimers;
    const bounded = server.drain(1_000);
    expect(clock.pendingTimers).toBe(timers + 1);
    finish.shift()?.();
    await first;
    expect(await bounded).toBe(true);
    expect(clock.pendingTimers).toBe(0); // the grace's timer went with the wait (and the call's deadline with it)

    const limits = { idleMs: Number.POSITIVE_INFINITY, ceilingMs: Number.POSITIVE_INFINITY };
    const second = client.request('tools/call', {}, limits);
    await drain();
    let settled = false;
    const unbounded = server.drain(Number.POSITIVE_INFINITY).then((drained) => {
      settled = true;
      return drained;
    });
    expect(clock.pendingTimers).toBe(0);
    clock.advance(30 * 24 * 3_600_000); // past any timer a runtime can arm (about 24.8 days)
    await drain();
    expect(settled).toBe(false);
    finish.shift()?.();
    await second;
    expect(await unbounded).toBe(true);
    expect(server.events.listenerCount('request-ended')).toBe(0);
  });
});
