import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { connectStdio, OVERLOADED_ERROR_CODE, type StdioConnection } from '../src/index.js';

// The per-connection limit on requests in flight, over real in-memory streams: who runs, who waits, who
// is refused, and what cancels and closes do to a waiting request.

interface Rig {
  connection: StdioConnection;
  send(message: unknown): void;
  /** Every message the connection wrote, parsed. */
  written: Record<string, unknown>[];
  /** Ids whose handler has started, in order. */
  started: unknown[];
  /** Ends the handler of `id` with a result. */
  finish(id: unknown): void;
}

const open: StdioConnection[] = [];
afterEach(async () => {
  for (const connection of open.splice(0)) connection.abort();
});

function rig(options: { maxInFlight: number; maxQueuedBytes?: number }): Rig {
  const input = new PassThrough();
  const output = new PassThrough();
  const written: Record<string, unknown>[] = [];
  let tail = '';
  output.setEncoding('utf8').on('data', (text: string) => {
    const lines = (tail + text).split('\n');
    tail = lines.pop()!;
    for (const line of lines) written.push(JSON.parse(line) as Record<string, unknown>);
  });
  const started: unknown[] = [];
  const finishers = new Map<unknown, () => void>();
  const connection = connectStdio({
    input,
    output,
    role: 'server',
    ...options,
    setup: (endpoint) => {
      endpoint.setRequestHandler('hold', (_params, ctx) => {
        started.push(ctx.id);
        return new Promise((resolve, reject) => {
          finishers.set(ctx.id, () => resolve({ done: ctx.id }));
          ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason));
        });
      });
      endpoint.setNotificationHandler('test/note', () => void started.push('note'));
      endpoint.setRequestHandler('initialize', () => ({
        protocolVersion: '2025-06-18',
        capabilities: {},
        serverInfo: { name: 't', version: '1' },
      }));
    },
  });
  open.push(connection);
  return {
    connection,
    written,
    started,
    send: (message) => input.write(`${JSON.stringify(message)}\n`),
    finish: (id) => finishers.get(id)!(),
  };
}

const hold = (id: unknown) => ({ jsonrpc: '2.0', id, method: 'hold' });
const cancel = (requestId: unknown) => ({
  jsonrpc: '2.0',
  method: 'notifications/cancelled',
  params: { requestId, reason: 'stop' },
});
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('flow control of inbound requests', () => {
  it('runs maxInFlight requests, lets the others wait in arrival order, and starts the next as one ends', async () => {
    const r = rig({ maxInFlight: 2 });
    for (const id of [1, 2, 3, 4, 5]) r.send(hold(id));
    await expect.poll(() => r.started).toEqual([1, 2]);
    expect(r.connection.stats).toMatchObject({ queuedRequests: 3, refusedRequests: 0 });
    expect(r.connection.endpoint.stats.inboundInFlight).toBe(2);
    r.finish(2);
    await expect.poll(() => r.started).toEqual([1, 2, 3]);
    r.finish(1);
    r.finish(3);
    await expect.poll(() => r.started).toEqual([1, 2, 3, 4, 5]);
    expect(r.connection.stats).toMatchObject({ queuedRequests: 0, queuedBytes: 0 });
    expect(r.written.map((m) => m.id)).toEqual([2, 1, 3]);
  });

  it('passes notifications at once while requests wait', async () => {
    const r = rig({ maxInFlight: 1 });
    r.send(hold('a'));
    r.send(hold('b'));
    r.send({ jsonrpc: '2.0', method: 'test/note' });
    await expect.poll(() => [...r.started].sort()).toEqual(['a', 'note']);
    expect(r.connection.stats.queuedRequests).toBe(1);
  });

  it('removes a waiting request on its cancel: it never runs and gets no response [CN9]', async () => {
    const r = rig({ maxInFlight: 1 });
    r.send(hold('running'));
    r.send(hold('waiting'));
    r.send(hold('next'));
    await expect.poll(() => r.connection.stats.queuedRequests).toBe(2);
    r.send(cancel('waiting'));
    await expect.poll(() => r.connection.stats.cancelledWhileQueued).toBe(1);
    expect(r.connection.stats.queuedRequests).toBe(1);
    r.send(cancel('running')); // a running request's cancel aborts its handler, and frees its slot
    await expect.poll(() => r.started).toEqual(['running', 'next']);
    r.finish('next');
    await expect.poll(() => r.written.length).toBe(1);
    expect(r.written).toEqual([{ jsonrpc: '2.0', id: 'next', result: { done: 'next' } }]);
    expect(r.connection.endpoint.stats.ignoredCancels).toBe(0);
  });

  it('refuses a request at once with -32010 when the queue is full, and keeps serving', async () => {
    const line = JSON.stringify(hold(0));
    // Room for exactly two waiting requests of this size.
    const r = rig({ maxInFlight: 1, maxQueuedBytes: 2 * (Buffer.byteLength(line) + 64) });
    for (const id of [0, 1, 2, 3, 4]) r.send(hold(id));
    await expect.poll(() => r.written.length).toBe(2);
    expect(r.written).toEqual([
      { jsonrpc: '2.0', id: 3, error: { code: OVERLOADED_ERROR_CODE, message: 'Overloaded: retry later' } },
      { jsonrpc: '2.0', id: 4, error: { code: OVERLOADED_ERROR_CODE, message: 'Overloaded: retry later' } },
    ]);
    expect(OVERLOADED_ERROR_CODE).toBe(-32010);
    expect(r.connection.stats).toMatchObject({ queuedRequests: 2, refusedRequests: 2 });
    for (const id of [0, 1, 2]) {
      await expect.poll(() => r.started).toContain(id);
      r.finish(id);
    }
    await expect.poll(() => r.written.length).toBe(5);
    expect(r.connection.stats).toMatchObject({ queuedRequests: 0, queuedBytes: 0 });
  });

  it('answers a second waiting request with the same id with -32600 [J3]', async () => {
    const r = rig({ maxInFlight: 1 });
    r.send(hold('x'));
    r.send(hold('y'));
    r.send(hold('y'));
    await expect.poll(() => r.written.length).toBe(1);
    expect(r.written[0]).toMatchObject({ id: 'y', error: { code: -32600 } });
  });

  it('answers initialize beside a full gate, and a cancel of it is ignored [CN7]', async () => {
    const r = rig({ maxInFlight: 1 });
    r.send(hold('busy'));
    r.send({
      jsonrpc: '2.0',
      id: 'init',
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    r.send(cancel('init'));
    // Lifecycle requests take no work slot: it is answered while 'busy' still holds the only one.
    await expect.poll(() => r.written.map((m) => m.id)).toEqual(['init']);
    expect(r.written[0]).toMatchObject({ result: { protocolVersion: '2025-06-18' } });
    expect(r.connection.stats).toMatchObject({ queuedRequests: 0, cancelledWhileQueued: 0 });
    r.finish('busy');
    await expect.poll(() => r.written.map((m) => m.id)).toEqual(['init', 'busy']);
  });

  it('answers waiting requests as well as running ones with SHUTDOWN on a graceful close', async () => {
    const r = rig({ maxInFlight: 1 });
    r.send(hold('running'));
    r.send(hold('waiting'));
    await expect.poll(() => r.connection.stats.queuedRequests).toBe(1);
    await r.connection.close('maintenance');
    await expect.poll(() => r.written.length).toBe(2);
    for (const message of r.written)
      expect(message.error).toEqual({ code: -32000, message: 'maintenance', data: { cause: 'SHUTDOWN' } });
    expect(r.written.map((m) => m.id).sort()).toEqual(['running', 'waiting']);
    expect(r.started).toEqual(['running']);
  });

  it('drops waiting requests when the peer goes: they never ran, and nothing is left behind', async () => {
    const r = rig({ maxInFlight: 1 });
    for (const id of [1, 2, 3]) r.send(hold(id));
    await expect.poll(() => r.connection.stats.queuedRequests).toBe(2);
    r.connection.abort();
    await r.connection.closed;
    expect(r.connection.stats).toMatchObject({ queuedRequests: 0, queuedBytes: 0 });
    expect(r.connection.endpoint.stats.inboundInFlight).toBe(0);
    expect(r.started).toEqual([1]);
  });
});
