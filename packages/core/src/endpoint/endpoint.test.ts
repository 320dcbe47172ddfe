import { describe, expect, it } from 'vitest';
import { ManualClock } from '../clock/manual-clock.js';
import { InflightError } from '../errors/inflight-error.js';
import type { TransportKind } from '../policy/era-cancel-policy.js';
import { ProgressRelay } from '../relay/progress-relay.js';
import type { Revision } from '../revisions/revisions.js';
import type { RequestId } from '../schemas/types.js';
import type { Channel } from './channel.js';
import { Endpoint } from './endpoint.js';
import type { JsonRpcMessage } from './messages.js';

/** Lets queued microtasks (handler dispatch, promise settlement) run; never sleeps. */
const drain = async (): Promise<void> => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
};

interface Wire {
  clock: ManualClock;
  client: Endpoint;
  server: Endpoint;
  toServer: JsonRpcMessage[];
  toClient: JsonRpcMessage[];
  closedStreams: RequestId[];
}

/** A client and a server joined in memory with a JSON round trip, as a real wire would. */
function pair(transport: TransportKind = 'stdio', revision?: Revision): Wire {
  const clock = new ManualClock();
  const relay = new ProgressRelay({ clock, minIntervalMs: 0 });
  const toServer: JsonRpcMessage[] = [];
  const toClient: JsonRpcMessage[] = [];
  const closedStreams: RequestId[] = [];
  let client!: Endpoint;
  let server!: Endpoint;
  const serverChannel: Channel = {
    write: (m) => {
      toClient.push(m as JsonRpcMessage);
      client.receiveText(JSON.stringify(m));
    },
  };
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
  return { clock, client, server, toServer, toClient, closedStreams };
}

function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

describe('Endpoint', () => {
  it('routes progress to the caller strictly increasing, before the result, and none after', async () => {
    const w = pair();
    const step = gate();
    w.server.setRequestHandler('tools/call', async (_params, ctx) => {
      ctx.progress(1, 3, 'one');
      ctx.progress(1, 3, 'again'); // not increasing: dropped
      ctx.progress(2, 3, 'two');
      await step.promise;
      return { content: [] };
    });
    const seen: number[] = [];
    const call = w.client.request('tools/call', { name: 'x' }, { onprogress: (p) => seen.push(p.progress) });
    await drain();
    step.open();
    await expect(call).resolves.toEqual({ content: [] });
    expect(seen).toEqual([1, 2]);
    const kinds = w.toClient.map((m) => (m.method as string | undefined) ?? 'response');
    expect(kinds).toEqual(['notifications/progress', 'notifications/progress', 'response']);
  });

  it('a ceiling with no progress cancels on the wire with a reason naming the limit (rule 5)', async () => {
    const w = pair();
    let handlerReason: unknown;
    w.server.setRequestHandler('tools/call', (_params, ctx) => {
      return new Promise((_resolve, reject) => {
        ctx.signal.addEventListener('abort', () => {
          handlerReason = ctx.signal.reason;
          reject(ctx.signal.reason);
        });
      });
    });
    const call = w.client.request('tools/call', {}, { idleMs: 10_000, ceilingMs: 500 });
    const outcome = call.catch((e: unknown) => e);
    await drain();
    w.clock.advance(500);
    const error = (await outcome) as InflightError;
    expect(error.code).toBe('CEILING');
    const cancel = w.toServer.find((m) => m.method === 'notifications/cancelled');
    expect((cancel?.params as { reason: string } | undefined)?.reason).toMatch(/CEILING.*500 ms/);
    await drain();
    expect((handlerReason as InflightError).code).toBe('CANCELLED');
    // The cancelled request gets no response (rule 3).
    expect(w.toClient.filter((m) => 'result' in m || 'error' in m)).toHaveLength(0);
    expect(w.server.stats.inboundInFlight).toBe(0);
    expect(w.clock.pendingTimers).toBe(0);
  });

  it('progress resets the idle limit; silence then trips it with IDLE_TIMEOUT', async () => {
    const w = pair();
    let report!: (n: number) => void;
    w.server.setRequestHandler('tools/call', (_p, ctx) => {
      report = (n) => ctx.progress(n);
      return new Promise(() => {});
    });
    const outcome = w.client.request('tools/call', {}, { idleMs: 100 }).catch((e: unknown) => e);
    await drain();
    for (let i = 1; i <= 5; i++) {
      w.clock.advance(90);
      report(i);
    }
    w.clock.advance(99);
    expect(w.client.stats.outboundInFlight).toBe(1);
    w.clock.advance(1);
    expect(((await outcome) as InflightError).code).toBe('IDLE_TIMEOUT');
  });

  it("a caller's abort is CANCELLED, not a timeout, and the late response is absorbed (rule 4)", async () => {
    const w = pair();
    const release = gate();
    w.server.setRequestHandler('tools/call', async () => {
      await release.promise;
      return {};
    });
    // A server that ignores the cancel still answers; we must absorb that.
    w.server.setNotificationHandler('notifications/cancelled', () => {});
    const controller = new AbortController();
    const outcome = w.client
      .request('tools/call', {}, { signal: controller.signal })
      .catch((e: unknown) => e);
    await drain();
    controller.abort('user pressed stop');
    const error = (await outcome) as InflightError;
    expect(error.code).toBe('CANCELLED');
    expect(error.toJsonRpc().code).not.toBe(-32001);
    const cancel = w.toServer.find((m) => m.method === 'notifications/cancelled');
    expect((cancel?.params as { reason: string } | undefined)?.reason).toContain('user pressed stop');
  });

  it('a handler that ends on its cancel (a relayed call rejecting with the reason) is no late result', async () => {
    const w = pair();
    w.server.setRequestHandler(
      'tools/call',
      (_params, ctx) =>
        new Promise((_resolve, reject) =>
          ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason)),
        ),
    );
    const controller = new AbortController();
    const outcome = w.client
      .request('tools/call', {}, { signal: controller.signal })
      .catch((e: unknown) => e);
    await drain();
    controller.abort('user pressed stop');
    expect(((await outcome) as InflightError).code).toBe('CANCELLED');
    await drain();
    expect(w.server.stats).toMatchObject({ inboundInFlight: 0, lateResults: 0 });
  });

  it('never cancels initialize (rule 6)', async () => {
    const w = pair();
    w.server.setRequestHandler('initialize', () => new Promise(() => {}));
    const controller = new AbortController();
    const outcome = w.client.request(
      'initialize',
      { protocolVersion: '2025-06-18' },
      { signal: controller.signal },
    );
    const settled = outcome.catch((e: unknown) => e);
    await drain();
    controller.abort();
    expect(((await settled) as InflightError).code).toBe('CANCELLED');
    expect(w.toServer.some((m) => m.method === 'notifications/cancelled')).toBe(false);
  });

  it('2026-07-28 over HTTP cancels by closing the stream and sends no notification (rule 6)', async () => {
    const w = pair('http', '2026-07-28');
    let aborted: InflightError | undefined;
    w.server.setRequestHandler('tools/call', (_p, ctx) => {
      ctx.signal.addEventListener('abort', () => {
        aborted = ctx.signal.reason as InflightError;
      });
      return new Promise(() => {});
    });
    const controller = new AbortController();
    const outcome = w.client
      .request('tools/call', {}, { signal: controller.signal })
      .catch((e: unknown) => e);
    await drain();
    const sent = w.toServer[0]?.params as { _meta: Record<string, unknown> };
    expect(sent._meta['io.modelcontextprotocol/protocolVersion']).toBe('2026-07-28');
    controller.abort();
    await outcome;
    expect(w.closedStreams).toEqual([0]);
    expect(w.toServer.some((m) => m.method === 'notifications/cancelled')).toBe(false);
    expect(aborted?.code).toBe('DISCONNECTED');
  });

  it('a cancel read in the same chunk as its request still wins (rule 3)', async () => {
    const w = pair();
    let ran = false;
    w.server.setRequestHandler('tools/call', () => {
      ran = true;
      return {};
    });
    w.server.receiveText('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{}}');
    w.server.receiveText('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}');
    await drain();
    expect(ran).toBe(false);
    expect(w.toClient).toHaveLength(0);
  });

  it('a cancel that arrives before its request still wins; unknown and malformed ones are ignored', async () => {
    const w = pair();
    let ran = 0;
    w.server.setRequestHandler('tools/call', () => {
      ran++;
      return {};
    });
    w.server.receiveText(
      '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"early"}}',
    );
    w.server.receiveText('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1.5}}');
    w.server.receiveText('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{}}');
    w.server.receiveText('{"jsonrpc":"2.0","id":"early","method":"tools/call","params":{}}');
    w.server.receiveText('{"jsonrpc":"2.0","id":"other","method":"tools/call","params":{}}');
    await drain();
    expect(ran).toBe(1);
    expect(w.toClient.map((m) => m.id)).toEqual(['other']);
    expect(w.server.stats.earlyCancelsApplied).toBe(1);
  });

  it('a slow handler does not delay another request or its cancel (rule 7)', async () => {
    const w = pair();
    const slow = gate();
    w.server.setRequestHandler('slow', async () => {
      await slow.promise;
      return { slow: true };
    });
    let fastSignal!: AbortSignal;
    w.server.setRequestHandler('fast', (_p, ctx) => {
      fastSignal = ctx.signal;
      return new Promise(() => {});
    });
    void w.client.request('slow');
    const controller = new AbortController();
    const fast = w.client.request('fast', {}, { signal: controller.signal }).catch((e: unknown) => e);
    await drain();
    controller.abort();
    await fast;
    expect(fastSignal.aborted).toBe(true);
    slow.open();
  });

  it('answers bad input with the code the spec names and keeps serving (rule 10)', async () => {
    const w = pair();
    w.server.setRequestHandler('echo', (params) => params ?? {});
    const replies: JsonRpcMessage[] = [];
    const server = new Endpoint({
      role: 'server',
      transport: 'stdio',
      channel: { write: (m) => replies.push(m as JsonRpcMessage) },
    });
    server.setRequestHandler('echo', (params) => ({ got: params?.x }));
    server.receiveText('{"jsonrpc":"2.0","id":1,"method":');
    server.receiveText('{"jsonrpc":"1.0","id":2,"method":"echo"}');
    server.receiveText('{"jsonrpc":"2.0","id":3,"method":"nope"}');
    server.receiveText('{"jsonrpc":"2.0","id":4,"method":"echo","params":[1]}');
    server.receiveText('{"jsonrpc":"2.0","id":null,"method":"echo"}');
    server.receiveText('[]');
    server.receiveText('{"jsonrpc":"2.0","id":5,"method":"echo","params":{"x":"ok"}}');
    await drain();
    const codes = replies.map((m) => (m.error as { code: number } | undefined)?.code ?? 'ok');
    expect(codes).toEqual([-32700, -32600, -32601, -32602, -32600, -32600, 'ok']);
    expect(replies.at(-1)).toEqual({ jsonrpc: '2.0', id: 5, result: { got: 'ok' } });
  });

  it('answers a 2025-03-26 batch in kind', async () => {
    const replies: unknown[] = [];
    const server = new Endpoint({
      role: 'server',
      transport: 'stdio',
      revision: '2025-03-26',
      channel: { write: (m) => replies.push(m) },
    });
    server.setRequestHandler('echo', (params) => ({ got: params?.x }));
    server.receiveText(
      '[{"jsonrpc":"2.0","id":1,"method":"echo","params":{"x":1}},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":2,"method":"echo","params":{"x":2}}]',
    );
    await drain();
    expect(replies).toEqual([
      [
        { jsonrpc: '2.0', id: 1, result: { got: 1 } },
        { jsonrpc: '2.0', id: 2, result: { got: 2 } },
      ],
    ]);
  });

  it('refuses a batch over maxBatchElements whole, with one -32600 naming the limit', async () => {
    const replies: unknown[] = [];
    const server = new Endpoint({
      role: 'server',
      transport: 'stdio',
      revision: '2025-03-26',
      maxBatchElements: 2,
      channel: { write: (m) => replies.push(m) },
    });
    server.setRequestHandler('echo', (params) => ({ got: params?.x }));
    const call = (id: number) => ({ jsonrpc: '2.0', id, method: 'echo', params: { x: id } });
    server.receive([call(1), call(2), call(3)]);
    server.receive([call(4), call(5)]);
    await drain();
    expect(replies[0]).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32600,
        message: 'Invalid Request: a batch of more than maxBatchElements (2)',
      },
    });
    expect(replies[1]).toEqual([
      { jsonrpc: '2.0', id: 4, result: { got: 4 } },
      { jsonrpc: '2.0', id: 5, result: { got: 5 } },
    ]);
  });

  it('closing fails every outbound call with UPSTREAM_CLOSED and aborts every handler', async () => {
    const w = pair();
    let handlerSignal!: AbortSignal;
    w.server.setRequestHandler('wait', (_p, ctx) => {
      handlerSignal = ctx.signal;
      return new Promise(() => {});
    });
    const calls = [w.client.request('wait'), w.client.request('wait')].map((p) => p.catch((e: unknown) => e));
    await drain();
    w.client.close();
    w.server.close();
    const errors = (await Promise.all(calls)) as InflightError[];
    expect(errors.map((e) => e.code)).toEqual(['UPSTREAM_CLOSED', 'UPSTREAM_CLOSED']);
    expect((handlerSignal.reason as InflightError).code).toBe('DISCONNECTED');
    expect(w.clock.pendingTimers).toBe(0);
    await expect(w.client.request('wait')).rejects.toMatchObject({ code: 'UPSTREAM_CLOSED' });
  });

  it('leaves no entries, tokens or timers behind after 1,000 calls (rule 8)', async () => {
    const w = pair();
    w.server.setRequestHandler('tools/call', (_p, ctx) => {
      ctx.progress(1);
      return {};
    });
    await Promise.all(
      Array.from({ length: 1000 }, () =>
        w.client.request('tools/call', {}, { idleMs: 1000, ceilingMs: 5000 }),
      ),
    );
    expect(w.client.stats.outboundInFlight).toBe(0);
    expect(w.server.stats.inboundInFlight).toBe(0);
    expect(w.clock.pendingTimers).toBe(0);
    expect(w.client.progressRelay.stats.openRoutes).toBe(0);
  });

  it('sets the session revision from initialize, and strips message for 2024-11-05', async () => {
    const w = pair();
    w.server.setRequestHandler('initialize', () => ({ protocolVersion: '2024-11-05', capabilities: {} }));
    await w.client.request('initialize', { protocolVersion: '2024-11-05' });
    expect(w.client.revision).toBe('2024-11-05');
    expect(w.server.revision).toBe('2024-11-05');
    w.server.setRequestHandler('tools/call', (_p, ctx) => {
      ctx.progress(1, 2, 'hidden');
      return {};
    });
    await w.client.request('tools/call');
    const progress = w.toClient.find((m) => m.method === 'notifications/progress');
    expect(progress?.params).not.toHaveProperty('message');
  });

  it('answers an unsupported _meta revision with -32022', async () => {
    const replies: JsonRpcMessage[] = [];
    const server = new Endpoint({
      role: 'server',
      transport: 'stdio',
      channel: { write: (m) => replies.push(m as JsonRpcMessage) },
    });
    server.receiveText(
      '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01"}}}',
    );
    await drain();
    expect(replies[0]?.error).toMatchObject({ code: -32022, data: { requested: '2099-01-01' } });
  });

  it('a client counts broken input instead of answering it [S5]', () => {
    const writes: unknown[] = [];
    const client = new Endpoint({
      role: 'client',
      transport: 'stdio',
      channel: { write: (m) => writes.push(m) },
    });
    client.receiveText('server log line, not JSON');
    expect(writes).toEqual([]);
    expect(client.stats.badInput).toBe(1);
  });

  it('a throwing notification handler is reported and the endpoint keeps serving', async () => {
    const seen: string[] = [];
    const replies: JsonRpcMessage[] = [];
    const server = new Endpoint({
      role: 'server',
      transport: 'stdio',
      channel: { write: (m) => replies.push(m as JsonRpcMessage) },
      onError: (_e, where) => seen.push(where),
    });
    server.setNotificationHandler('notifications/initialized', () => {
      throw new Error('listener bug');
    });
    server.receiveText('{"jsonrpc":"2.0","method":"notifications/initialized"}');
    server.receiveText('{"jsonrpc":"2.0","id":1,"method":"ping"}');
    await drain();
    expect(seen).toEqual(['notification handler for notifications/initialized']);
    expect(server.stats.errors).toBe(1);
    expect(replies).toEqual([{ jsonrpc: '2.0', id: 1, result: {} }]);
  });

  it('a result the channel cannot write still gets -32603', async () => {
    const replies: JsonRpcMessage[] = [];
    const server = new Endpoint({
      role: 'server',
      transport: 'stdio',
      channel: { write: (m) => replies.push(JSON.parse(JSON.stringify(m))) },
    });
    server.setRequestHandler('big', () => ({ value: 10n }));
    server.receiveText('{"jsonrpc":"2.0","id":1,"method":"big"}');
    await drain();
    expect(replies).toEqual([
      { jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'the result could not be sent' } },
    ]);
  });

  it('rewrites a relayed 2026-07-28 envelope to the revision it is sent under', () => {
    const writes: JsonRpcMessage[] = [];
    const client = new Endpoint({
      role: 'client',
      transport: 'stdio',
      channel: { write: (m) => writes.push(m as JsonRpcMessage) },
    });
    const hostMeta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
      'io.modelcontextprotocol/clientInfo': { name: 'host', version: '1' },
      progressToken: 'host-token',
      custom: 1,
    };
    void client
      .request('tools/call', { name: 'x', _meta: hostMeta }, { revision: '2025-06-18' })
      .catch(() => {});
    void client
      .request('tools/call', { name: 'x', _meta: hostMeta }, { revision: '2026-07-28' })
      .catch(() => {});
    const [legacy, modern] = writes.map((m) => (m.params as { _meta: Record<string, unknown> })._meta);
    expect(legacy).toEqual({ progressToken: 0, custom: 1 });
    expect(modern?.['io.modelcontextprotocol/protocolVersion']).toBe('2026-07-28');
    expect(modern?.progressToken).toBe(1);
    client.close();
  });

  it('tells the channel when a request ends with no response (peer cancel, early cancel, dropped stream)', async () => {
    const suppressed: unknown[] = [];
    const replies: JsonRpcMessage[] = [];
    const server = new Endpoint({
      role: 'server',
      transport: 'http',
      channel: { write: (m) => replies.push(m as JsonRpcMessage), suppressed: (id) => suppressed.push(id) },
    });
    server.setRequestHandler('wait', () => new Promise(() => {}));
    server.receiveText('{"jsonrpc":"2.0","id":1,"method":"wait"}');
    server.receiveText('{"jsonrpc":"2.0","id":2,"method":"wait"}');
    await drain();
    server.receiveText('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}');
    server.receiveText('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}');
    server.receiveText('{"jsonrpc":"2.0","id":3,"method":"wait"}');
    server.receiveText(
      '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":42}}',
    );
    server.abortInbound(2, new InflightError('DISCONNECTED'));
    await drain();
    expect(suppressed).toEqual([1, 3, 2]);
    expect(replies).toEqual([]);
  });

  it('stamps its identity on 2026-07-28 requests only, and a request naming itself wins [M2 M4]', () => {
    const writes: JsonRpcMessage[] = [];
    const client = new Endpoint({
      role: 'client',
      transport: 'stdio',
      clientInfo: { name: 'host', version: '1' },
      clientCapabilities: { roots: {} },
      channel: { write: (m) => writes.push(m as JsonRpcMessage) },
    });
    const own = { 'io.modelcontextprotocol/clientInfo': { name: 'relayed', version: '2' } };
    void client.request('a', {}, { revision: '2026-07-28' }).catch(() => {});
    void client.request('b', { _meta: own }, { revision: '2026-07-28' }).catch(() => {});
    void client.request('c', {}, { revision: '2025-06-18' }).catch(() => {});
    const metas = writes.map((m) => (m.params as { _meta: Record<string, unknown> })._meta);
    expect(metas[0]).toMatchObject({
      'io.modelcontextprotocol/clientInfo': { name: 'host', version: '1' },
      'io.modelcontextprotocol/clientCapabilities': { roots: {} },
    });
    expect(metas[1]?.['io.modelcontextprotocol/clientInfo']).toEqual({ name: 'relayed', version: '2' });
    expect(metas[2]).toEqual({ progressToken: 2 });
    client.close();
  });
});
