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
