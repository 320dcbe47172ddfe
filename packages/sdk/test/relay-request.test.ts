import { DeadlineController, InflightError, ProgressRelay } from '@mcp-inflight/core';
import { ManualClock } from '@mcp-inflight/core/testing';
import { describe, expect, it } from 'vitest';
import {
  type RequestLike,
  relayedRequest,
  relayRequest,
  type SdkRequestOptions,
  WireError,
} from '../src/index.js';
import { fakeV1Extra, fakeV2Ctx, settle } from './support/fakes.js';

/** An upstream SDK client whose calls stay open until told; aborting rejects like the SDK (-32001). */
function fakeUpstream() {
  const calls: {
    request: RequestLike;
    schema: unknown;
    sdk: SdkRequestOptions;
    resolve(v: unknown): void;
    reject(e: unknown): void;
  }[] = [];
  const client = {
    request(request: RequestLike, schema?: unknown, options?: unknown): Promise<unknown> {
      const sdk = options as SdkRequestOptions;
      return new Promise((resolve, reject) => {
        calls.push({ request, schema, sdk, resolve, reject });
        sdk.signal.addEventListener('abort', () =>
          reject(Object.assign(new Error('MCP error -32001: x'), { code: -32001 })),
        );
      });
    },
  };
  return { client, calls };
}

function setup() {
  const clock = new ManualClock();
  return { clock, relay: new ProgressRelay({ clock, minIntervalMs: 50 }) };
}

const call = (token: number | string) => ({
  method: 'tools/call',
  params: { name: 'work', arguments: {}, _meta: { progressToken: token, trace: 't' } },
});

describe('relayRequest', () => {
  it('forwards without the host token or envelope, and maps upstream progress back to the host token', async () => {
    const { clock, relay } = setup();
    const upstream = fakeUpstream();
    const host = fakeV1Extra({ progressToken: 'host-7' });
    const result = relayRequest(host.extra, upstream.client, call('host-7'), { clock, progressRelay: relay });
    const leg = upstream.calls[0]!;
    expect(leg.request).toEqual({
      method: 'tools/call',
      params: { name: 'work', arguments: {}, _meta: { trace: 't' } },
    });
    leg.sdk.onprogress({ progress: 1, total: 3, message: 'a' });
    leg.sdk.onprogress({ progress: 2, total: 3 }); // inside the interval: pending
    leg.sdk.onprogress({ progress: 2 }); // not increasing: dropped
    leg.resolve({ content: [{ type: 'text', text: 'done' }] });
    await expect(result).resolves.toEqual({ content: [{ type: 'text', text: 'done' }] });
    // the pending value was flushed before the result; nothing after
    expect(host.sent).toEqual([
      { progressToken: 'host-7', progress: 1, total: 3, message: 'a' },
      { progressToken: 'host-7', progress: 2, total: 3 },
    ]);
    leg.sdk.onprogress({ progress: 3 });
    clock.advance(1_000);
    expect(host.sent).toHaveLength(2);
  });

  it('keeps two hosts apart even with identical tokens and request ids [rule 9]', async () => {
    const { clock, relay } = setup();
    const upstream = fakeUpstream();
    const a = fakeV1Extra({ progressToken: 1 });
    const b = fakeV1Extra({ progressToken: 1 });
    const stopA = new AbortController();
    const hostA = { ...a.extra, signal: stopA.signal };
    const resultA = relayRequest(hostA, upstream.client, call(1), { clock, progressRelay: relay });
    const resultB = relayRequest(b.extra, upstream.client, call(1), { clock, progressRelay: relay });
    const [legA, legB] = upstream.calls;
    legA!.sdk.onprogress({ progress: 10 });
    legB!.sdk.onprogress({ progress: 20 });
    stopA.abort('user stop');
    await expect(resultA).rejects.toBeInstanceOf(WireError);
    expect(legA!.sdk.signal.aborted).toBe(true);
    expect(legB!.sdk.signal.aborted).toBe(false);
    legB!.resolve({ ok: 'b' });
    await expect(resultB).resolves.toEqual({ ok: 'b' });
    expect(a.sent.map((p) => p.progress)).toEqual([10]);
    expect(b.sent.map((p) => p.progress)).toEqual([20]);
  });

  it("passes the host's cancel upstream with its cause: a host ceiling stays a ceiling", async () => {
    const { clock, relay } = setup();
    const upstream = fakeUpstream();
    const stop = new AbortController();
    const host = { ...fakeV1Extra({ progressToken: 1 }).extra, signal: stop.signal };
    const result = relayRequest(host, upstream.client, call(1), { clock, progressRelay: relay });
    stop.abort(InflightError.ceiling(300).wireReason()); // what an mcp-inflight host sends as `reason`
    expect(upstream.calls[0]!.sdk.signal.reason).toMatch(/^CEILING: hard ceiling of 300 ms/);
    await expect(result).rejects.toMatchObject({ data: { cause: 'CEILING' } });
  });

  it('ends the upstream call on its own limits, and tells the host which one as a JSON-RPC error', async () => {
    const { clock, relay } = setup();
    const upstream = fakeUpstream();
    const host = fakeV1Extra({ progressToken: 1 });
    const result = relayRequest(host.extra, upstream.client, call(1), {
      clock,
      progressRelay: relay,
      idleMs: 100,
      ceilingMs: 250,
    });
    const errorPromise = result.catch((e: unknown) => e);
    clock.advance(60);
    upstream.calls[0]!.sdk.onprogress({ progress: 1 });
    clock.advance(60);
    upstream.calls[0]!.sdk.onprogress({ progress: 2 });
    clock.advance(99);
    expect(upstream.calls[0]!.sdk.signal.aborted).toBe(false);
    clock.advance(1); // 220 ms: 100 ms idle after the last progress at 120 ms
    const error = (await errorPromise) as WireError;
    expect(upstream.calls[0]!.sdk.signal.reason).toMatch(/^IDLE_TIMEOUT/);
    expect(error).toBeInstanceOf(WireError);
    expect(error.code).toBe(-32001);
    expect(error.data).toMatchObject({ cause: 'IDLE_TIMEOUT', limitMs: 100, progressCount: 2 });
  });

  it('reports a closed upstream as UPSTREAM_CLOSED, and keeps upstream errors with their code', async () => {
    const { clock, relay } = setup();
    const upstream = fakeUpstream();
    const host = fakeV1Extra({ progressToken: 1 });
    const closed = relayRequest(host.extra, upstream.client, call(1), { clock, progressRelay: relay }).catch(
      (e: unknown) => e,
    );
    upstream.calls[0]!.reject(
      Object.assign(new Error('MCP error -32000: Connection closed'), { code: -32000 }),
    );
    expect(await closed).toMatchObject({ code: -32000, data: { cause: 'UPSTREAM_CLOSED' } });
    const failed = relayRequest(host.extra, upstream.client, call(1), { clock, progressRelay: relay }).catch(
      (e: unknown) => e,
    );
    upstream.calls[1]!.reject(
      Object.assign(new Error('MCP error -32602: Tool nope not found'), { code: -32602, data: { x: 1 } }),
    );
    expect(await failed).toMatchObject({ code: -32602, message: 'Tool nope not found', data: { x: 1 } });
  });

  it('is a child of the host request deadline, and upstream progress keeps that one alive', async () => {
    const { clock, relay } = setup();
    const upstream = fakeUpstream();
    const hostDeadline = new DeadlineController({ clock, idleMs: 100, ceilingMs: 400 });
    const host = fakeV1Extra({ progressToken: 1 });
    const result = relayRequest(host.extra, upstream.client, call(1), {
      clock,
      progressRelay: relay,
      deadline: hostDeadline,
    }).catch((e: unknown) => e);
    for (let t = 1; t <= 4; t++) {
      clock.advance(90);
      upstream.calls[0]!.sdk.onprogress({ progress: t });
    }
    expect(hostDeadline.signal.aborted).toBe(false); // 360 ms in: its 100 ms idle kept alive from below
    clock.advance(40); // 400 ms: the host request's ceiling
    expect(await result).toMatchObject({ data: { cause: 'CEILING', limitMs: 400 } });
  });

  it('sends nothing down when the host asked for no progress, yet progress is still activity', async () => {
    const { clock, relay } = setup();
    const upstream = fakeUpstream();
    const { ctx, sent } = fakeV2Ctx(undefined);
    const result = relayRequest(
      ctx,
      upstream.client,
      { method: 'tools/call', params: { name: 'w' } },
      { clock, progressRelay: relay, idleMs: 100 },
    );
    for (let t = 1; t <= 5; t++) {
      clock.advance(80);
      upstream.calls[0]!.sdk.onprogress({ progress: t });
    }
    upstream.calls[0]!.resolve({ done: true });
    await expect(result).resolves.toEqual({ done: true });
    expect(sent).toEqual([]);
    expect(clock.pendingTimers).toBe(0);
    expect(relay.stats.openRoutes).toBe(0);
    await settle();
  });
});

describe('relayedRequest', () => {
  it('drops the host token and 2026-07-28 envelope keys, keeps the rest', () => {
    expect(
      relayedRequest({
        method: 'tools/call',
        params: {
          name: 'w',
          _meta: {
            progressToken: 0,
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'com.example/trace': 'x',
          },
        },
      }),
    ).toEqual({ method: 'tools/call', params: { name: 'w', _meta: { 'com.example/trace': 'x' } } });
    expect(relayedRequest({ method: 'ping' })).toEqual({ method: 'ping' });
    expect(relayedRequest({ method: 'tools/list', params: { _meta: { progressToken: 1 } } })).toEqual({
      method: 'tools/list',
      params: {},
    });
  });
});
