// The proxy's log: call events keep a huge `arguments` short, and the endpoints' typed event streams feed
// the log with cancels, deadlines and late messages. Real core endpoints joined in memory, ManualClock.
import { ManualClock } from '@mcp-inflight/core/testing';
import { describe, expect, it } from 'vitest';
import { CallRelay } from '../src/call-relay.js';
import type { EndpointLogEvent } from '../src/endpoint-log.js';
import { logEndpointEvents } from '../src/endpoint-log.js';
import {
  argumentsForLog,
  type CallEvent,
  formatEvent,
  LOG_ARGUMENTS_MAX_CHARS,
  type ProxyEvent,
} from '../src/events.js';
import { UpstreamLink } from '../src/upstream-link.js';
import { memoryUpstream, settle, wire } from './memory.js';
import { serveWork, type WorkRecord } from './memory-server.js';

function proxy(idleMs = 1_000, logArguments = true) {
  const clock = new ManualClock();
  const records: WorkRecord[] = [];
  const events: ProxyEvent[] = [];
  const log = (e: ProxyEvent) => events.push(e);
  const link = new UpstreamLink(async () => {
    const w = wire({ clock, transport: 'stdio', revision: '2025-06-18', serverMinIntervalMs: 0 });
    serveWork(w.server, clock, records);
    const upstream = memoryUpstream(w, '2025-06-18');
    logEndpointEvents(upstream.endpoint, `upstream #${link.starts}`, log);
    return upstream;
  }, log);
  const relay = new CallRelay(link, {
    idleMs,
    ceilingMs: 10_000,
    clock,
    logArguments,
    onEvent: log,
    onAttach: (endpoint, host) => logEndpointEvents(endpoint, host, log),
  });
  const host = () => {
    const w = wire({ clock, transport: 'stdio', revision: '2025-06-18' });
    relay.attach(w.server, 'stdio');
    return w;
  };
  const of = <T extends ProxyEvent['type']>(type: T) =>
    events.filter((e): e is Extract<ProxyEvent, { type: T }> => e.type === type);
  return { clock, host, events, of, relay, records };
}

describe('call events: arguments are cut for the log', () => {
  it('a 1 MiB argument becomes 200 characters of JSON and a marker; the JSON log line stays short', async () => {
    const p = proxy();
    const h = p.host();
    const blob = 'x'.repeat(1024 * 1024);
    const call = h.client.request('tools/call', {
      name: 'work',
      arguments: { steps: 1, intervalMs: 10, tag: blob },
    });
    await settle();
    p.clock.advance(10);
    await call;
    const [event] = p.of('call') as CallEvent[];
    const expectedJson = JSON.stringify({ steps: 1, intervalMs: 10, tag: blob });
    expect(event?.arguments).toBe(
      `${expectedJson.slice(0, LOG_ARGUMENTS_MAX_CHARS)}…[cut: ${expectedJson.length} chars]`,
    );
    expect(JSON.stringify(event).length).toBeLessThan(600);
    expect(formatEvent(event!).length).toBeLessThan(400);
  });

  it('without logArguments (the default) a call event carries no arguments', async () => {
    const p = proxy(1_000, false);
    const call = p
      .host()
      .client.request('tools/call', { name: 'work', arguments: { steps: 1, intervalMs: 10, tag: 'secret' } });
    await settle();
    p.clock.advance(10);
    await call;
    const [event] = p.of('call') as CallEvent[];
    expect(event?.name).toBe('work');
    expect('arguments' in (event ?? {})).toBe(false);
  });

  it('arguments that fit are logged as they are', () => {
    const small = { steps: 2, intervalMs: 5, tag: 'a' };
    expect(argumentsForLog(small)).toBe(small);
    const edge = { t: 'y'.repeat(LOG_ARGUMENTS_MAX_CHARS - 8) }; // exactly the limit in JSON
    expect(JSON.stringify(edge).length).toBe(LOG_ARGUMENTS_MAX_CHARS);
    expect(argumentsForLog(edge)).toBe(edge);
    expect(argumentsForLog({ t: `${edge.t}z` })).toMatch(/…\[cut: 201 chars\]$/);
  });
});

describe('endpoint events in the log', () => {
  it("a host's cancel: the host leg reports it received, the upstream leg that it sent the cancel on", async () => {
    const p = proxy();
    const h = p.host();
    const stop = new AbortController();
    const call = h.client
      .request(
        'tools/call',
        { name: 'work', arguments: { steps: 5, intervalMs: 100, tag: 'c' } },
        { signal: stop.signal },
      )
      .catch((e: unknown) => e);
    await settle();
    stop.abort('user pressed stop');
    await call;
    await settle();
    const logged = p.of('endpoint') as EndpointLogEvent[];
    expect(logged).toContainEqual({
      type: 'endpoint',
      leg: 'stdio',
      event: 'cancel-received',
      id: 0,
      method: 'tools/call',
      reason: 'CANCELLED: cancelled by the caller: user pressed stop',
    });
    const sent = logged.find((e) => e.event === 'cancel-sent');
    expect(sent).toMatchObject({
      leg: 'upstream #1',
      method: 'tools/call',
      cause: 'CANCELLED',
      how: 'notification',
    });
    // The host's reason goes on as it came, not wrapped in the proxy's own "cancelled by the caller".
    expect(formatEvent(sent!)).toBe(
      'proxy: upstream #1: cancelled tools/call id 0 (notification): CANCELLED: cancelled by the caller: user pressed stop',
    );
    expect(p.records[0]?.end).toMatchObject({
      code: 'CANCELLED',
      message: 'cancelled by the caller: user pressed stop',
    });
  });

  it("the proxy's idle limit: the upstream leg reports the deadline and the cancel it sent", async () => {
    const p = proxy(300);
    const h = p.host();
    const call = h.client
      .request('tools/call', { name: 'work', arguments: { steps: 1, intervalMs: 5_000, tag: 'slow' } })
      .catch((e: unknown) => e);
    await settle();
    p.clock.advance(300);
    await call;
    await settle();
    const upstream = (p.of('endpoint') as EndpointLogEvent[]).filter((e) => e.leg === 'upstream #1');
    expect(upstream.map((e) => e.event)).toEqual(['deadline-fired', 'cancel-sent']);
    expect(upstream[0]).toMatchObject({ direction: 'outbound', method: 'tools/call', cause: 'IDLE_TIMEOUT' });
    expect(formatEvent(upstream[0]!)).toMatch(
      /^proxy: upstream #1: IDLE_TIMEOUT ended outbound tools\/call id 0: idle limit of 300 ms/,
    );
  });

  it('stops logging when told to', () => {
    const clock = new ManualClock();
    const w = wire({ clock, transport: 'stdio', revision: '2025-06-18' });
    const seen: EndpointLogEvent[] = [];
    const stop = logEndpointEvents(w.client, 'upstream #1', (e) => seen.push(e));
    w.client.receive({ jsonrpc: '2.0', id: 41, result: {} }); // a response for nothing in flight
    stop();
    w.client.receive({ jsonrpc: '2.0', id: 42, result: {} });
    expect(seen).toEqual([
      { type: 'endpoint', leg: 'upstream #1', event: 'late', kind: 'response', key: 41 },
    ]);
    expect(w.client.events.eventNames()).toEqual([]);
  });
});

describe('CallRelay.idle, the wait of a graceful shutdown', () => {
  it('settles at once with nothing in flight, and when the last call in flight ends', async () => {
    const p = proxy();
    await p.relay.idle(); // nothing in flight
    const h = p.host();
    const call = h.client.request('tools/call', {
      name: 'work',
      arguments: { steps: 2, intervalMs: 100, tag: 'i' },
    });
    await settle();
    let idle = false;
    void p.relay.idle().then(() => {
      idle = true;
    });
    p.clock.advance(100);
    await settle();
    expect([p.relay.inFlight, idle]).toEqual([1, false]);
    p.clock.advance(100);
    await call;
    await settle();
    expect([p.relay.inFlight, idle]).toEqual([0, true]);
  });
});
