// The proxy carrying a legacy upstream's server-to-client requests (elicitation, sampling) to its hosts:
// a 2026-07-28 host gets an input_required result and its retry answers the upstream's pending request;
// a legacy host gets the request itself. Real core endpoints joined in memory, on a ManualClock.

import { type InputRequiredResult, requestWithInput } from '@mcp-inflight/client/input';
import {
  type Endpoint,
  InflightError,
  JsonRpcError,
  type Revision,
  serveLifecycle,
} from '@mcp-inflight/core';
import type { JsonRpcMessage } from '@mcp-inflight/core/adapter';
import { ManualClock } from '@mcp-inflight/core/testing';
import { describe, expect, it } from 'vitest';
import { CallRelay } from '../src/call-relay.js';
import { UpstreamLink } from '../src/upstream-link.js';
import { memoryUpstream, settle, type Wire, wire } from './memory.js';

interface Asked {
  answers: unknown[];
  end?: string;
}

/**
 * A legacy upstream whose `ask` tool reports progress, sends `elicitation/create` (as a legacy server
 * does mid-call), then works `steps` more steps of `intervalMs` with progress and returns the answer.
 */
function serveAsk(server: Endpoint, clock: ManualClock, asked: Asked): void {
  serveLifecycle(server, {
    serverInfo: { name: 'asking-upstream', version: '1.0.0' },
    capabilities: { tools: {} },
  });
  server.setRequestHandler('tools/call', async (params, ctx) => {
    const { steps = 0, intervalMs = 100 } = (params?.arguments ?? {}) as {
      steps?: number;
      intervalMs?: number;
    };
    ctx.progress(1, steps + 1, 'asking');
    let answer: unknown;
    try {
      answer = await server.request(
        'elicitation/create',
        { mode: 'form', message: 'Proceed?', requestedSchema: { type: 'object', properties: {} } },
        { related: ctx.id, idleMs: 1e9, ceilingMs: 1e9 },
      );
    } catch (error) {
      asked.end = `elicitation failed: ${(error as Error).message}`;
      throw error;
    }
    asked.answers.push(answer);
    for (let i = 1; i <= steps; i++) {
      await new Promise<void>((resolve, reject) => {
        if (ctx.signal.aborted) return reject(ctx.signal.reason); // cancelled as the last step came due
        const timer = clock.setTimer(resolve, intervalMs);
        ctx.signal.addEventListener('abort', () => {
          timer.clear();
          reject(ctx.signal.reason);
        });
      }).catch((error: unknown) => {
        asked.end = `aborted: ${InflightError.from(error).code}`;
        throw error;
      });
      ctx.progress(i + 1, steps + 1, `step ${i}`);
    }
    asked.end = 'done';
    return { content: [{ type: 'text', text: JSON.stringify(answer) }] };
  });
}

function proxy(
  options: { upstreamRevision?: Revision; idleMs?: number; ceilingMs?: number; holdMs?: number } = {},
) {
  const clock = new ManualClock();
  const asked: Asked = { answers: [] };
  const upstreamRevision = options.upstreamRevision ?? '2025-06-18';
  const upstreamWires: Wire[] = [];
  const link = new UpstreamLink(async () => {
    const w = wire({ clock, transport: 'stdio', revision: upstreamRevision, serverMinIntervalMs: 0 });
    serveAsk(w.server, clock, asked);
    upstreamWires.push(w);
    return memoryUpstream(w, upstreamRevision);
  });
  const relay = new CallRelay(link, {
    idleMs: options.idleMs ?? 1_000,
    ceilingMs: options.ceilingMs ?? 60_000,
    clock,
    input: { holdMs: options.holdMs ?? 30_000, maxParked: 4 },
  });
  const host = (revision: Revision, label = 'host') => {
    const w = wire({
      clock,
      transport: 'stdio',
      revision,
      clientCapabilities: { elicitation: {}, roots: {} },
    });
    relay.attach(w.server, label);
    return w;
  };
  return { clock, asked, upstreamWires, relay, host };
}

const ASK = { name: 'ask', arguments: { steps: 2, intervalMs: 100 } };

/**
 * Waits (without sleeping) until `check` holds: sealing and opening a requestState is WebCrypto work that
 * settles on its own schedule, so a fixed number of turns is not enough before moving the ManualClock.
 */
async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 10_000 && !check(); i++) await new Promise<void>((resolve) => setImmediate(resolve));
  expect(check()).toBe(true);
}
const YES = { action: 'accept', content: {} };
const cancelsUpstream = (w: Wire | undefined): JsonRpcMessage[] =>
  (w?.toServer ?? []).filter((m) => m.method === 'notifications/cancelled');
/** The reason of the first cancel the proxy sent upstream. */
const upstreamCancelReason = (w: Wire | undefined): string =>
  String((cancelsUpstream(w)[0]?.params as { reason?: string } | undefined)?.reason);

describe('a legacy upstream asks during a call, a 2026-07-28 host answers through MRTR', () => {
  it('the host gets input_required; its retry answers the pending request and the call continues', async () => {
    const p = proxy();
    const h = p.host('2026-07-28');
    const first = (await h.client.request('tools/call', ASK)) as InputRequiredResult;
    expect(first.resultType).toBe('input_required');
    const [key, request] = Object.entries(first.inputRequests ?? {})[0] ?? [];
    expect(request).toMatchObject({ method: 'elicitation/create', params: { message: 'Proceed?' } });
    expect(typeof first.requestState).toBe('string');
    expect(p.relay.inputs.parked).toBe(1);
    const seen: number[] = [];
    const retry = h.client.request(
      'tools/call',
      { ...ASK, inputResponses: { [key as string]: YES }, requestState: first.requestState },
      { onprogress: (x) => seen.push(x.progress) },
    );
    await until(() => p.relay.inputs.parked === 0);
    await settle();
    for (let i = 0; i < 2; i++) {
      p.clock.advance(100);
      await settle();
    }
    await expect(retry).resolves.toMatchObject({ content: [{ text: JSON.stringify(YES) }] });
    expect(p.asked.answers).toEqual([YES]);
    expect(seen).toEqual([2, 3]); // the second round's progress reaches the second request's token
    // The retry never reached the upstream: it answered the upstream's own pending request.
    expect(p.upstreamWires[0]?.toServer.filter((m) => m.method === 'tools/call')).toHaveLength(1);
    expect(p.relay.inputs.live).toBe(0);
    expect(p.clock.pendingTimers).toBe(0);
    // Two host requests, one upstream call: the first ended input_required, the retry completed.
    expect(p.relay.stats).toMatchObject({ calls: 2, inputRequired: 1, completed: 1, inFlight: 0 });
  });

  it('requestWithInput drives it in one call; the idle window does not run while the host gathers input', async () => {
    const p = proxy({ idleMs: 1_000, ceilingMs: 60_000 });
    const h = p.host('2026-07-28');
    let release!: () => void;
    const gathered = new Promise<void>((resolve) => {
      release = resolve;
    });
    const call = requestWithInput(
      { endpoint: h.client, request: (m, params, o) => h.client.request(m, params, o) },
      'tools/call',
      ASK,
      {
        onInputRequired: async (requests) => {
          await gathered;
          return Object.fromEntries(Object.keys(requests).map((k) => [k, YES]));
        },
      },
    );
    await settle();
    p.clock.advance(5_000); // five idle windows while the user answers
    await settle();
    release();
    await until(() => p.relay.inputs.parked === 0);
    await settle();
    p.clock.advance(100);
    await settle();
    p.clock.advance(100);
    await expect(call).resolves.toMatchObject({ content: [{ text: JSON.stringify(YES) }] });
    expect(p.asked.end).toBe('done');
  });

  it('the proxy ceiling counts from the first request and fires in the second round, upstream cancelled', async () => {
    const p = proxy({ idleMs: 10_000, ceilingMs: 3_000 });
    const h = p.host('2026-07-28');
    const first = (await h.client.request('tools/call', {
      ...ASK,
      arguments: { steps: 50, intervalMs: 100 },
    })) as InputRequiredResult;
    p.clock.advance(2_500);
    const key = Object.keys(first.inputRequests ?? {})[0] as string;
    const retry = h.client
      .request('tools/call', {
        name: 'ask',
        arguments: { steps: 50, intervalMs: 100 },
        inputResponses: { [key]: YES },
        requestState: first.requestState,
      })
      .catch((e: unknown) => e);
    await until(() => p.relay.inputs.parked === 0);
    await settle();
    for (let i = 0; i < 5; i++) {
      p.clock.advance(100);
      await settle();
    }
    const error = (await retry) as InflightError;
    expect(InflightError.is(error)).toBe(true);
    expect(error.code).toBe('CEILING');
    await settle();
    expect(p.asked.end).toBe('aborted: CANCELLED');
    expect(upstreamCancelReason(p.upstreamWires[0])).toMatch(/CEILING/);
    expect(p.clock.pendingTimers).toBe(0);
  });

  it('a host that never retries: the parked call expires, the upstream request fails, the call is cancelled', async () => {
    const p = proxy({ holdMs: 30_000 });
    const h = p.host('2026-07-28');
    await h.client.request('tools/call', ASK);
    expect(p.relay.inputs.parked).toBe(1);
    p.clock.advance(29_999);
    await settle();
    expect(p.relay.inputs.parked).toBe(1);
    p.clock.advance(1);
    await settle();
    expect(p.relay.inputs.parked).toBe(0);
    expect(p.relay.inputs.expired).toBe(1);
    expect(p.asked.end).toMatch(/elicitation failed: no retry from the host within 30000 ms/);
    expect(upstreamCancelReason(p.upstreamWires[0])).toMatch(/IDLE_TIMEOUT/);
    expect(p.relay.inputs.live).toBe(0);
    expect(p.clock.pendingTimers).toBe(0);
  });

  it('tampered, replayed, or another host’s requestState is rejected with -32602', async () => {
    const p = proxy();
    const h = p.host('2026-07-28', 'host-a');
    const other = p.host('2026-07-28', 'host-b');
    const first = (await h.client.request('tools/call', ASK)) as InputRequiredResult;
    const key = Object.keys(first.inputRequests ?? {})[0] as string;
    const state = first.requestState as string;
    const retryWith = (w: Wire, requestState: string, args = ASK.arguments) =>
      w.client
        .request('tools/call', { name: 'ask', arguments: args, inputResponses: { [key]: YES }, requestState })
        .catch((e: unknown) => e);
    const flipped = `${state.slice(0, 10)}${state[10] === 'A' ? 'g' : 'A'}${state.slice(11)}`;
    for (const error of [
      await retryWith(h, flipped),
      await retryWith(other, state), // bound to host-a
      await retryWith(h, state, { steps: 9, intervalMs: 100 }), // bound to the original arguments
    ]) {
      expect(error).toBeInstanceOf(JsonRpcError);
      expect((error as JsonRpcError).code).toBe(-32602);
    }
    expect(p.relay.inputs.parked).toBe(1); // none of those touched the parked call
    const ok = retryWith(h, state);
    await until(() => p.relay.inputs.parked === 0);
    const replay = await retryWith(h, state); // single use
    expect((replay as JsonRpcError).code).toBe(-32602);
    await settle();
    for (let i = 0; i < 2; i++) {
      p.clock.advance(100);
      await settle();
    }
    await expect(ok).resolves.toMatchObject({ content: [{ text: JSON.stringify(YES) }] });
  });

  it('an answer left out is asked again rather than failing', async () => {
    const p = proxy();
    const h = p.host('2026-07-28');
    const first = (await h.client.request('tools/call', ASK)) as InputRequiredResult;
    const again = (await h.client.request('tools/call', {
      ...ASK,
      inputResponses: {},
      requestState: first.requestState,
    })) as InputRequiredResult;
    expect(again.resultType).toBe('input_required');
    expect(Object.keys(again.inputRequests ?? {})).toEqual(Object.keys(first.inputRequests ?? {}));
    expect(again.requestState).not.toBe(first.requestState);
    expect(p.relay.inputs.parked).toBe(1);
  });

  it('the host cancelling the retry cancels the upstream call', async () => {
    const p = proxy();
    const h = p.host('2026-07-28');
    const first = (await h.client.request('tools/call', {
      ...ASK,
      arguments: { steps: 50, intervalMs: 100 },
    })) as InputRequiredResult;
    const key = Object.keys(first.inputRequests ?? {})[0] as string;
    const stop = new AbortController();
    const retry = h.client
      .request(
        'tools/call',
        {
          name: 'ask',
          arguments: { steps: 50, intervalMs: 100 },
          inputResponses: { [key]: YES },
          requestState: first.requestState,
        },
        { signal: stop.signal },
      )
      .catch((e: unknown) => e);
    await until(() => p.relay.inputs.parked === 0);
    await settle();
    p.clock.advance(100);
    await settle();
    stop.abort();
    expect(((await retry) as InflightError).code).toBe('CANCELLED');
    await settle();
    expect(p.asked.end).toBe('aborted: CANCELLED');
    expect(p.relay.inputs.live).toBe(0);
  });

  it('the parked table is bounded: past maxParked a call is refused with -32010 and cancelled upstream', async () => {
    const p = proxy(); // maxParked: 4
    const h = p.host('2026-07-28');
    for (let i = 0; i < 4; i++) {
      const parked = (await h.client.request('tools/call', ASK)) as InputRequiredResult;
      expect(parked.resultType).toBe('input_required');
    }
    expect(p.relay.inputs.parked).toBe(4);
    const refused = await h.client.request('tools/call', ASK).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(JsonRpcError);
    expect((refused as JsonRpcError).code).toBe(-32010);
    await settle();
    expect(p.relay.inputs.parked).toBe(4);
    expect(p.relay.inputs.refused).toBe(1);
    expect(p.relay.inputs.live).toBe(4);
    expect(cancelsUpstream(p.upstreamWires[0])).toHaveLength(1);
  });

  it('a 2026-07-28 host that did not declare elicitation is not asked: the upstream gets an error [MR8]', async () => {
    const p = proxy();
    const h = p.host('2026-07-28');
    const call = h.client
      .request('tools/call', {
        ...ASK,
        _meta: { 'io.modelcontextprotocol/clientCapabilities': { sampling: {} } },
      })
      .catch((e: unknown) => e);
    await settle();
    expect(p.asked.end).toMatch(
      /elicitation failed: the host did not declare support for elicitation\/create/,
    );
    expect(await call).toBeInstanceOf(JsonRpcError); // the upstream's tool failed on it
    expect(p.relay.inputs.parked).toBe(0);
  });

  it('an ask with several calls in flight cannot be attributed and is refused (the upstream sees an error)', async () => {
    const p = proxy();
    const h = p.host('2026-07-28');
    const a = h.client.request('tools/call', ASK).catch((e: unknown) => e);
    const b = h.client.request('tools/call', ASK).catch((e: unknown) => e);
    await settle();
    expect(p.relay.inputs.refused).toBeGreaterThanOrEqual(1);
    expect(p.asked.end).toMatch(/elicitation failed: the proxy cannot relay elicitation\/create/);
    await Promise.all([a, b]);
  });
});

describe('the other directions', () => {
  it('a legacy host gets the upstream’s elicitation/create as a request of its own, in one call', async () => {
    const p = proxy();
    const h = p.host('2025-06-18');
    h.client.setRequestHandler('elicitation/create', (params) => ({
      action: 'accept',
      content: { said: params?.message },
    }));
    const call = h.client.request('tools/call', ASK);
    await settle();
    for (let i = 0; i < 2; i++) {
      p.clock.advance(100);
      await settle();
    }
    await expect(call).resolves.toMatchObject({
      content: [{ text: JSON.stringify({ action: 'accept', content: { said: 'Proceed?' } }) }],
    });
    expect(p.relay.inputs.parked).toBe(0);
  });

  it('a legacy host may take longer than the idle window to answer: the wait is bounded by the ceiling only', async () => {
    const p = proxy({ idleMs: 1_000, ceilingMs: 600_000 });
    const h = p.host('2025-06-18');
    let answer!: (value: unknown) => void;
    h.client.setRequestHandler('elicitation/create', () => new Promise((resolve) => (answer = resolve)));
    // The host knows it is the one answering, so its own call has no idle window of its own here.
    const call = h.client.request('tools/call', ASK, { idleMs: Number.POSITIVE_INFINITY });
    await settle();
    // Longer than the proxy's idle window and than a request's default one (60 s) while the person answers.
    p.clock.advance(70_000);
    await settle();
    answer(YES);
    await settle();
    for (let i = 0; i < 2; i++) {
      p.clock.advance(100);
      await settle();
    }
    await expect(call).resolves.toMatchObject({ content: [{ text: JSON.stringify(YES) }] });
  });

  it('a 2026-07-28 upstream’s input_required reaches a legacy host as requests, and the proxy retries upstream', async () => {
    const clock = new ManualClock();
    const seenRetries: unknown[] = [];
    const link = new UpstreamLink(async () => {
      const w = wire({ clock, transport: 'stdio', revision: '2026-07-28' });
      serveLifecycle(w.server, { serverInfo: { name: 'modern', version: '1' }, capabilities: { tools: {} } });
      w.server.setRequestHandler('tools/call', (params) => {
        if (params?.requestState === undefined)
          return {
            resultType: 'input_required',
            inputRequests: { roots: { method: 'roots/list' } },
            requestState: 'upstream-own-state',
          };
        seenRetries.push([params.inputResponses, params.requestState]);
        return { content: [{ type: 'text', text: 'done' }] };
      });
      return memoryUpstream(w, '2026-07-28');
    });
    const relay = new CallRelay(link, { clock, idleMs: 1_000, ceilingMs: 10_000 });
    const h = wire({ clock, transport: 'stdio', revision: '2025-06-18' });
    relay.attach(h.server, 'legacy-host');
    h.client.setRequestHandler('roots/list', () => ({ roots: [{ uri: 'file:///work', name: 'work' }] }));
    await expect(h.client.request('tools/call', { name: 'x', arguments: {} })).resolves.toEqual({
      content: [{ type: 'text', text: 'done' }],
    });
    expect(seenRetries).toEqual([
      [{ roots: { roots: [{ uri: 'file:///work', name: 'work' }] } }, 'upstream-own-state'],
    ]);
  });

  it('a 2026-07-28 upstream and a 2026-07-28 host: input_required and the retry pass through untouched', async () => {
    const clock = new ManualClock();
    const link = new UpstreamLink(async () => {
      const w = wire({ clock, transport: 'stdio', revision: '2026-07-28' });
      serveLifecycle(w.server, { serverInfo: { name: 'modern', version: '1' }, capabilities: { tools: {} } });
      w.server.setRequestHandler('tools/call', (params) =>
        params?.requestState === 'their-state'
          ? { content: [{ type: 'text', text: JSON.stringify(params.inputResponses) }] }
          : {
              resultType: 'input_required',
              inputRequests: { r: { method: 'roots/list' } },
              requestState: 'their-state',
            },
      );
      return memoryUpstream(w, '2026-07-28');
    });
    const relay = new CallRelay(link, { clock });
    const h = wire({ clock, transport: 'stdio', revision: '2026-07-28', clientCapabilities: { roots: {} } });
    relay.attach(h.server, 'modern-host');
    const result = await requestWithInput<{ content: Array<{ text: string }> }>(
      { endpoint: h.client, request: (m, params, o) => h.client.request(m, params, o) },
      'tools/call',
      { name: 'x', arguments: {} },
      { onInputRequired: () => ({ r: { roots: [] } }) },
    );
    expect(JSON.parse(result.content[0]?.text ?? '')).toEqual({ r: { roots: [] } });
  });
});
