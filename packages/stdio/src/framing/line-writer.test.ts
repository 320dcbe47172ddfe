import { Writable } from 'node:stream';
import { ManualClock } from '@mcp-inflight/core/testing';
import { describe, expect, it } from 'vitest';
import { LineWriter } from './line-writer.js';

/** A real Writable with a tiny buffer whose consumer is released by hand, to create backpressure. */
function slowSink(highWaterMark: number) {
  const chunks: (string | Buffer)[] = [];
  const held: (() => void)[] = [];
  const sink = new Writable({
    highWaterMark,
    decodeStrings: false,
    write(chunk: string, _encoding, done) {
      chunks.push(chunk);
      held.push(done);
    },
  });
  const release = async (): Promise<void> => {
    while (held.length > 0) {
      held.shift()!();
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  return { sink, chunks, release, text: () => chunks.join('') };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('LineWriter', () => {
  it('tells a watcher when the write carrying its line was taken, and only that write gets a callback', async () => {
    const { sink, chunks, release } = slowSink(1 << 20);
    const writer = new LineWriter(sink);
    const taken: number[] = [];
    writer.writeLine('{"a":1}');
    await tick(); // write call 1, nobody watching
    const call = writer.nextWriteCall;
    writer.writeLine('{"b":2}');
    writer.whenWritten(call, (n) => taken.push(n));
    expect(call).toBe(2);
    await tick();
    expect(taken).toEqual([]); // the sink has not taken it yet
    await release();
    expect(chunks).toEqual(['{"a":1}\n', '{"b":2}\n']);
    expect(taken).toEqual([2]);
  });

  it('joins the lines of one tick into a single write', async () => {
    const { sink, chunks, release } = slowSink(1 << 20);
    const writer = new LineWriter(sink);
    writer.writeLine('{"a":1}');
    writer.writeLine('{"b":2}');
    expect(chunks).toEqual([]); // never written from inside the producer's call
    await tick();
    await release();
    expect(chunks).toEqual(['{"a":1}\n{"b":2}\n']);
    expect(writer.stats).toMatchObject({ messages: 2, writeCalls: 1, drainWaits: 0 });
  });

  it("sends a busy tick's first 8, 16 and 32 lines while the producer still queues, the rest at its end, in order", async () => {
    const { sink, chunks, release, text } = slowSink(1 << 20);
    const writer = new LineWriter(sink);
    const taken: number[] = [];
    const lines = Array.from({ length: 209 }, (_, i) => `{"n":${i}}`);
    for (let i = 0; i < 8; i++) writer.writeLine(lines[i]!);
    expect(chunks).toEqual([]); // 8 lines wait for the tick's end
    writer.writeLine(lines[8]!);
    expect(chunks).toEqual([`${lines.slice(0, 8).join('\n')}\n`]); // a peer can start on these now
    // The line just queued rides the next write call, so a watcher is told of the write that carries it.
    const call = writer.nextWriteCall;
    writer.whenWritten(call, (n) => taken.push(n));
    for (let i = 9; i < 200; i++) writer.writeLine(lines[i]!);
    await tick();
    // The next tick starts again at 8.
    for (let i = 200; i < 209; i++) writer.writeLine(lines[i]!);
    await tick();
    await release();
    expect(text()).toBe(`${lines.join('\n')}\n`);
    expect(chunks.map((chunk) => chunk.split('\n').length - 1)).toEqual([8, 16, 32, 144, 8, 1]);
    expect(call).toBe(2);
    expect(taken).toEqual([2]);
    expect(writer.stats).toMatchObject({ messages: 209, writeCalls: 6 });
  });

  it('writes a long line as it is with its newline apart, in order among short ones, and calls back on the last piece', async () => {
    const { sink, chunks, release, text } = slowSink(1 << 30);
    const writer = new LineWriter(sink);
    const long = `{"t":"${'x'.repeat(100_000)}"}`;
    const taken: number[] = [];
    writer.writeLine('{"a":1}');
    writer.writeLine('{"b":2}');
    writer.writeLine(long);
    writer.writeLine(long);
    writer.writeLine('{"c":3}');
    writer.whenWritten(writer.nextWriteCall, (n) => taken.push(n));
    await tick();
    await release();
    expect(text()).toBe(`{"a":1}\n{"b":2}\n${long}\n${long}\n{"c":3}\n`);
    // Each long line is a write of its own: no joined copy was made to append its newline.
    expect(chunks.filter((chunk) => chunk === long)).toHaveLength(2);
    expect(taken).toEqual([1]);
    expect(writer.stats).toMatchObject({ messages: 5, writeCalls: 1 });
    writer.writeLine(long);
    writer.whenWritten(writer.nextWriteCall, (n) => taken.push(n));
    await tick();
    await release();
    expect(chunks.slice(-2)).toEqual([long, '\n']);
    expect(taken).toEqual([1, 2]);
  });

  it('writes a long line given in pieces piece by piece, never joined, counted once under backpressure', async () => {
    const { sink, chunks, release, text } = slowSink(16);
    const writer = new LineWriter(sink);
    const literal = `"${'k'.repeat(5_000)}é"`; // past 4 KiB: under backpressure it waits as it came
    const pieces = ['{"jsonrpc":"2.0","id":1,"result":{"text":', literal, '}}'];
    writer.writeLine('{"a":1}');
    writer.writeLine(pieces);
    await tick();
    expect(chunks[0]).toBe('{"a":1}\n'); // the short line before it goes first, on its own
    writer.writeLine(pieces); // the stream is past its mark: this one is counted while it waits
    expect(writer.stats.unsentBytes).toBe(Buffer.byteLength(pieces.join('')) + 1);
    await release();
    await tick();
    await release();
    expect(text()).toBe(`{"a":1}\n${pieces.join('')}\n${pieces.join('')}\n`);
    expect(chunks.filter((chunk) => chunk === literal)).toHaveLength(2);
    expect(writer.stats).toMatchObject({ messages: 3, unsentBytes: 0 });
  });

  it('queues in order under backpressure, measures the queue, and resumes on drain', async () => {
    const { sink, release, text } = slowSink(16);
    const writer = new LineWriter(sink);
    writer.writeLine('x'.repeat(32)); // passes the stream's high-water mark
    await tick();
    for (let i = 0; i < 100; i++) writer.writeLine(`{"n":${i}}`); // producer never blocks
    expect(writer.stats.drainWaits).toBe(1);
    expect(writer.stats.unsentBytes).toBeGreaterThan(0);
    const peak = writer.stats.peakUnsentBytes;
    expect(peak).toBe(writer.stats.unsentBytes);
    await release();
    await tick();
    await release();
    const expected = ['x'.repeat(32), ...Array.from({ length: 100 }, (_, i) => `{"n":${i}}`)];
    expect(text()).toBe(`${expected.join('\n')}\n`);
    expect(writer.stats.unsentBytes).toBe(0);
    expect(writer.stats.peakUnsentBytes).toBe(peak);
  });

  it('stops and reports once when a peer that does not read leaves the queue over its bound for stallMs', async () => {
    const { sink, chunks } = slowSink(16);
    const overflows: [number, string][] = [];
    const clock = new ManualClock();
    const writer = new LineWriter(sink, {
      maxUnsentBytes: 1_000,
      stallMs: 500,
      clock,
      onOverflow: (bytes, verdict) => overflows.push([bytes, verdict]),
    });
    writer.writeLine('x'.repeat(32));
    await tick();
    for (let i = 0; i < 40; i++) writer.writeLine('y'.repeat(20)); // 840 bytes: within the budget
    writer.writeLine('z'.repeat(2_000)); // past it by one message
    expect(overflows).toHaveLength(0); // over the bound is no verdict yet (rule 13)
    clock.advance(500);
    expect(overflows).toEqual([[33 + 840 + 2_001, 'stalled']]);
    expect(writer.stopped).toBe(true);
    writer.writeLine('dropped');
    await tick();
    expect(chunks).toHaveLength(1);
  });

  it('never holds more than the budget plus one message: a line past that overflows at once (rule 14)', async () => {
    const { sink, chunks } = slowSink(16);
    const overflows: [number, string][] = [];
    const writer = new LineWriter(sink, {
      maxUnsentBytes: 1_000,
      clock: new ManualClock(),
      onOverflow: (bytes, verdict) => overflows.push([bytes, verdict]),
    });
    writer.writeLine('x'.repeat(32));
    await tick();
    let accepted = 0;
    for (let i = 0; i < 10_000 && !writer.stopped; i++, accepted++) writer.writeLine('y'.repeat(20));
    // Before the cap, all 10,000 lines (210,000 bytes) waited for a stall window to run out.
    expect(overflows).toHaveLength(1);
    const [bytes, verdict] = overflows[0]!;
    expect(verdict).toBe('over-cap');
    expect(bytes).toBeLessThanOrEqual(1_000 + 33);
    expect(bytes + 21).toBeGreaterThan(1_000 + 33);
    expect(accepted).toBe(Math.floor((1_000 + 33 - 33) / 21) + 1);
    await tick();
    expect(chunks).toHaveLength(1);
  });

  it('hands a tick over before it passes the budget, so one tick cannot queue past the cap either', async () => {
    const { sink } = slowSink(16);
    const overflows: [number, string][] = [];
    const writer = new LineWriter(sink, {
      maxUnsentBytes: 1_000,
      clock: new ManualClock(),
      onOverflow: (bytes, verdict) => overflows.push([bytes, verdict]),
    });
    // One tick of 10 lines of 201 bytes: before, one write of 2,010 bytes and no verdict for a stall window.
    for (let i = 0; i < 10; i++) writer.writeLine('r'.repeat(200));
    expect(writer.stats.writeCalls).toBe(1); // the first 4 (804 bytes) went before the 5th passed the budget
    expect(overflows).toEqual([[804 + 201, 'over-cap']]);
    expect(writer.stopped).toBe(true);
  });

  it('waits small lines as bytes and writes them in order after the drain, with long ones as they came', async () => {
    const { sink, chunks, release, text } = slowSink(16);
    const writer = new LineWriter(sink);
    writer.writeLine('x'.repeat(32));
    await tick();
    const long = `{"t":"${'é'.repeat(5_000)}"}`;
    const lines = ['{"a":"é"}', long, '{"b":2}', ['{"c":', '"p"', '}'], long];
    for (const line of lines) writer.writeLine(line);
    expect(writer.stats.unsentBytes).toBe(
      lines.reduce(
        (sum, line) => sum + Buffer.byteLength(typeof line === 'string' ? line : line.join('')) + 1,
        0,
      ),
    );
    await release();
    await tick();
    await release();
    const expected = [
      'x'.repeat(32),
      ...lines.map((line) => (typeof line === 'string' ? line : line.join(''))),
    ];
    expect(text()).toBe(`${expected.join('\n')}\n`);
    // A short line waited as bytes in a slab (a string or an array of pieces costs 2-4x its bytes).
    expect(Buffer.isBuffer(chunks[1])).toBe(true);
    expect(Buffer.from(chunks[1]!).toString()).toBe('{"a":"é"}\n');
    expect(writer.stats).toMatchObject({ unsentBytes: 0, messages: 6 });
  });

  it('never stops for one large write to a peer that reads it (rule 13)', async () => {
    const { sink, release, text } = slowSink(16);
    const overflows: number[] = [];
    const clock = new ManualClock();
    const writer = new LineWriter(sink, {
      maxUnsentBytes: 1_000,
      stallMs: 500,
      clock,
      onOverflow: (bytes) => overflows.push(bytes),
    });
    writer.writeLine('r'.repeat(5_000)); // five times the budget in one line
    await tick();
    clock.advance(499);
    await release(); // the peer reads it all
    clock.advance(10_000);
    expect(overflows).toEqual([]);
    expect(writer.stopped).toBe(false);
    expect(text()).toBe(`${'r'.repeat(5_000)}\n`);
  });

  it('hands everything over at close even under backpressure', async () => {
    const { sink, release, text } = slowSink(16);
    const writer = new LineWriter(sink);
    writer.writeLine('x'.repeat(32));
    await tick();
    writer.writeLine('last');
    writer.handOver();
    expect(writer.stats.unsentBytes).toBe(0);
    await release();
    expect(text()).toBe(`${'x'.repeat(32)}\nlast\n`);
  });
});
