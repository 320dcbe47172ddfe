import { PassThrough, Writable } from 'node:stream';
import type { RequestContext } from '@mcp-inflight/core';
import { ManualClock } from '@mcp-inflight/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { connectStdio, DEFAULT_RESULT_GAP_MS, type StdioConnection } from '../src/index.js';

// The result gap on a server connection over real Node streams, on a ManualClock: the output records
// every write() and when the stream's callback came (clock time), so what waits, and for how long after
// the progress line left, is read on the writer side without sleeping.

interface Write {
  messages: Record<string, unknown>[];
  atMs: number;
  doneAtMs: number | undefined;
}

const open: StdioConnection[] = [];
afterEach(() => {
  for (const connection of open.splice(0)) connection.abort();
});

function setUp(gapMs?: number) {
  const clock = new ManualClock();
  const input = new PassThrough();
  const writes: Write[] = [];
  const output = new Writable({
    write(chunk, _encoding, callback) {
      const text = String(chunk).trimEnd();
      const write: Write = {
        messages: text.split('\n').map((line) => JSON.parse(line) as Record<string, unknown>),
        atMs: clock.now(),
        doneAtMs: undefined,
      };
      writes.push(write);
      // The OS takes the bytes a turn later, as a pipe's write callback comes.
      setImmediate(() => {
        write.doneAtMs = clock.now();
        callback();
      });
    },
  });
  const connection = connectStdio({
    input,
    output,
    role: 'server',
    clock,
    ...(gapMs === undefined ? {} : { resultGapMs: gapMs }),
  });
  open.push(connection);
  let releaseHeld!: () => void;
  const held = new Promise<void>((resolve) => {
    releaseHeld = resolve;
  });
  connection.endpoint.setRequestHandler('demo/progress-then-result', (_params, ctx: RequestContext) => {
    ctx.progress(1, 1);
    return { done: ctx.id };
  });
  connection.endpoint.setRequestHandler('demo/plain', (_params, ctx: RequestContext) => ({ done: ctx.id }));
  connection.endpoint.setRequestHandler('demo/progress-then-wait', async (_params, ctx: RequestContext) => {
    ctx.progress(1, 2);
    await held;
    return { done: ctx.id };
  });
  const send = (id: number, method: string, token?: string): void => {
    const params = token === undefined ? {} : { _meta: { progressToken: token } };
    input.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
  };
  /** The write that carries the response to `id`, or progress for `token`. */
  const responseWrite = (id: number) =>
    writes.find((w) => w.messages.some((m) => m.id === id && m.method === undefined));
  const progressWrite = (token: string) =>
    writes.findLast((w) =>
      w.messages.some(
        (m) =>
          m.method === 'notifications/progress' &&
          (m.params as { progressToken?: unknown }).progressToken === token,
      ),
    );
  return { clock, connection, writes, send, responseWrite, progressWrite, releaseHeld };
}

describe('resultGapMs on a stdio connection', () => {
  it('holds a response until the gap has passed since its progress line was written, and nothing else waits', async () => {
    const gapMs = 5;
    const { clock, connection, send, responseWrite, progressWrite } = setUp(gapMs);
    send(1, 'demo/progress-then-result', 'a');
    await expect.poll(() => progressWrite('a')?.doneAtMs).toBe(0);
    await expect.poll(() => connection.stats.heldResponses).toBe(1);
    expect(responseWrite(1)).toBeUndefined();
    const timersWhileHeld = clock.pendingTimers;
    expect(timersWhileHeld).toBeGreaterThanOrEqual(1);

    // Another request's response and another request's progress go out while the first one is held.
    send(2, 'demo/plain');
    send(3, 'demo/progress-then-wait', 'c');
    await expect.poll(() => responseWrite(2)).toBeDefined();
    await expect.poll(() => progressWrite('c')).toBeDefined();
    expect(responseWrite(1)).toBeUndefined();

    clock.advance(gapMs - 1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(responseWrite(1)).toBeUndefined();
    clock.advance(1);
    await expect.poll(() => responseWrite(1)).toBeDefined();
    const progress = progressWrite('a')!;
    expect(responseWrite(1)!.atMs - progress.doneAtMs!).toBeGreaterThanOrEqual(gapMs);
    expect(connection.stats).toMatchObject({ heldResponses: 0, gapDelayedResponses: 1 });
  });

  it('writes a response with no progress before it, or whose progress left a gap ago, at once and with no timer', async () => {
    const { clock, connection, send, responseWrite, progressWrite, releaseHeld } = setUp();
    const timersAtStart = clock.pendingTimers;
    send(1, 'demo/plain', 'a'); // a token, but no progress sent
    await expect.poll(() => responseWrite(1)).toBeDefined();
    expect(clock.pendingTimers).toBe(timersAtStart);

    send(2, 'demo/progress-then-wait', 'b');
    await expect.poll(() => progressWrite('b')?.doneAtMs).toBe(0);
    clock.advance(DEFAULT_RESULT_GAP_MS);
    releaseHeld();
    await expect.poll(() => responseWrite(2)).toBeDefined();
    expect(responseWrite(2)!.atMs).toBe(DEFAULT_RESULT_GAP_MS);
    expect(connection.stats.gapDelayedResponses).toBe(0);
  });

  it('with resultGapMs 0, writes the response right behind the progress, with no timer', async () => {
    const { clock, connection, send, responseWrite, progressWrite } = setUp(0);
    const timersAtStart = clock.pendingTimers;
    send(1, 'demo/progress-then-result', 'a');
    await expect.poll(() => responseWrite(1)).toBeDefined();
    expect(progressWrite('a')).toBeDefined();
    expect(responseWrite(1)!.atMs).toBe(0);
    expect(clock.pendingTimers).toBe(timersAtStart);
    expect(connection.stats.gapDelayedResponses).toBe(0);
  });

  it('a graceful close writes held responses at once and leaves no timer armed', async () => {
    const { clock, connection, send, responseWrite } = setUp(50);
    send(1, 'demo/progress-then-result', 'a');
    await expect.poll(() => connection.stats.heldResponses).toBe(1);
    await expect.poll(() => clock.pendingTimers).toBeGreaterThanOrEqual(1);
    await connection.close('done');
    expect(clock.pendingTimers).toBe(0);
    await expect.poll(() => responseWrite(1)).toBeDefined();
    expect(responseWrite(1)!.atMs).toBe(0); // no gap waited: the clock never moved
  });

  it('an abort drops held responses and leaves no timer armed', async () => {
    const { clock, connection, send, responseWrite, writes } = setUp(50);
    send(1, 'demo/progress-then-result', 'a');
    await expect.poll(() => connection.stats.heldResponses).toBe(1);
    await expect.poll(() => clock.pendingTimers).toBeGreaterThanOrEqual(1);
    connection.abort();
    expect(clock.pendingTimers).toBe(0);
    expect(connection.stats.heldResponses).toBe(0);
    const written = writes.length;
    clock.advance(100);
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes.length).toBe(written);
    expect(responseWrite(1)).toBeUndefined();
  });
});
