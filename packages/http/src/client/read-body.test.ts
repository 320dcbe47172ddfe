import { ManualClock } from '@mcp-inflight/core/testing';
import { describe, expect, it } from 'vitest';
import { readJson, settleWithin } from './read-body.js';

const flush = async () => {
  for (let i = 0; i < 5; i++) await Promise.resolve();
};

describe('settleWithin', () => {
  it('settles with the work, or at the bound, and never rejects', async () => {
    const clock = new ManualClock();
    await settleWithin(Promise.reject(new Error('refused')), 1_000, clock);
    expect(clock.pendingTimers).toBe(0);
    let settled = false;
    const bounded = settleWithin(new Promise(() => {}), 1_000, clock).then(() => {
      settled = true;
    });
    clock.advance(999);
    await flush();
    expect(settled).toBe(false);
    clock.advance(1);
    await bounded;
  });
});

/** A response whose body arrives in the given pieces, then ends or (with `fail`) breaks. */
function responseOf(pieces: Uint8Array[], length: number, fail?: Error): Response {
  let i = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i < pieces.length) controller.enqueue(pieces[i++]!);
      else if (fail) controller.error(fail);
      else controller.close();
    },
  });
  return new Response(body, {
    headers: { 'content-type': 'application/json', 'content-length': String(length) },
  });
}

describe('readJson', () => {
  it('parses a long body cut in many chunks, inside multi-byte characters too, as response.json() does', async () => {
    const message = { jsonrpc: '2.0', id: 1, result: { text: 'aé✓😀\ufeff'.repeat(20_000) } };
    const bytes = new TextEncoder().encode(`\ufeff${JSON.stringify(message)}`); // a leading BOM is dropped
    const pieces: Uint8Array[] = [];
    for (let at = 0; at < bytes.length; at += 4_099) pieces.push(bytes.subarray(at, at + 4_099));
    expect(bytes.length).toBeGreaterThan(64 * 1024);
    expect(await readJson(responseOf(pieces, bytes.length))).toEqual(message);
    expect(await responseOf(pieces, bytes.length).json()).toEqual(message);
  });

  it('parses a short body whole, and rejects a long body whose connection breaks or that is not JSON', async () => {
    const short = new TextEncoder().encode('{"a":1}');
    expect(await readJson(responseOf([short], short.length))).toEqual({ a: 1 });
    const long = new TextEncoder().encode(`{"a":"${'x'.repeat(70_000)}"}`);
    await expect(
      readJson(responseOf([long.subarray(0, 100)], long.length, new Error('cut'))),
    ).rejects.toThrow('cut');
    await expect(readJson(responseOf([long.subarray(0, 70_000)], long.length))).rejects.toThrow(SyntaxError);
  });
});
