import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LineFramer } from './line-framer.js';

function collect(maxLineBytes?: number) {
  const lines: string[] = [];
  const overlong: number[] = [];
  const framer = new LineFramer({
    onLine: (line) => lines.push(line),
    onOverlong: (bytes) => overlong.push(bytes),
    ...(maxLineBytes === undefined ? {} : { maxLineBytes }),
  });
  return { framer, lines, overlong };
}

/** The oracle for a blank line: only JSON whitespace (SP, HT, CR); LF is the delimiter. */
const JSON_BLANK = /^[ \t\r]*$/;

describe('LineFramer', () => {
  it('joins a line split across chunks, including inside a multi-byte character', () => {
    const { framer, lines } = collect();
    const bytes = Buffer.from('{"text":"héllo ✓"}\n', 'utf8');
    const cut = bytes.indexOf(Buffer.from('✓')) + 1; // inside the 3-byte check mark
    framer.push(bytes.subarray(0, 5));
    framer.push(bytes.subarray(5, cut));
    expect(lines).toEqual([]);
    framer.push(bytes.subarray(cut));
    expect(lines).toEqual(['{"text":"héllo ✓"}']);
  });

  it('reads several lines from one chunk, tolerates \\r\\n, and skips blank lines', () => {
    const { framer, lines } = collect();
    framer.push('{"a":1}\r\n\n   \r\n{"b":2}\n{"c"');
    framer.push(':3}\r');
    framer.push('\n');
    expect(lines).toEqual(['{"a":1}', '{"b":2}', '{"c":3}']);
    expect(framer.stats).toMatchObject({ lines: 3, blankLines: 2 });
  });

  it('skips only SP, HT and CR as blank; other Unicode spaces are passed on, alone or after a space', () => {
    const { framer, lines } = collect();
    framer.push(' \t \r\n\u2000\n \u2000\n\u00a0\n\t\ufeff\n');
    expect(lines).toEqual(['\u2000', ' \u2000', '\u00a0', '\t\ufeff']);
    expect(framer.stats).toMatchObject({ lines: 4, blankLines: 1 });
  });

  it('skips an overlong line with bounded memory, reports its full size once, and resyncs at the newline', () => {
    const { framer, lines, overlong } = collect(10);
    framer.push('{"ok":1}\n0123456');
    framer.push('789ABCDEF'); // passes the limit here: nothing more is held
    expect(framer.pendingBytes).toBe(0);
    framer.push('GHIJ\n{"ok":2}\n');
    expect(lines).toEqual(['{"ok":1}', '{"ok":2}']);
    expect(overlong).toEqual([20]);
    expect(framer.stats.overlongLines).toBe(1);
  });

  it('rejects a line over the limit that arrives whole in one chunk', () => {
    const { framer, lines, overlong } = collect(4);
    framer.push('12345\n1234\n');
    expect(overlong).toEqual([5]);
    expect(lines).toEqual(['1234']);
  });

  it('discards and counts an unfinished last line at end of input', () => {
    const { framer, lines } = collect();
    framer.push('{"whole":true}\n{"trunc');
    expect(framer.end()).toBe(7);
    expect(lines).toEqual(['{"whole":true}']);
    expect(framer.stats.truncatedBytesAtEnd).toBe(7);
    expect(() => framer.push('x')).toThrow(/after end/);
  });

  it('decodes a multi-byte character split across chunks at every cut, alone and mid-line', () => {
    for (const char of ['é', '✓', '😀']) {
      const bytes = Buffer.from(`{"t":"a${char}b"}\n`, 'utf8');
      const at = bytes.indexOf(Buffer.from(char));
      for (let cut = at + 1; cut < at + Buffer.byteLength(char); cut++) {
        const { framer, lines } = collect();
        framer.push(bytes.subarray(0, cut));
        framer.push(bytes.subarray(cut, cut + 1)); // the rest of the character may come byte by byte
        framer.push(bytes.subarray(cut + 1));
        expect(lines).toEqual([`{"t":"a${char}b"}`]);
      }
    }
  });

  it('joins a long line split in many chunks, with characters cut at chunk ends and a CR in its own chunk', () => {
    const text = `{"t":"${'ab✓😀'.repeat(50_000)}"}`;
    const bytes = Buffer.from(`${text}\r\n{"next":1}\n`, 'utf8');
    const { framer, lines } = collect();
    const crAt = bytes.indexOf(13);
    for (let at = 0; at < crAt; at += 1_001) framer.push(bytes.subarray(at, Math.min(at + 1_001, crAt)));
    framer.push(bytes.subarray(crAt, crAt + 1));
    framer.push(bytes.subarray(crAt + 1));
    expect(lines).toEqual([text, '{"next":1}']);
    expect(framer.stats).toMatchObject({ lines: 2, overlongLines: 0 });
  });

  it('measures a line split in chunks in bytes, not characters, and a half character does not leak into the next line', () => {
    const char = '😀'; // 4 bytes, 2 UTF-16 units
    const { framer, lines, overlong } = collect(4 * 10);
    const fits = Buffer.from(char.repeat(10), 'utf8'); // 40 bytes: at the limit
    framer.push(fits.subarray(0, 21));
    framer.push(Buffer.concat([fits.subarray(21), Buffer.from('\n')]));
    const over = Buffer.from(`${char.repeat(10)}x`, 'utf8'); // 41 bytes, 21 characters
    framer.push(over.subarray(0, 38)); // ends inside a character
    framer.push(Buffer.concat([over.subarray(38), Buffer.from('\n')]));
    framer.push('{"ok":'); // the next line spans chunks too, and starts clean
    framer.push('1}\n');
    framer.push(Buffer.from(char, 'utf8').subarray(0, 2)); // an unfinished character, then a line over the limit
    framer.push('y'.repeat(45));
    framer.push('\n{"ok":');
    framer.push('2}\n');
    expect(lines).toEqual([char.repeat(10), '{"ok":1}', '{"ok":2}']);
    expect(overlong).toEqual([41, 47]);
  });

  it('yields the same lines however the bytes are chunked (property)', () => {
    const line = fc.string({ unit: 'grapheme', maxLength: 40 }).map((s) => s.replace(/[\r\n]/g, ''));
    fc.assert(
      fc.property(
        fc.array(line, { maxLength: 20 }),
        fc.array(fc.nat(60), { maxLength: 30 }),
        (input, cuts) => {
          const bytes = Buffer.from(input.map((l) => `${l}\n`).join(''), 'utf8');
          const { framer, lines } = collect();
          let at = 0;
          for (const cut of cuts) {
            const next = Math.min(bytes.length, at + cut);
            framer.push(bytes.subarray(at, next));
            at = next;
          }
          framer.push(bytes.subarray(at));
          expect(lines).toEqual(input.filter((l) => !JSON_BLANK.test(l)));
        },
      ),
    );
  });
});

describe('LineFramer with onLongLine', () => {
  function collectBoth(longLineBytes: number, maxLineBytes?: number) {
    const events: Array<{ text: string } | { bytes: Buffer }> = [];
    const overlong: number[] = [];
    const framer = new LineFramer({
      onLine: (text) => events.push({ text }),
      onLongLine: (bytes) => events.push({ bytes: Buffer.from(bytes) }), // a copy: the view may be reused
      onOverlong: (bytes) => overlong.push(bytes),
      longLineBytes,
      ...(maxLineBytes === undefined ? {} : { maxLineBytes }),
    });
    return { framer, events, overlong };
  }

  it('gives every line, cut anywhere, as the framer without it would: long ones as their bytes, short ones as text', () => {
    const line = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 30 }).map((s) => s.replace(/\n/g, ' ')),
      fc.constantFrom('', ' \t', '\r', 'é✓😀\r', '   '),
    );
    fc.assert(
      fc.property(
        fc.array(line, { maxLength: 8 }),
        fc.array(fc.nat(), { maxLength: 10 }),
        fc.integer({ min: 1, max: 40 }),
        (lines, cuts, longLineBytes) => {
          const input = Buffer.from(`${lines.join('\n')}\n`, 'utf8');
          const plain = collect();
          const both = collectBoth(longLineBytes);
          const points = [...new Set(cuts.map((c) => c % (input.length + 1)))].sort((a, b) => a - b);
          let at = 0;
          for (const point of [...points, input.length]) {
            plain.framer.push(input.subarray(at, point));
            both.framer.push(input.subarray(at, point));
            at = point;
          }
          // The same lines in the same order; a long one's bytes decode to the text the plain framer gave.
          expect(both.events.map((e) => ('text' in e ? e.text : e.bytes.toString('utf8')))).toEqual(
            plain.lines,
          );
          for (const e of both.events) {
            const bytes = 'text' in e ? Buffer.byteLength(e.text) : e.bytes.length;
            expect('bytes' in e).toBe(bytes >= longLineBytes);
          }
          expect(both.framer.stats).toEqual(plain.framer.stats);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('hands a long line over byte for byte, a character cut between chunks included, without its CR', () => {
    const { framer, events } = collectBoth(8);
    const text = '{"t":"é✓😀 and more"}';
    const bytes = Buffer.from(`${text}\r\n`, 'utf8');
    const cut = bytes.indexOf(Buffer.from('😀')) + 2; // inside the 4-byte character
    framer.push(bytes.subarray(0, cut));
    framer.push(bytes.subarray(cut, bytes.length - 1)); // the CR ends this chunk
    framer.push(bytes.subarray(bytes.length - 1));
    expect(events).toEqual([{ bytes: Buffer.from(text, 'utf8') }]);
  });

  it('still discards a line over maxLineBytes and reads the next one', () => {
    const { framer, events, overlong } = collectBoth(4, 10);
    framer.push('0123456789');
    framer.push('abc\nshort-ok\n');
    expect(overlong).toEqual([13]);
    expect(events).toEqual([{ bytes: Buffer.from('short-ok') }]);
  });
});
