// The proxy's relay on real core endpoints joined in memory, timed by a ManualClock (no sleeping).
import { InflightError, type Revision, type TransportKind } from '@mcp-inflight/core';
import { ManualClock } from '@mcp-inflight/core/testing';
import { describe, expect, it } from 'vitest';
import { CallRelay } from '../src/call-relay.js';
import type { CallEvent, ProxyEvent } from '../src/events.js';
import { UpstreamLink } from '../src/upstream-link.js';
import { memoryUpstream, progressOf, settle, type Wire, wire } from './memory.js';
import { serveWork, type WorkRecord } from './memory-server.js';

interface Setup {
  upstreamTransport?: TransportKind;
  upstreamRevision?: Revision;
  idleMs?: number;
  ceilingMs?: number;
  upstreamMinIntervalMs?: number;
}

function proxy(setup: Setup = {}) {
  const clock = new ManualClock();
  const records: WorkRecord[] = [];
  const upstreams: Array<ReturnType<typeof memoryUpstream>> = [];
  const upstreamWires: Wire[] = [];
  const upstreamRevision = setup.upstreamRevision ?? '2025-06-18';
  const events: ProxyEvent[] = [];
  const link = new UpstreamLink(
    async () => {
      const w = wire({
        clock,
        transport: setup.upstreamTransport ?? 'stdio',
        revision: upstreamRevision,
        serverMinIntervalMs: setup.upstreamMinIntervalMs ?? 0,
      });
      serveWork(w.server, clock, records);
      const upstream = memoryUpstream(w, upstreamRevision);
      upstreamWires.push(w);
      upstreams.push(upstream);
      return upstream;
    },
    (e) => events.push(e),
  );
  const relay = new CallRelay(link, {
    idleMs: setup.idleMs ?? 1_000,
    ceilingMs: setup.ceilingMs ?? 10_000,
    clock,
    onEvent: (e) => events.push(e),
  });
  const host = (transport: TransportKind, revision: Revision, label = 'host') => {
    const w = wire({ clock, transport, revision });
    relay.attach(w.server, label);
    return w;
  };
  const calls = () => events.filter((e): e is CallEvent => e.type === 'call');
  return { clock, records, upstreams, upstreamWires, link, relay, host, events, calls };
}

const reasonOf = (message: Record<string, unknown> | undefined): string =>
  String((message?.params as { reason?: unknown } | undefined)?.reason);

const work = (steps: number, intervalMs: number, tag: string) => ({
  name: 'work',
  arguments: { steps, intervalMs, tag },
});

describe('progress relay', () => {
  it('relays upstream progress to the host’s own token, increasing, and none after the result', async () => {
    const p = proxy();
    const h = p.host('stdio', '2025-06-18');
    const seen: number[] = [];
    const call = h.client.request('tools/call', work(5, 100, 'a'), {
      onprogress: (x) => seen.push(x.progress),
    });
    await settle();
    for (let i = 0; i < 5; i++) {
      p.clock.advance(100);
      await settle();
    }
    await expect(call).resolves.toEqual({ content: [{ type: 'text', text: 'a done' }] });
    expect(seen).toEqual([1, 2, 3, 4, 5]);
    // The host's wire: its own token (0), the proxy's upstream token never leaks, result last.
    const hostProgress = progressOf(h.toClient);
    expect(hostProgress.map((x) => x.progressToken)).toEqual([0, 0, 0, 0, 0]);
    expect(hostProgress.map((x) => x.message)).toEqual([
      'a step 1',
      'a step 2',
      'a step 3',
      'a step 4',
      'a step 5',
    ]);
    expect(h.toClient.at(-1)).toMatchObject({ id: 0, result: {} });
    const call1 = p.calls()[0];
    expect(call1).toMatchObject({ outcome: 'completed', progressIn: 5, progressOut: 5, name: 'work' });
  });

  it('passes message only to hosts whose revision has it (2024-11-05 has none)', async () => {
    const p = proxy();
    const old = p.host('stdio', '2024-11-05');
    const call = old.client.request('tools/call', work(2, 100, 'old'), {});
    await settle();
    for (let i = 0; i < 2; i++) {
      p.clock.advance(100);
      await settle();
    }
    await call;
    expect(progressOf(old.toClient)).toEqual([
      { progressToken: 0, progress: 1, total: 2 },
      { progressToken: 0, progress: 2, total: 2 },
    ]);
  });

  it('coalesces a burst and flushes the latest value before the result', async () => {
    const p = proxy();
    const h = p.host('stdio', '2025-06-18');
    // 20 steps 1 ms apart: the proxy's host-facing route passes the first, then at most one per 50 ms.
    const call = h.client.request('tools/call', work(20, 1, 'burst'), {});
    await settle();
    for (let i = 0; i < 20; i++) {
      p.clock.advance(1);
      await settle(5);
    }
    await call;
    const values = progressOf(h.toClient).map((x) => x.progress);
    expect(values[0]).toBe(1);
    expect(values.at(-1)).toBe(20);
    expect(values.length).toBeLessThan(5);
    expect([...values].sort((a, b) => Number(a) - Number(b))).toEqual(values);
    const resultAt = h.toClient.findIndex((m) => m.id === 0);
    expect(h.toClient.slice(resultAt + 1).filter((m) => m.method === 'notifications/progress')).toEqual([]);
  });

  it('strips the host’s token and reserved _meta keys; the upstream sees the proxy’s own token', async () => {
    const p = proxy();
    const h = p.host('http', '2026-07-28');
    const call = h.client.request('tools/call', { ...work(1, 10, 'm'), _meta: { trace: 'keep-me' } }, {});
    await settle();
    p.clock.advance(10);
    await settle();
    const result = (await call) as Record<string, unknown>;
    expect(result.resultType).toBe('complete'); // a 2026-07-28 host gets resultType [L7]
    const meta = p.records[0]?.meta as Record<string, unknown>;
    expect(meta.trace).toBe('keep-me');
    expect(Object.keys(meta).filter((k) => k.startsWith('io.modelcontextprotocol/'))).toEqual([]);
    expect(meta.progressToken).toBe(p.records[0]?.token);
  });
});

describe('cancellation, each leg on its own terms', () => {
  it('a legacy host’s notifications/cancelled cancels a stdio upstream with the notification and its reason', async () => {
    const p = proxy();
    const h = p.host('stdio', '2025-06-18');
    const stop = new AbortController();
    const call = h.client.request('tools/call', work(10, 100, 'c'), { signal: stop.signal });
    await settle();
    p.clock.advance(100);
    await settle();
    stop.abort('user pressed stop');
    await expect(call).rejects.toMatchObject({ code: 'CANCELLED' });
    await settle();
    const cancels = p.upstreamWires[0]?.toServer.filter((m) => m.method === 'notifications/cancelled') ?? [];
    expect(cancels).toHaveLength(1);
    expect(String(reasonOf(cancels[0]))).toMatch(/^CANCELLED: .*user pressed stop/);
    expect(p.records[0]?.end).toMatchObject({
      kind: 'aborted',
      message: expect.stringContaining('user pressed stop'),
    });
    // No response to the host after its own cancel [CN9], and nothing after it at all.
    expect(h.toClient.filter((m) => m.id !== undefined)).toEqual([]);
    expect(p.calls()[0]).toMatchObject({ outcome: 'cancelled', cause: 'CANCELLED', progressIn: 1 });
    expect(p.relay.inFlight).toBe(0);
  });

  it('a 2026-07-28 host closing its HTTP stream cancels a legacy stdio upstream with the notification', async () => {
    const p = proxy({ upstreamTransport: 'stdio', upstreamRevision: '2025-11-25' });
    const h = p.host('http', '2026-07-28');
    const stop = new AbortController();
    const call = h.client.request('tools/call', work(10, 100, 'd'), { signal: stop.signal });
    await settle();
    stop.abort();
    await expect(call).rejects.toMatchObject({ code: 'CANCELLED' });
    await settle();
    expect(h.closedStreams).toEqual([0]);
    expect(h.toServer.filter((m) => m.method === 'notifications/cancelled')).toEqual([]); // the host sent none [CN22]
    const cancels = p.upstreamWires[0]?.toServer.filter((m) => m.method === 'notifications/cancelled') ?? [];
    expect(cancels).toHaveLength(1);
    expect(reasonOf(cancels[0])).toMatch(/^DISCONNECTED/);
    expect(p.records[0]?.end).toMatchObject({ kind: 'aborted' });
  });

  it('a legacy host’s notification cancels a 2026-07-28 HTTP upstream by closing that stream', async () => {
    const p = proxy({ upstreamTransport: 'http', upstreamRevision: '2026-07-28' });
    const h = p.host('stdio', '2024-11-05');
    const stop = new AbortController();
    const call = h.client.request('tools/call', work(10, 100, 'e'), { signal: stop.signal });
    await settle();
    stop.abort('enough');
    await expect(call).rejects.toMatchObject({ code: 'CANCELLED' });
    await settle();
    const up = p.upstreamWires[0];
    expect(up?.closedStreams).toEqual([0]);
    expect(up?.toServer.filter((m) => m.method === 'notifications/cancelled')).toEqual([]);
    expect(p.records[0]?.end).toMatchObject({ kind: 'aborted', code: 'DISCONNECTED' });
  });

  it('host A cannot cancel or observe host B’s call, though both use id 0 and token 0', async () => {
    const p = proxy();
    const a = p.host('http', '2025-06-18', 'A');
    const b = p.host('http', '2025-06-18', 'B');
    const seenA: unknown[] = [];
    const seenB: unknown[] = [];
    const callA = a.client.request('tools/call', work(2, 100, 'A'), {
      onprogress: (x) => seenA.push(x.message),
    });
    const callB = b.client.request('tools/call', work(4, 100, 'B'), {
      onprogress: (x) => seenB.push(x.message),
    });
    await settle();
    for (let i = 0; i < 2; i++) {
      p.clock.advance(100);
      await settle();
    }
    await callA;
    // A, finished, now sends a cancel for "its" id 0: B's call 0 must not notice.
    a.client.notify('notifications/cancelled', { requestId: 0, reason: 'not yours' });
    await settle();
    for (let i = 0; i < 2; i++) {
      p.clock.advance(100);
      await settle();
    }
    await expect(callB).resolves.toMatchObject({ content: [{ text: 'B done' }] });
    expect(seenA).toEqual(['A step 1', 'A step 2']);
    expect(seenB).toEqual(['B step 1', 'B step 2', 'B step 3', 'B step 4']);
    // Upstream saw two distinct ids and two distinct tokens, minted by the proxy.
    const ids = p.upstreamWires[0]?.toServer.filter((m) => m.method === 'tools/call').map((m) => m.id);
    expect(new Set(ids).size).toBe(2);
    expect(new Set(p.records.map((r) => r.token)).size).toBe(2);
  });
});

describe('deadlines', () => {
  it('the idle limit ends a silent call, cancels upstream with the reason, and tells the host which limit', async () => {
    const p = proxy({ idleMs: 500 });
    const h = p.host('stdio', '2025-06-18');
    const call = h.client.request('tools/call', work(1, 5_000, 'silent'), {});
    // The proxy's limit reaches the host as the InflightError a local one would be (rule 11).
    const failed = expect(call).rejects.toSatisfy(
      (e: unknown) =>
        InflightError.is(e) &&
        e.origin === 'remote' &&
        e.code === 'IDLE_TIMEOUT' &&
        e.toJsonRpc().code === -32001 &&
        e.details.limitMs === 500,
    );
    await settle();
    p.clock.advance(499);
    await settle();
    expect(p.records[0]?.end).toBeUndefined();
    p.clock.advance(1);
    await settle();
    await failed;
    const cancel = p.upstreamWires[0]?.toServer.find((m) => m.method === 'notifications/cancelled');
    expect(reasonOf(cancel)).toMatch(/^IDLE_TIMEOUT: idle limit of 500 ms/);
    expect(p.calls()[0]).toMatchObject({ outcome: 'cancelled', cause: 'IDLE_TIMEOUT' });
  });

  it('progress keeps the idle window open, and the ceiling ends a chatty call anyway', async () => {
    const p = proxy({ idleMs: 500, ceilingMs: 2_000 });
    const h = p.host('stdio', '2025-06-18');
    const call = h.client.request('tools/call', work(1_000, 200, 'chatty'), {});
    const failed = expect(call).rejects.toMatchObject({
      code: 'CEILING',
      origin: 'remote',
      details: { limitMs: 2_000 },
    });
    await settle();
    for (let t = 0; t < 2_000; t += 200) {
      p.clock.advance(200);
      await settle();
    }
    await failed;
    const cancel = p.upstreamWires[0]?.toServer.find((m) => m.method === 'notifications/cancelled');
    expect(reasonOf(cancel)).toMatch(/^CEILING: hard ceiling of 2000 ms/);
    expect(p.records[0]?.end).toMatchObject({ kind: 'aborted', message: expect.stringContaining('CEILING') });
    const progress = progressOf(h.toClient).map((x) => x.progress);
    expect(progress.length).toBeGreaterThanOrEqual(8);
  });
});

describe('the upstream going away', () => {
  it('fails every in-flight call at once with UPSTREAM_CLOSED, and the next call gets a fresh upstream', async () => {
    const p = proxy();
    const h1 = p.host('stdio', '2025-06-18');
    const h2 = p.host('http', '2026-07-28');
    const calls = [
      h1.client.request('tools/call', work(10, 100, 'x'), {}),
      h1.client.request('tools/call', work(10, 100, 'y'), {}),
      h2.client.request('tools/call', work(10, 100, 'z'), {}),
    ];
    const outcomes = Promise.allSettled(calls);
    await settle();
    expect(p.relay.inFlight).toBe(3);
    p.upstreams[0]?.kill();
    await settle();
    for (const r of await outcomes) {
      expect(r.status).toBe('rejected');
      expect((r as PromiseRejectedResult).reason).toMatchObject({
        code: 'UPSTREAM_CLOSED',
        origin: 'remote',
      });
    }
    // No cancel was sent to a dead upstream.
    expect(p.upstreamWires[0]?.toServer.filter((m) => m.method === 'notifications/cancelled')).toEqual([]);
    const next = h1.client.request('tools/call', work(1, 10, 'again'), {});
    await settle();
    p.clock.advance(10);
    await settle();
    await expect(next).resolves.toMatchObject({ content: [{ text: 'again done' }] });
    expect(p.link.starts).toBe(2);
    expect(p.events.filter((e) => e.type === 'upstream-closed')).toHaveLength(1);
  });

  it('one broken HTTP exchange fails only its own call: the others on that upstream complete', async () => {
    const p = proxy({ upstreamTransport: 'http', upstreamRevision: '2026-07-28' });
    const h1 = p.host('http', '2026-07-28', 'a');
    const h2 = p.host('stdio', '2025-06-18', 'b');
    const broken = h1.client.request('tools/call', work(10, 100, 'broken'), {});
    const other = h2.client.request('tools/call', work(3, 100, 'other'), {});
    await settle();
    // What the HTTP client does when one POST's socket drops: fail that request alone (core's failOutbound).
    const sent = p.upstreamWires[0]?.toServer.find(
      (m) => (m.params as { arguments?: { tag?: string } } | undefined)?.arguments?.tag === 'broken',
    );
    p.upstreams[0]?.endpoint.failOutbound(
      sent?.id as number,
      new InflightError('UPSTREAM_CLOSED', 'the request failed: fetch failed'),
    );
    await expect(broken).rejects.toMatchObject({ code: 'UPSTREAM_CLOSED', origin: 'remote' });
    for (let i = 0; i < 3; i++) {
      p.clock.advance(100);
      await settle();
    }
    await expect(other).resolves.toMatchObject({ content: [{ text: 'other done' }] });
    // The upstream was never taken for dead: no fresh connection, no upstream-closed event.
    expect(p.upstreams[0]?.endpoint.closed).toBe(false);
    expect(p.link.starts).toBe(1);
    expect(p.events.filter((e) => e.type === 'upstream-closed')).toEqual([]);
  });

  it('a failed start fails the call with UPSTREAM_UNAVAILABLE naming why; after two, a backoff', async () => {
    const clock = new ManualClock();
    let attempts = 0;
    const link = new UpstreamLink(
      async () => {
        attempts++;
        throw new Error('spawn node-that-does-not-exist ENOENT');
      },
      { clock, backoffMs: 500 },
    );
    const relay = new CallRelay(link, { clock });
    const h = wire({ clock, transport: 'stdio', revision: '2025-06-18' });
    relay.attach(h.server, 'host');
    const call = h.client.request('tools/list', {}, {});
    await expect(call).rejects.toMatchObject({
      code: 'UPSTREAM_UNAVAILABLE',
      origin: 'remote',
      message: expect.stringContaining('could not start the upstream: spawn node-that-does-not-exist ENOENT'),
    });
    await expect(h.client.request('tools/list', {}, {})).rejects.toSatisfy(InflightError.is);
    expect(attempts).toBe(2);
    // Two failures in a row: the next start waits 500 ms; meanwhile calls fail at once, naming why.
    await expect(h.client.request('tools/list', {}, {})).rejects.toMatchObject({
      code: 'UPSTREAM_UNAVAILABLE',
      message: expect.stringMatching(/failed to start 2 times in a row .*next start in 500 ms/),
    });
    expect(attempts).toBe(2);
    clock.advance(500);
    await expect(h.client.request('tools/list', {}, {})).rejects.toSatisfy(InflightError.is);
    expect(attempts).toBe(3);
  });
});

describe('lifecycle, errors and shutdown', () => {
  it('answers initialize and server/discover with the upstream’s identity, trimmed to what it relays', async () => {
    const p = proxy();
    await p.link.get();
    const legacy = p.host('stdio', '2025-06-18');
    const init = (await legacy.client.request('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 't', version: '0' },
    })) as Record<string, unknown>;
    expect(init).toMatchObject({
      protocolVersion: '2025-06-18',
      serverInfo: { name: 'memory-upstream' },
      capabilities: { tools: {} },
    });
    expect(init.capabilities).toEqual({ tools: { listChanged: true } }); // logging is not relayed; list changes are
    const modern = p.host('http', '2026-07-28');
    const discover = (await modern.client.request('server/discover', {})) as Record<string, unknown>;
    expect(discover.supportedVersions).toContain('2026-07-28');
  });

  it('passes the upstream’s JSON-RPC error on unchanged', async () => {
    const p = proxy();
    const h = p.host('stdio', '2025-06-18');
    await expect(h.client.request('tools/call', { name: 'nope' }, {})).rejects.toMatchObject({
      code: -32602,
      message: 'Unknown tool: nope',
    });
    expect(p.calls()[0]).toMatchObject({ outcome: 'error', message: 'Unknown tool: nope' });
  });

  it('shutdown answers every host with SHUTDOWN and cancels every upstream call with that reason', async () => {
    const p = proxy();
    const h1 = p.host('stdio', '2025-06-18');
    const h2 = p.host('http', '2025-11-25');
    const c1 = h1.client.request('tools/call', work(10, 100, 's1'), {});
    const c2 = h2.client.request('tools/call', work(10, 100, 's2'), {});
    await settle();
    p.relay.shutdown('proxy received SIGTERM');
    await expect(c1).rejects.toMatchObject({
      code: 'SHUTDOWN',
      origin: 'remote',
      message: 'proxy received SIGTERM',
    });
    await expect(c2).rejects.toMatchObject({ code: 'SHUTDOWN', origin: 'remote' });
    await settle();
    const reasons = p.upstreamWires[0]?.toServer
      .filter((m) => m.method === 'notifications/cancelled')
      .map((m) => (m.params as { reason: string }).reason);
    expect(reasons).toEqual(['SHUTDOWN: proxy received SIGTERM', 'SHUTDOWN: proxy received SIGTERM']);
    expect(p.relay.inFlight).toBe(0);
    expect(p.relay.stats.cancelled).toEqual({ SHUTDOWN: 2 });
  });

  it('keeps nothing per call once calls end', async () => {
    const p = proxy({ idleMs: 100 });
    const h = p.host('stdio', '2025-06-18');
    const calls = Array.from({ length: 50 }, (_, i) =>
      h.client.request('tools/call', work(1, i % 2 ? 10 : 1_000, `n${i}`), {}),
    );
    const all = Promise.allSettled(calls);
    await settle();
    p.clock.advance(10);
    await settle();
    p.clock.advance(90);
    await settle();
    await all;
    expect(p.relay.inFlight).toBe(0);
    expect(p.relay.stats.inFlight).toBe(0);
    expect(h.server.stats.inboundInFlight).toBe(0);
    expect(p.upstreams[0]?.endpoint.stats.outboundInFlight).toBe(0);
    expect(p.relay.stats).toMatchObject({ calls: 50, completed: 25, cancelled: { IDLE_TIMEOUT: 25 } });
  });
});
