import { TimerQueue } from '@mcp-inflight/core/adapter';
import { ManualClock } from '@mcp-inflight/core/testing';
import { describe, expect, it } from 'vitest';
import { toResponse } from './exchange.js';
import { ResponseStream, type ResponseStreamOptions, type StreamOutcome } from './response-stream.js';

const progress = (n: number, message?: string) => ({
  jsonrpc: '2.0',
  method: 'notifications/progress',
  params: { progressToken: 't', progress: n, ...(message === undefined ? {} : { message }) },
});
const result = { jsonrpc: '2.0', id: 1, result: { content: [] } };

function make(overrides: Partial<ResponseStreamOptions> = {}) {
  const clock = (overrides.clock as ManualClock | undefined) ?? new ManualClock();
  const log = { disconnects: 0, parked: 0, outcomes: [] as StreamOutcome[] };
  const stream = new ResponseStream({
    clock,
    keepAliveMs: 1_000,
    budgetBytes: 1024 * 1024,
    stallMs: 1_000,
    maxMessageBytes: 1024 * 1024,
    // Most tests hold progress as soon as a byte waits; the default threshold has a test of its own.
    holdProgressAfterBytes: 0,
    acceptsJson: true,
    acceptsSse: true,
    headers: { 'x-test': '1' },
    onDisconnect: () => void log.disconnects++,
    onParked: () => void log.parked++,
    onEnd: (outcome) => void log.outcomes.push(outcome),
    ...overrides,
  });
  return { clock, log, stream };
}

const legacyIds = (priming = false) => ({
  key: '4',
  priming,
  retryMs: 500,
  maxBuffered: 3,
  maxBufferedBytes: 1024 * 1024,
});

/** Reads what is queued on an SSE body so far (the stream may still be open); yields, never sleeps. */
async function drain(body: ReadableStream<Uint8Array>): Promise<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    const next = await Promise.race([
      reader.read(),
      new Promise<'idle'>((r) => setImmediate(() => r('idle'))),
    ]);
    if (next === 'idle' || next.done) break;
    text += decoder.decode(next.value);
  }
  reader.releaseLock();
  return text;
}

describe('ResponseStream', () => {
  it('answers with JSON when the response is the first thing written', async () => {
    const { stream, log } = make();
    stream.send(result, true);
    const response = toResponse(await stream.response);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('x-test')).toBe('1');
    expect(await response.json()).toEqual(result);
    expect(log.outcomes).toEqual(['delivered']);
  });

  it('opens SSE for progress, then ends the stream with the response', async () => {
    const { stream, log } = make();
    stream.send(progress(1), false);
    stream.send(result, true);
    const response = toResponse(await stream.response);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(response.headers.get('x-accel-buffering')).toBe('no');
    const text = await response.text(); // completes: the stream ended
    expect(text).toBe(`data: ${JSON.stringify(progress(1))}\n\ndata: ${JSON.stringify(result)}\n\n`);
    expect(log.outcomes).toEqual(['delivered']);
  });

  it('maps a final message to a status (404 for -32601 on 2026-07-28)', async () => {
    const { stream } = make({ statusOf: () => 404 });
    stream.send({ jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'no' } }, true);
    expect(toResponse(await stream.response).status).toBe(404);
  });

  it('opens a quiet request as SSE after keepAliveMs and keeps it alive', async () => {
    const { stream, clock } = make();
    clock.advance(999);
    let opened = false;
    void stream.response.then(() => {
      opened = true;
    });
    await Promise.resolve();
    expect(opened).toBe(false);
    clock.advance(1);
    const response = toResponse(await stream.response);
    clock.advance(1_000);
    clock.advance(500); // not quiet long enough for a third
    expect(await drain(response.body!)).toBe(': keep-alive\n\n: keep-alive\n\n');
    stream.send(result, true);
    expect(clock.pendingTimers).toBe(0);
  });

  it('counts quiet time from the last write', async () => {
    const { stream, clock } = make();
    stream.send(progress(1), false);
    const body = toResponse(await stream.response).body!;
    await drain(body); // a reading client: nothing waits, so the next progress is written at once
    clock.advance(800);
    stream.send(progress(2), false);
    clock.advance(800); // 800 ms since the last write: no keep-alive yet
    expect(await drain(body)).not.toContain('keep-alive');
    clock.advance(200);
    expect(await drain(body)).toBe(': keep-alive\n\n');
  });

  it('keeps the keep-alive windows of many streams on one clock timer of their shared queue', async () => {
    const clock = new ManualClock();
    const windows = new TimerQueue(clock);
    const streams = Array.from({ length: 50 }, (_, i) => {
      clock.advance(1); // each opened a little later, as requests arrive
      return make({ clock, windows, headers: { 'x-stream': String(i) } }).stream;
    });
    expect(windows.size).toBe(50);
    expect(clock.pendingTimers).toBe(1);
    streams[0]!.send(result, true); // answered: its window leaves the queue
    expect(windows.size).toBe(49);
    clock.advance(1_000); // the last one opened has now been quiet for its keepAliveMs, and so has every other
    const opened = await Promise.all(
      streams.slice(1).map(async (s) => drain(toResponse(await s.response).body!)),
    );
    expect(new Set(opened)).toEqual(new Set([': keep-alive\n\n']));
    for (const stream of streams.slice(1)) stream.send(result, true);
    expect(windows.size).toBe(0);
    expect(clock.pendingTimers).toBe(0);
  });

  it('arms nothing with keep-alives off', () => {
    const { clock } = make({ keepAliveMs: 0 });
    expect(clock.pendingTimers).toBe(0);
  });

  it('drops progress for a JSON-only client and still sends the response', async () => {
    const { stream, clock } = make({ acceptsSse: false });
    expect(clock.pendingTimers).toBe(0); // no SSE, so no keep-alive to open one
    stream.send(progress(1), false);
    stream.send(result, true);
    expect(await toResponse(await stream.response).json()).toEqual(result);
    expect(stream.droppedMessages).toBe(1);
  });

  it('numbers legacy events and primes 2025-11-25 streams with an id and retry', async () => {
    const { stream } = make({ eventIds: legacyIds(true) });
    stream.send(progress(1), false);
    stream.send(result, true);
    const text = await toResponse(await stream.response).text();
    expect(text.split('\n\n').filter(Boolean)).toEqual([
      'id: 4-0\nretry: 500\ndata:',
      `id: 4-1\ndata: ${JSON.stringify(progress(1))}`,
      `id: 4-2\ndata: ${JSON.stringify(result)}`,
    ]);
  });

  it('writes long messages (ASCII, and text that needs more bytes than chars) as exact frames, with and without ids', async () => {
    for (const eventIds of [undefined, legacyIds()]) {
      const { stream } = make({
        ...(eventIds ? { eventIds } : {}),
        budgetBytes: 8 << 20,
        maxMessageBytes: 8 << 20,
      });
      const ascii = progress(1, 'a'.repeat(200_000));
      const wide = progress(2, 'é✓😀'.repeat(40_000));
      const last = {
        jsonrpc: '2.0',
        id: 1,
        result: { content: [{ type: 'text', text: 'b'.repeat(100_000) }] },
      };
      stream.send(ascii, false);
      stream.send(wide, false);
      stream.send(last, true);
      const bytes = new Uint8Array(await toResponse(await stream.response).arrayBuffer());
      const id = (n: number) => (eventIds ? `id: 4-${n}\n` : '');
      const expected = [ascii, wide, last]
        .map((m, i) => `${id(i + 1)}data: ${JSON.stringify(m)}\n\n`)
        .join('');
      // Compared as text (a byte-wise toEqual on a megabyte is slow); bad bytes would decode to U+FFFD.
      expect(bytes.length).toBe(new TextEncoder().encode(expected).length);
      expect(new TextDecoder().decode(bytes) === expected).toBe(true);
    }
  });

  it('2026-07-28: a disconnect is final and reported before the end', () => {
    const order: string[] = [];
    const { stream } = make({ onDisconnect: () => order.push('disconnect'), onEnd: (o) => order.push(o) });
    stream.send(progress(1), false);
    stream.disconnect();
    stream.send(result, true);
    expect(order).toEqual(['disconnect', 'closed']);
    expect(stream.ended).toBe(true);
    expect(stream.droppedMessages).toBe(1);
  });

  it('legacy: a detached stream keeps its events and replays those after Last-Event-ID', async () => {
    const { stream, log } = make({ eventIds: legacyIds() });
    stream.send(progress(1), false);
    stream.disconnect();
    expect(log.disconnects).toBe(1);
    expect(stream.ended).toBe(false);
    stream.send(progress(2), false);
    stream.send(result, true);
    expect(log.parked).toBe(1);
    const resumed = toResponse(stream.attach(1, {})!);
    expect(await resumed.text()).toBe(
      `id: 4-2\ndata: ${JSON.stringify(progress(2))}\n\nid: 4-3\ndata: ${JSON.stringify(result)}\n\n`,
    );
    expect(log.outcomes).toEqual(['delivered']);
  });

  it('legacy: a resumed stream goes on live until the response', async () => {
    const { stream } = make({ eventIds: legacyIds() });
    stream.send(progress(1), false);
    stream.disconnect();
    const resumed = toResponse(stream.attach(1, {})!);
    stream.send(result, true);
    expect(await resumed.text()).toBe(`id: 4-2\ndata: ${JSON.stringify(result)}\n\n`);
  });

  it('legacy: keeps at most maxBuffered events, never losing the newest', async () => {
    const { stream } = make({ eventIds: legacyIds() });
    stream.send(progress(1), false);
    stream.disconnect();
    for (let n = 2; n <= 5; n++) stream.send(progress(n), false);
    stream.send(result, true);
    const text = await toResponse(stream.attach(0, {})!).text();
    expect(text.match(/id: 4-\d+/g)).toEqual(['id: 4-4', 'id: 4-5', 'id: 4-6']);
  });

  it('legacy: a parked result nobody resumes is dropped at expiry', () => {
    const { stream, log } = make({ eventIds: legacyIds() });
    stream.send(progress(1), false);
    stream.disconnect();
    stream.send(result, true);
    stream.expire();
    expect(log.outcomes).toEqual(['dropped']);
    expect(stream.attach(0, {})).toBeUndefined();
  });

  it('legacy: a stream dropped before any event id cannot be resumed; its result is dropped', () => {
    const { stream, log } = make({ eventIds: legacyIds() });
    stream.disconnect(); // still waiting: nothing reached the client
    stream.send(result, true);
    expect(log.outcomes).toEqual(['dropped']);
  });

  it('legacy: ending a stream whose result is parked counts the result as dropped', () => {
    const { stream, log } = make({ eventIds: legacyIds() });
    stream.send(progress(1), false);
    stream.disconnect();
    stream.send(result, true);
    stream.end(); // the session ended before anyone resumed
    expect(log.outcomes).toEqual(['dropped']);
  });

  it('end() answers a waiting POST with an empty SSE stream, or 204 for a JSON-only client', async () => {
    const sse = make();
    sse.stream.end();
    expect(await toResponse(await sse.stream.response).text()).toBe('');
    expect(sse.log.outcomes).toEqual(['closed']);
    const json = make({ acceptsSse: false });
    json.stream.end();
    expect((await json.stream.response).status).toBe(204);
  });

  it('the consumer cancelling the body is a disconnect', async () => {
    const { stream, log } = make({ eventIds: legacyIds() });
    stream.send(progress(1), false);
    await toResponse(await stream.response).body!.cancel();
    expect(log.disconnects).toBe(1);
    expect(stream.attached).toBe(false);
  });
});

describe('ResponseStream flow control (a client that is not reading)', () => {
  const progressOf = (text: string) =>
    [...text.matchAll(/"progress":(\d+)/g)].map((match) => Number(match[1]));

  it('holds progress back to the latest value per token while the client is not reading', async () => {
    const { stream } = make();
    for (let n = 1; n <= 50; n++) stream.send(progress(n), false);
    expect(stream.bufferedBytes).toBeGreaterThan(0);
    const body = toResponse(await stream.response).body!;
    // The first was queued when nothing waited; 2..49 were superseded while it sat there.
    expect(progressOf(await drain(body))).toEqual([1, 50]);
    stream.send(progress(51), false); // the client reads again: written at once
    expect(progressOf(await drain(body))).toEqual([51]);
    expect(stream.bufferedBytes).toBe(0);
  });

  it('by default queues every value while under 64 KiB waits, then holds the latest, in order', async () => {
    const { stream } = make({ holdProgressAfterBytes: undefined });
    for (let n = 1; n <= 50; n++) stream.send(progress(n), false); // one tick's burst, a few KiB
    const body = toResponse(await stream.response).body!;
    expect(progressOf(await drain(body))).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    const big = 'x'.repeat(30_000);
    for (let n = 51; n <= 60; n++) stream.send(progress(n, big), false); // past 64 KiB after the third
    stream.send(progress(61), false); // small, but something is held: it waits behind it
    expect(stream.bufferedBytes).toBeGreaterThan(64 * 1024);
    const values = progressOf(await drain(body));
    expect(values).toEqual([51, 52, 53, 61]);
    expect(stream.bufferedBytes).toBe(0);
  });

  it('puts the held progress before the response', async () => {
    const { stream, log } = make();
    stream.send(progress(1), false);
    stream.send(progress(2), false);
    stream.send(progress(3), false);
    stream.send(result, true);
    const text = await toResponse(await stream.response).text();
    expect(progressOf(text)).toEqual([1, 3]);
    expect(text.indexOf('"progress":3')).toBeLessThan(text.indexOf('"result"'));
    expect(log.outcomes).toEqual(['delivered']);
  });

  it('2026-07-28: a backlog over the budget that does not shrink for stallMs ends the stream as a slow disconnect', async () => {
    const whys: string[] = [];
    const { clock, stream, log } = make({ budgetBytes: 300, onDisconnect: (why) => void whys.push(why) });
    stream.send(progress(1), false);
    const big = { jsonrpc: '2.0', id: 1, result: { text: 'x'.repeat(400) } };
    stream.send(big, true);
    // One write over the budget is no verdict (rule 13): only a backlog that stays there is.
    expect(whys).toEqual([]);
    clock.advance(999);
    expect(whys).toEqual([]);
    clock.advance(1);
    expect(whys).toEqual(['slow']);
    expect(log.outcomes).toEqual(['dropped']); // the result was written, and lost with the connection
    expect(stream.bufferedBytes).toBe(0);
    await expect(toResponse(await stream.response).text()).rejects.toThrow(/byte budget/);
  });

  it('a client that reads a backlog over the budget is never cut, and gets the result', async () => {
    const whys: string[] = [];
    // 600: the two messages (900 bytes) are over the budget, and within it plus one message (rule 14).
    const { clock, stream, log } = make({ budgetBytes: 600, onDisconnect: (why) => void whys.push(why) });
    stream.send(progress(1, 'p'.repeat(400)), false);
    const response = toResponse(await stream.response);
    stream.send({ jsonrpc: '2.0', id: 1, result: { text: 'x'.repeat(400) } }, true);
    const reader = response.body!.getReader();
    await reader.read(); // one event read in the first window: the backlog shrank
    clock.advance(1_000);
    expect(whys).toEqual([]);
    let text = '';
    for (let next = await reader.read(); !next.done; next = await reader.read())
      text += new TextDecoder().decode(next.value);
    clock.advance(5_000);
    expect(whys).toEqual([]);
    expect(text).toContain('x'.repeat(400));
    expect(log.outcomes).toEqual(['delivered']);
  });

  it('a response over maxMessageBytes becomes an error for its request; other messages over it are dropped', async () => {
    const counters = { oversizeMessages: 0 };
    const { stream, log } = make({ maxMessageBytes: 200, stats: counters });
    stream.send(progress(1, 'p'.repeat(300)), false);
    stream.send(progress(2), false);
    stream.send({ jsonrpc: '2.0', id: 1, result: { text: 'x'.repeat(300) } }, true);
    const text = await toResponse(await stream.response).text();
    expect(progressOf(text)).toEqual([2]);
    expect(text).toContain('"code":-32603');
    expect(text).toContain('"maxMessageBytes":200');
    expect(text).not.toContain('x'.repeat(300));
    expect(counters.oversizeMessages).toBe(2);
    expect(stream.droppedMessages).toBe(1);
    expect(log.outcomes).toEqual(['delivered']);
  });

  it('one message is always accepted, however large; the stream ends once the client has read it', async () => {
    const { stream, log } = make({ budgetBytes: 100 });
    stream.send(progress(1), false);
    const body = toResponse(await stream.response).body!;
    await drain(body);
    stream.send({ jsonrpc: '2.0', id: 1, result: { text: 'x'.repeat(400) } }, true);
    expect(await drain(body)).toContain('x'.repeat(400));
    expect(log.outcomes).toEqual(['delivered']);
  });

  it('legacy: the result of a stalled client waits for a resume; the replay log is bounded in bytes', async () => {
    const whys: string[] = [];
    const { clock, stream, log } = make({
      budgetBytes: 300,
      eventIds: { ...legacyIds(true), maxBuffered: 100, maxBufferedBytes: 500 },
      onDisconnect: (why) => void whys.push(why),
    });
    stream.send(progress(1), false);
    stream.send(progress(2), false); // held
    const big = { jsonrpc: '2.0', id: 1, result: { text: 'x'.repeat(400) } };
    stream.send(big, true);
    expect(log.parked).toBe(0);
    clock.advance(1_000);
    expect(whys).toEqual(['slow']);
    expect(log.parked).toBe(1);
    expect(stream.replayBytes).toBeLessThanOrEqual(500);
    const resumed = toResponse(stream.attach(0, {})!);
    const text = await resumed.text();
    expect(text).toContain('x'.repeat(400)); // the newest event always stays
    expect(log.outcomes).toEqual(['delivered']);
  });
});
