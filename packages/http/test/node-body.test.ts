// readNodeBody decodes a body chunk by chunk: characters and a BOM split across chunks come out whole,
// as one decode of the joined bytes would make them.
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readNodeBody } from '../src/node/node-listener.js';

const GONE = new Error('gone');

function body(chunks: Buffer[]): IncomingMessage {
  return Readable.from(chunks, { objectMode: false }) as unknown as IncomingMessage;
}

/** `bytes` cut at every offset in `cuts`. */
function split(bytes: Buffer, cuts: number[]): Buffer[] {
  const out: Buffer[] = [];
  let at = 0;
  for (const cut of cuts) {
    out.push(bytes.subarray(at, cut));
    at = cut;
  }
  out.push(bytes.subarray(at));
  return out;
}

describe('readNodeBody', () => {
  const text = '{"a":"é😀x"}';
  const bytes = Buffer.from(text, 'utf8');

  it('reads one chunk, and no chunk', async () => {
    expect(await readNodeBody(body([bytes]), 1_000, GONE)).toBe(text);
    expect(await readNodeBody(body([]), 1_000, GONE)).toBe('');
  });

  it('joins characters cut at every byte offset', async () => {
    for (let cut = 1; cut < bytes.length; cut++)
      expect(await readNodeBody(body(split(bytes, [cut])), 1_000, GONE)).toBe(text);
    // every byte its own chunk
    expect(await readNodeBody(body(split(bytes, [...bytes.keys()].slice(1))), 1_000, GONE)).toBe(text);
  });

  it('drops a leading BOM, even split across chunks', async () => {
    const withBom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes]);
    expect(await readNodeBody(body([withBom]), 1_000, GONE)).toBe(text);
    expect(await readNodeBody(body(split(withBom, [1, 2])), 1_000, GONE)).toBe(text);
  });

  it('ends a character cut short as U+FFFD, as one decode does', async () => {
    const cutShort = Buffer.concat([Buffer.from('ab'), Buffer.from('😀').subarray(0, 2)]);
    const expected = cutShort.toString('utf8');
    expect(expected.endsWith('\ufffd')).toBe(true);
    expect(await readNodeBody(body(split(cutShort, [1, 3])), 1_000, GONE)).toBe(expected);
  });

  it('gives undefined past maxBytes', async () => {
    expect(await readNodeBody(body(split(bytes, [4, 8])), 8, GONE)).toBeUndefined();
    expect(await readNodeBody(body(split(bytes, [4, 8])), bytes.length, GONE)).toBe(text);
  });
});
