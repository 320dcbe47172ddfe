import { describe, expect, it } from 'vitest';
import { ManualClock } from '../clock/manual-clock.js';
import { InflightError } from '../errors/inflight-error.js';
import { Endpoint } from './endpoint.js';
import { JsonRpcError } from './messages.js';

/** Lets queued microtasks (handler dispatch, promise settlement) run; never sleeps. */
const drain = async (): Promise<void> => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
};

/** A client and a server joined in memory through JSON text. */
function pair() {
  const clock = new ManualClock();
  let client!: Endpoint;
  let server!: Endpoint;
  server = new Endpoint({
    role: 'server',
    transport: 'stdio',
    clock,
    revision: '2025-11-25',
    channel: { write: (m) => client.receiveText(JSON.stringify(m)) },
  });
  client = new Endpoint({
    role: 'client',
    transport: 'stdio',
    clock,
    revision: '2025-11-25',
    channel: { write: (m) => server.receiveText(JSON.stringify(m)) },
  });
  return { clock, client, server };
}

/** A promise that rejects the way a timer or fetch does when its signal aborts: a plain AbortError. */
function abortable(signal: AbortSignal): Promise<never> {
  return new Promise((_resolve, reject) => {
    signal.addEventListener('abort', () =>
      reject(new DOMException('The operation was aborted', 'AbortError')),
    );
  });
}

describe('per-handler limits', () => {
  it('setRequestHandler limits answer -32001 with data.cause, and the error reads the same remotely', async () => {
    const { clock, client, server } = pair();
    server.setRequestHandler('slow', (_params, ctx) => abortable(ctx.signal), { ceilingMs: 1_500 });
    const call = client.request('slow', {}, { ceilingMs: 60_000 }).catch((e: unknown) => e);
    await drain();
    clock.advance(1_500);
    const error = await call;
    expect(InflightError.is(error)).toBe(true);
    expect(error).toMatchObject({ code: 'CEILING', origin: 'remote', details: { limitMs: 1_500 } });
    expect(error).toBeInstanceOf(InflightError);
    expect(clock.pendingTimers).toBe(0);
  });

  it('ctx.limit: a child ceiling over part of the work reaches the client as CEILING with its update count', async () => {
    const { clock, client, server } = pair();
    server.setRequestHandler('tools/call', async (_params, ctx) => {
      const step = ctx.limit({ ceilingMs: 1_500 });
      step.progress(1, 3);
      step.progress(2, 3);
      await abortable(step.signal); // throws a plain AbortError, as a timer or fetch would
      return { content: [] };
    });
    const call = client.request('tools/call', { name: 'x' }).catch((e: unknown) => e);
    await drain();
    clock.advance(1_500);
    const error = (await call) as InflightError;
    expect(error.code).toBe('CEILING');
    expect(error.message).toMatch(/hard ceiling of 1500 ms reached \(2 updates before\)/);
    expect(error.details).toMatchObject({ limitMs: 1_500, progressCount: 2 });
    expect(clock.pendingTimers).toBe(0);
  });

  it('ctx.limit: progress in a child scope touches the request idle window too', async () => {
    const { clock, client, server } = pair();
    let finish!: () => void;
    server.setRequestHandler(
      'work',
      async (_params, ctx) => {
        const part = ctx.limit({ idleMs: 10_000 });
        for (let i = 1; i <= 3; i++) {
          clock.advance(800); // under the request's 1 000 ms idle window each time, thanks to the touch
          part.progress(i);
        }
        await new Promise<void>((resolve) => {
          finish = resolve;
        });
        return { done: true };
      },
      { idleMs: 1_000 },
    );
    const call = client.request('work', {});
    await drain();
    finish();
    await expect(call).resolves.toMatchObject({ done: true });
  });

  it('the scopes of a settled request hold no timer', async () => {
    const { clock, client, server } = pair();
    server.setRequestHandler('quick', (_params, ctx) => {
      ctx.limit({ idleMs: 5_000, ceilingMs: 9_000 });
      return {};
    });
    await client.request('quick', {});
    expect(clock.pendingTimers).toBe(0);
  });

  it('a JsonRpcError thrown by a handler stays a JsonRpcError for the caller', async () => {
    const { client, server } = pair();
    server.setRequestHandler('bad', () => {
      throw new JsonRpcError(-32602, 'nope');
    });
    const error = await client.request('bad', {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JsonRpcError);
    expect(InflightError.is(error)).toBe(false);
  });
});

describe('2026-07-28 removed methods [TO10]', () => {
  it('ping and initialize with a 2026-07-28 envelope are -32601; legacy ping still answers', async () => {
    const clock = new ManualClock();
    const out: Array<Record<string, unknown>> = [];
    const server = new Endpoint({
      role: 'server',
      transport: 'stdio',
      clock,
      channel: { write: (m) => out.push(m) },
    });
    server.setRequestHandler('initialize', () => ({ protocolVersion: '2025-11-25' }));
    const modern = { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } };
    server.receive({ jsonrpc: '2.0', id: 1, method: 'ping', params: modern });
    server.receive({
      jsonrpc: '2.0',
      id: 2,
      method: 'initialize',
      params: { ...modern, protocolVersion: '2025-11-25' },
    });
    server.receive({ jsonrpc: '2.0', id: 3, method: 'ping' });
    await drain();
    expect(out.find((m) => m.id === 1)).toMatchObject({ error: { code: -32601 } });
    expect(out.find((m) => m.id === 2)).toMatchObject({ error: { code: -32601 } });
    expect(out.find((m) => m.id === 3)).toMatchObject({ result: {} });
  });
});
