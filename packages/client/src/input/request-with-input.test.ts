import type { RequestId, TransportKind } from '@mcp-inflight/core';
import { DeadlineController, Endpoint, InflightError, JsonRpcError, ProgressRelay } from '@mcp-inflight/core';
import type { Channel, JsonRpcMessage } from '@mcp-inflight/core/adapter';
import { ManualClock } from '@mcp-inflight/core/testing';
import { describe, expect, it } from 'vitest';
import { INPUT_ROUNDS_EXCEEDED, type InputCapableClient, requestWithInput } from './request-with-input.js';

// requestWithInput against an in-memory 2026-07-28 server endpoint, on a ManualClock: nothing sleeps.

const drain = async (): Promise<void> => {
  for (let i = 0; i < 20; i++) await Promise.resolve();
};

interface Wire {
  clock: ManualClock;
  client: InputCapableClient;
  server: Endpoint;
  toServer: JsonRpcMessage[];
  closedStreams: RequestId[];
}

function pair(transport: TransportKind = 'stdio'): Wire {
  const clock = new ManualClock();
  const relay = new ProgressRelay({ clock, minIntervalMs: 0 });
  const toServer: JsonRpcMessage[] = [];
  const closedStreams: RequestId[] = [];
  let client!: Endpoint;
  let server!: Endpoint;
  const serverChannel: Channel = { write: (m) => client.receiveText(JSON.stringify(m)) };
  const clientChannel: Channel = {
    write: (m) => {
      toServer.push(m as JsonRpcMessage);
      server.receiveText(JSON.stringify(m));
    },
    cancelRequest: (id, notification) => {
      if (notification) return clientChannel.write(notification);
      closedStreams.push(id);
      server.abortInbound(id, new InflightError('DISCONNECTED'));
    },
  };
  const revision = '2026-07-28';
  server = new Endpoint({
    role: 'server',
    transport,
    channel: serverChannel,
    clock,
    progressRelay: relay,
    revision,
  });
  client = new Endpoint({
    role: 'client',
    transport,
    channel: clientChannel,
    clock,
    progressRelay: relay,
    revision,
  });
  return {
    clock,
    client: { endpoint: client, request: (m, p, o) => client.request(m, p, o) },
    server,
    toServer,
    closedStreams,
  };
}

function gate<T = void>(): { promise: Promise<T>; open: (value: T) => void } {
  let open!: (value: T) => void;
  const promise = new Promise<T>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

const ASK = {
  resultType: 'input_required',
  inputRequests: {
    confirm: {
      method: 'elicitation/create',
      params: { mode: 'form', message: 'Sure?', requestedSchema: { type: 'object', properties: {} } },
    },
  },
  requestState: 'opaque state: do not touch',
};
const YES = { confirm: { action: 'accept', content: { confirm: true } } };
const requests = (w: Wire) => w.toServer.filter((m) => m.method === 'tools/call');

/** A server that asks once, then answers with what it got back. */
function askOnce(w: Wire, round1?: Promise<void>, round2?: Promise<void>): void {
  w.server.setRequestHandler('tools/call', async (params, ctx) => {
    if (params?.requestState === undefined) {
      ctx.progress(1, 2);
      await round1;
      return ASK;
    }
    ctx.progress(1, 3);
    await round2;
    return {
      content: [{ type: 'text', text: JSON.stringify([params.inputResponses, params.requestState]) }],
    };
  });
}

describe('requestWithInput', () => {
  it('retries with the answers and the exact requestState, under a new id, with the original params', async () => {
    const w = pair();
    askOnce(w);
    const seen: Array<[number, number]> = [];
    const result = await requestWithInput(
      w.client,
      'tools/call',
      { name: 'deploy', arguments: { env: 'prod' } },
      { onInputRequired: () => YES, onprogress: (p, round) => seen.push([round, p.progress]) },
    );
    expect(result).toEqual({
      resultType: 'complete',
      content: [{ type: 'text', text: JSON.stringify([YES, ASK.requestState]) }],
    });
    const [first, retry] = requests(w);
    expect(first?.id).not.toBe(retry?.id); // [MR9]
    expect(first?.params).not.toHaveProperty('requestState');
    expect(retry?.params).toMatchObject({
      name: 'deploy',
      arguments: { env: 'prod' },
      inputResponses: YES,
      requestState: ASK.requestState,
    });
    // A fresh token per round: values may start again, and the callback says which round.
    const tokens = [first, retry].map(
      (m) => (m?.params as { _meta: { progressToken: unknown } } | undefined)?._meta.progressToken,
    );
    expect(tokens[0]).not.toBe(tokens[1]);
    expect(seen).toEqual([
      [1, 1],
      [2, 1],
    ]);
    expect(w.clock.pendingTimers).toBe(0);
  });

  it('sends no requestState when the server sent none, and retries at once without inputRequests', async () => {
    const w = pair();
    let calls = 0;
    w.server.setRequestHandler('tools/call', (params) => {
      calls++;
      if (calls === 1) return { resultType: 'input_required', inputRequests: ASK.inputRequests };
      if (calls === 2) return { resultType: 'input_required', requestState: 's2' };
      return { content: [], echoed: [params?.inputResponses ?? null, params?.requestState ?? null] };
    });
    let asked = 0;
    const result = await requestWithInput<{ echoed: unknown }>(
      w.client,
      'tools/call',
      { name: 'x' },
      {
        onInputRequired: () => {
          asked++;
          return YES;
        },
      },
    );
    expect(asked).toBe(1);
    const [, second, third] = requests(w);
    expect(second?.params).not.toHaveProperty('requestState'); // [MR7]
    expect(second?.params).toHaveProperty('inputResponses', YES);
    expect(third?.params).not.toHaveProperty('inputResponses');
    expect(result.echoed).toEqual([null, 's2']);
  });

  it('one ceiling across rounds: it counts from the first request and fires in the second round', async () => {
    const w = pair();
    const round1 = gate();
    askOnce(w, round1.promise, new Promise(() => {}));
    const answer = gate<typeof YES>();
    const outcome = requestWithInput(
      w.client,
      'tools/call',
      { name: 'x' },
      {
        idleMs: 300,
        ceilingMs: 1_000,
        onInputRequired: () => answer.promise,
      },
    ).catch((e: unknown) => e);
    await drain();
    w.clock.advance(250); // round 1 takes 250 ms (within its idle window)
    round1.open();
    await drain();
    w.clock.advance(600); // gathering input for 600 ms: longer than the idle window, and no fire
    await drain();
    answer.open(YES);
    await drain();
    expect(requests(w)).toHaveLength(2);
    w.clock.advance(149); // 999 ms since the first request
    await drain();
    expect(w.toServer.some((m) => m.method === 'notifications/cancelled')).toBe(false);
    w.clock.advance(1);
    const error = (await outcome) as InflightError;
    expect(error).toBeInstanceOf(InflightError);
    expect(error.code).toBe('CEILING');
    expect(error.message).toMatch(/1000 ms/);
    // The round in flight is cancelled on the wire (stdio: the notification), naming the limit.
    const cancel = w.toServer.find((m) => m.method === 'notifications/cancelled');
    expect(cancel?.params).toMatchObject({ requestId: requests(w)[1]?.id });
    expect(w.clock.pendingTimers).toBe(0);
  });

  it('the ceiling fires while input is being gathered: the handler is told, nothing is sent', async () => {
    const w = pair();
    askOnce(w);
    let handlerSignal: AbortSignal | undefined;
    const outcome = requestWithInput(
      w.client,
      'tools/call',
      { name: 'x' },
      {
        idleMs: 100,
        ceilingMs: 1_000,
        onInputRequired: (_requests, round) => {
          handlerSignal = round.signal;
          return new Promise(() => {});
        },
      },
    ).catch((e: unknown) => e);
    await drain();
    w.clock.advance(999);
    await drain();
    expect(handlerSignal?.aborted).toBe(false);
    w.clock.advance(1);
    const error = (await outcome) as InflightError;
    expect(error.code).toBe('CEILING');
    expect((handlerSignal?.reason as InflightError | undefined)?.code).toBe('CEILING');
    expect(requests(w)).toHaveLength(1);
    expect(w.toServer.some((m) => m.method === 'notifications/cancelled')).toBe(false);
    expect(w.clock.pendingTimers).toBe(0);
  });

  it('the idle window runs in each round: a silent second round ends with IDLE_TIMEOUT', async () => {
    const w = pair();
    askOnce(w, undefined, new Promise(() => {}));
    const outcome = requestWithInput(
      w.client,
      'tools/call',
      { name: 'x' },
      {
        idleMs: 200,
        ceilingMs: 10_000,
        onInputRequired: () => YES,
      },
    ).catch((e: unknown) => e);
    await drain();
    expect(requests(w)).toHaveLength(2);
    w.clock.advance(200);
    expect(((await outcome) as InflightError).code).toBe('IDLE_TIMEOUT');
  });

  it("a caller's abort while input is gathered ends the call, tells the handler, and sends nothing", async () => {
    const w = pair();
    askOnce(w);
    const stop = new AbortController();
    let handlerSignal: AbortSignal | undefined;
    const outcome = requestWithInput(
      w.client,
      'tools/call',
      { name: 'x' },
      {
        signal: stop.signal,
        onInputRequired: (_r, round) => {
          handlerSignal = round.signal;
          return new Promise(() => {});
        },
      },
    ).catch((e: unknown) => e);
    await drain();
    stop.abort(InflightError.cancelled('the user closed the dialog'));
    const error = (await outcome) as InflightError;
    expect(error.code).toBe('CANCELLED');
    expect(handlerSignal?.aborted).toBe(true);
    expect(w.toServer.filter((m) => m.method === 'notifications/cancelled')).toHaveLength(0);
    expect(w.clock.pendingTimers).toBe(0);
  });

  it("a caller's abort during a round cancels that round on the wire, era-correctly (HTTP: its stream)", async () => {
    const w = pair('http');
    askOnce(w, undefined, new Promise(() => {}));
    const stop = new AbortController();
    const outcome = requestWithInput(
      w.client,
      'tools/call',
      { name: 'x' },
      {
        signal: stop.signal,
        onInputRequired: () => YES,
      },
    ).catch((e: unknown) => e);
    await drain();
    stop.abort();
    expect(((await outcome) as InflightError).code).toBe('CANCELLED');
    expect(w.closedStreams).toEqual([requests(w)[1]?.id]);
    expect(w.toServer.filter((m) => m.method === 'notifications/cancelled')).toHaveLength(0); // rule 6
  });

  it('caps the rounds with a clear error carrying the last interim result', async () => {
    const w = pair();
    w.server.setRequestHandler('tools/call', () => ({ resultType: 'input_required', requestState: 'again' }));
    const error = (await requestWithInput(w.client, 'tools/call', { name: 'x' }, { maxRounds: 3 }).catch(
      (e: unknown) => e,
    )) as JsonRpcError;
    expect(error).toBeInstanceOf(JsonRpcError);
    expect(error.code).toBe(INPUT_ROUNDS_EXCEEDED);
    expect(error.data).toMatchObject({ rounds: 3, lastResult: { requestState: 'again' } });
    expect(requests(w)).toHaveLength(3);
  });

  it.each([
    ['neither inputRequests nor requestState', { resultType: 'input_required' }],
    ['an empty inputRequests alone', { resultType: 'input_required', inputRequests: {} }],
    [
      'an entry of another method',
      { resultType: 'input_required', inputRequests: { a: { method: 'tools/call' } } },
    ],
    ['an entry that is not an object', { resultType: 'input_required', inputRequests: { a: 'elicit' } }],
    [
      'params that are not an object',
      { resultType: 'input_required', inputRequests: { a: { method: 'roots/list', params: [] } } },
    ],
    ['a requestState that is not a string', { resultType: 'input_required', requestState: 7 }],
    ['inputRequests that are an array', { resultType: 'input_required', inputRequests: [] }],
  ])('a malformed input_required (%s) rejects with -32603', async (_why, bad) => {
    const w = pair();
    w.server.setRequestHandler('tools/call', () => bad);
    const error = (await requestWithInput(w.client, 'tools/call', {}, { onInputRequired: () => ({}) }).catch(
      (e: unknown) => e,
    )) as JsonRpcError;
    expect(error).toBeInstanceOf(JsonRpcError);
    expect(error.code).toBe(-32603);
    expect(error.message).toMatch(/malformed input_required/);
    expect(requests(w)).toHaveLength(1);
  });

  it('input_required on a method that may not carry it is malformed too [MR2]', async () => {
    const w = pair();
    w.server.setRequestHandler('tools/list', () => ASK);
    const error = (await requestWithInput(w.client, 'tools/list', {}).catch(
      (e: unknown) => e,
    )) as JsonRpcError;
    expect(error.code).toBe(-32603);
  });

  it("by default answers with the client's own handlers (one handler for legacy requests and MRTR)", async () => {
    const w = pair();
    askOnce(w);
    let seen: unknown;
    w.client.endpoint.setRequestHandler('elicitation/create', (params, ctx) => {
      seen = [params?.message, ctx.method, ctx.signal.aborted];
      return { action: 'accept', content: { confirm: true } };
    });
    const result = await requestWithInput<{ content: Array<{ text: string }> }>(w.client, 'tools/call', {
      name: 'x',
    });
    expect(seen).toEqual(['Sure?', 'elicitation/create', false]);
    expect(JSON.parse(result.content[0]?.text ?? '')).toEqual([YES, ASK.requestState]);
  });

  it('with no handler for an input request the call ends with -32601 naming it', async () => {
    const w = pair();
    askOnce(w);
    const error = (await requestWithInput(w.client, 'tools/call', {}).catch(
      (e: unknown) => e,
    )) as JsonRpcError;
    expect(error.code).toBe(-32601);
    expect(error.message).toMatch(/confirm.*elicitation\/create/);
    expect(w.clock.pendingTimers).toBe(0);
  });

  it('inside an enclosing deadline: its ceiling ends the call while input is gathered; a signal beside it too', async () => {
    const w = pair();
    askOnce(w);
    const outer = new DeadlineController({ ceilingMs: 300, clock: w.clock });
    const stop = new AbortController();
    const outcome = requestWithInput(
      w.client,
      'tools/call',
      {},
      {
        parent: outer,
        signal: stop.signal,
        ceilingMs: 10_000,
        onInputRequired: () => new Promise(() => {}),
      },
    ).catch((e: unknown) => e);
    await drain();
    w.clock.advance(300);
    expect(((await outcome) as InflightError).code).toBe('CEILING');
    outer.dispose();

    const second = requestWithInput(
      w.client,
      'tools/call',
      {},
      {
        parent: new DeadlineController({ ceilingMs: 10_000, clock: w.clock }),
        signal: stop.signal,
        onInputRequired: () => new Promise(() => {}),
      },
    ).catch((e: unknown) => e);
    await drain();
    stop.abort();
    expect(((await second) as InflightError).code).toBe('CANCELLED');
  });

  it('refuses a maxRounds that is not a positive whole number', async () => {
    const w = pair();
    for (const maxRounds of [0, 1.5, Number.NaN])
      await expect(requestWithInput(w.client, 'tools/call', {}, { maxRounds })).rejects.toThrow(RangeError);
  });

  it('a complete first answer is returned as is: one round', async () => {
    const w = pair();
    w.server.setRequestHandler('tools/call', () => ({ content: [] }));
    await expect(requestWithInput(w.client, 'tools/call', {})).resolves.toEqual({
      resultType: 'complete',
      content: [],
    });
    expect(requests(w)).toHaveLength(1);
  });
});
