import { isUtf8 } from 'node:buffer';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type JsonPiece,
  jsonPieces,
  KeptString,
  keepStrings,
  parseKeepingStrings,
  piecesLength,
} from './kept-strings.js';

/** The text the pieces make, as the next peer reads it. */
function joined(value: unknown): string {
  const pieces = jsonPieces(value);
  if (typeof pieces === 'string') return pieces;
  return pieces.map((p) => (typeof p === 'string' ? p : new TextDecoder().decode(p))).join('');
}

function keptIn(value: unknown, found: KeptString[] = []): KeptString[] {
  if (value instanceof KeptString) found.push(value);
  else if (typeof value === 'object' && value !== null)
    for (const v of Object.values(value)) keptIn(v, found);
  return found;
}

// Characters that make literals hard: quotes, backslashes (runs of them before a quote), controls that
// JSON.stringify escapes, astral and lone surrogates, and the look of our own placeholders.
const hardChar = fc.constantFrom(
  '"',
  '\\',
  '\n',
  '\u0000',
  '\u001f',
  '/',
  'é',
  '😀',
  '\ud800',
  ' ',
  'a',
  '#',
  ':',
);
const hardString = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.array(hardChar, { maxLength: 40 }).map((chars) => chars.join('')),
  fc.constant('mcp-inflight kept 0 #0'),
);
const value = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    hardString,
    fc.integer(),
    fc.constantFrom(null, true, false, 1.5),
    fc.array(tie('v'), { maxLength: 5 }),
    fc.dictionary(hardString, tie('v'), { maxKeys: 5 }),
  ),
})).v;
const space = fc.constantFrom<number | string>(0, 1, '\t', '\r\n ');

describe('parseKeepingStrings and jsonPieces', () => {
  it('carry any result unchanged: the pieces are the same JSON, and every long literal is kept', () => {
    fc.assert(
      fc.property(value, space, fc.integer({ min: 2, max: 30 }), (result, indent, minChars) => {
        const text = JSON.stringify({ jsonrpc: '2.0', id: 7, result }, null, indent);
        const expected = JSON.parse(text);
        const parsed = parseKeepingStrings(text, minChars) as { result: unknown; id: unknown };
        expect(JSON.parse(joined(parsed))).toEqual(expected);
        // Serialized any other way (a log, a task store), a kept string is the string it stands for.
        expect(JSON.parse(JSON.stringify(parsed))).toEqual(expected);
        expect(parsed.id).toBe(7);
        for (const kept of keptIn(parsed.result)) {
          expect(kept.json.length).toBeGreaterThanOrEqual(minChars);
          expect(typeof JSON.parse(kept.json)).toBe('string');
          expect(text).toContain(kept.json); // as the peer wrote it
        }
      }),
      { numRuns: 600 },
    );
  });

  it('keep nothing outside a result and a progress message: requests, other notifications, errors and batches parse as JSON.parse does', () => {
    fc.assert(
      fc.property(value, fc.integer({ min: 2, max: 30 }), (payload, minChars) => {
        const messages = [
          { jsonrpc: '2.0', method: 'notifications/message', params: { data: payload } },
          {
            jsonrpc: '2.0',
            method: 'notifications/progress',
            params: { progressToken: 1, progress: 1, total: payload },
          },
          { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { arguments: payload } },
          { jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'x', data: payload } },
          [{ jsonrpc: '2.0', id: 1, result: payload }],
        ];
        for (const message of messages) {
          const text = JSON.stringify(message);
          const parsed = parseKeepingStrings(text, minChars);
          expect(keptIn(parsed)).toEqual([]);
          expect(parsed).toEqual(JSON.parse(text));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('keep a progress message and only it, from text and from bytes, and write it back as it came', () => {
    fc.assert(
      fc.property(value, hardString, fc.integer({ min: 2, max: 30 }), (meta, text, minChars) => {
        const message = {
          jsonrpc: '2.0',
          method: 'notifications/progress',
          params: {
            progressToken: 'a-long-progress-token',
            progress: 1,
            total: 2,
            message: text,
            _meta: { x: meta },
          },
        };
        const json = JSON.stringify(message);
        const literal = JSON.stringify(text);
        // The length is the literal's in what was parsed: UTF-16 units of text, bytes of bytes.
        for (const [parsed, length] of [
          [parseKeepingStrings(json, minChars), literal.length],
          [parseKeepingStrings(encoder.encode(json), minChars), encoder.encode(literal).length],
        ] as const) {
          const kept = keptIn(parsed);
          const long = length >= minChars;
          expect(kept).toEqual(long ? [(parsed as typeof message).params.message] : []);
          expect(JSON.parse(joined(parsed))).toEqual(message);
          expect((parsed as typeof message).params.progressToken).toBe('a-long-progress-token');
        }
      }),
      { numRuns: 400 },
    );
  });

  it('refuse what JSON.parse refuses inside a long literal, with the same SyntaxError', () => {
    const long = 'x'.repeat(100);
    for (const bad of ['\u0001', '\t', '\\x', '\\u12', '\\u12g4', '\\']) {
      const text = `{"jsonrpc":"2.0","id":1,"result":{"text":"${long}${bad}${long}"}}`;
      expect(() => JSON.parse(text)).toThrow(SyntaxError);
      expect(() => parseKeepingStrings(text, 64)).toThrow(SyntaxError);
    }
    // Broken structure around a valid long literal is still broken.
    const literal = `"${long}"`;
    for (const text of [
      `{"jsonrpc":"2.0","id":1,"result":${literal}`,
      `{"result" ${literal}}`,
      `[${literal},]`,
    ]) {
      expect(() => parseKeepingStrings(text, 64)).toThrow(SyntaxError);
    }
  });

  it('keep a long result text as the literal, escapes and all, and write it back as it came', () => {
    const literal = `"${'a\\"b\\\\'.repeat(20)}\\u00e9\\/"`;
    const text = `{"jsonrpc":"2.0","id":"r-1","result":{"content":[{"type":"text","text":${literal}}]}}`;
    const parsed = parseKeepingStrings(text, 64) as { result: { content: Array<{ text: unknown }> } };
    const kept = parsed.result.content[0]!.text;
    expect(kept).toBeInstanceOf(KeptString);
    expect((kept as KeptString).json).toBe(literal);
    expect(String(kept)).toBe(JSON.parse(literal));
    const pieces = jsonPieces({ jsonrpc: '2.0', id: 3, result: parsed.result });
    expect(Array.isArray(pieces)).toBe(true);
    expect(pieces).toContain(literal); // its own piece, not copied into a larger string
    expect((pieces as string[]).join('')).toBe(
      `{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":${literal}}]}}`,
    );
    expect(piecesLength(pieces)).toBe((pieces as string[]).join('').length);
  });

  it('keep a result that is itself a long string, and never a key or an id', () => {
    const long = 'k'.repeat(80);
    const whole = parseKeepingStrings(`{"jsonrpc":"2.0","id":1,"result":"${long}"}`, 64) as {
      result: unknown;
    };
    expect(whole.result).toBeInstanceOf(KeptString);
    const keyed = parseKeepingStrings(
      `{"jsonrpc":"2.0","id":"${long}","result":{"${long}" : "${long}"}}`,
      64,
    ) as {
      id: unknown;
      result: Record<string, unknown>;
    };
    expect(keyed.id).toBe(long);
    expect(Object.keys(keyed.result)).toEqual([long]);
    expect(keyed.result[long]).toBeInstanceOf(KeptString);
  });

  it('parse at once, keeping nothing, a message whose first kilobyte does not name its result before a method', () => {
    const long = 'q'.repeat(80);
    for (const text of [
      `{"jsonrpc":"2.0","id":"${'i'.repeat(2_000)}","result":{"text":"${long}"}}`,
      `{"jsonrpc":"2.0","method":"notifications/progress","params":{"result":"${long}"}}`,
    ]) {
      const parsed = parseKeepingStrings(text, 64);
      expect(keptIn(parsed)).toEqual([]);
      expect(parsed).toEqual(JSON.parse(text));
    }
  });

  it('keep under a "__proto__" key as an own property, never as the prototype', () => {
    const long = 'p'.repeat(80);
    const parsed = parseKeepingStrings(`{"jsonrpc":"2.0","id":1,"result":{"__proto__":"${long}"}}`, 64) as {
      result: object;
    };
    expect(Object.getPrototypeOf(parsed.result)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(parsed.result, '__proto__')?.value).toBeInstanceOf(KeptString);
    expect(JSON.parse(joined(parsed))).toEqual(
      JSON.parse(`{"jsonrpc":"2.0","id":1,"result":{"__proto__":"${long}"}}`),
    );
  });

  it('place kept strings under deep nesting without overflowing the stack', () => {
    const depth = 20_000;
    const text = `{"jsonrpc":"2.0","id":1,"result":${'['.repeat(depth)}"${'d'.repeat(80)}"${']'.repeat(depth)}}`;
    let parsed: unknown;
    try {
      parsed = parseKeepingStrings(text, 64);
    } catch (error) {
      // JSON.parse itself may refuse this depth on a small stack; then so may we, and nothing else.
      expect(() => JSON.parse(text)).toThrow((error as Error).constructor as typeof Error);
      return;
    }
    let node = (parsed as { result: unknown }).result;
    for (let i = 0; i < depth; i++) node = (node as unknown[])[0];
    expect(node).toBeInstanceOf(KeptString);
  });

  it('give up looking after thousands of short literals: the message is parsed the ordinary way', () => {
    const shorts = Array.from({ length: 5000 }, (_, i) => `s${i}`);
    const long = 'l'.repeat(80);
    const text = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { shorts, long } });
    const parsed = parseKeepingStrings(text, 64);
    expect(keptIn(parsed)).toEqual([]);
    expect(parsed).toEqual(JSON.parse(text));
    // Before that many, the long one is found.
    const few = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { shorts: shorts.slice(0, 100), long } });
    expect(keptIn(parseKeepingStrings(few, 64))).toHaveLength(1);
  });

  it('write one kept string twice as two pieces, and a value without any as JSON.stringify does', () => {
    const kept = new KeptString(`"${'t'.repeat(70)}"`);
    const pieces = jsonPieces({ a: kept, b: [kept] });
    expect(pieces).toEqual(['{"a":', kept.json, ',"b":[', kept.json, ']}']);
    const plain = { jsonrpc: '2.0', id: 1, result: { text: 'é"\n' } };
    expect(jsonPieces(plain)).toBe(JSON.stringify(plain));
    expect(() => jsonPieces({ n: 1n })).toThrow(TypeError);
    // Outside jsonPieces (after a throw inside it too), a kept string serializes as its text.
    expect(JSON.stringify({ kept })).toBe(JSON.stringify({ kept: 't'.repeat(70) }));
  });

  it('leave short messages to JSON.parse', () => {
    const text = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { text: 'z'.repeat(200) } });
    expect(keptIn(parseKeepingStrings(text, text.length + 1))).toEqual([]);
    expect(keptIn(parseKeepingStrings(text, 100))).toHaveLength(1);
  });
});

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/** The bytes the pieces make, as the next peer reads them. */
function joinedBytes(value: unknown): Uint8Array {
  const pieces = jsonPieces(value);
  const parts = (typeof pieces === 'string' ? [pieces] : pieces).map((p) =>
    typeof p === 'string' ? encoder.encode(p) : p,
  );
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

describe('parseKeepingStrings on UTF-8 bytes', () => {
  it('carry any result unchanged, byte for byte: the same JSON, every long literal kept as a view of the bytes', () => {
    fc.assert(
      fc.property(value, space, fc.integer({ min: 2, max: 30 }), (result, indent, minBytes) => {
        const text = JSON.stringify({ jsonrpc: '2.0', id: 7, result }, null, indent);
        const bytes = encoder.encode(text);
        const expected = JSON.parse(text);
        const parsed = keepStrings(minBytes).parse(bytes) as { result: unknown; id: unknown };
        expect(JSON.parse(decoder.decode(joinedBytes(parsed)))).toEqual(expected);
        expect(JSON.parse(JSON.stringify(parsed))).toEqual(expected);
        expect(parsed.id).toBe(7);
        for (const kept of keptIn(parsed.result)) {
          expect(kept.literal).toBeInstanceOf(Uint8Array);
          expect((kept.literal as Uint8Array).byteLength).toBeGreaterThanOrEqual(minBytes);
          expect((kept.literal as Uint8Array).buffer).toBe(bytes.buffer); // not a copy
          expect(typeof JSON.parse(kept.json)).toBe('string');
          expect(text).toContain(kept.json);
        }
      }),
      { numRuns: 600 },
    );
  });

  it('keep nothing outside a result, and parse as JSON.parse of the decoded text does', () => {
    fc.assert(
      fc.property(value, fc.integer({ min: 2, max: 30 }), (payload, minBytes) => {
        for (const message of [
          { jsonrpc: '2.0', method: 'notifications/message', params: { data: payload } },
          { jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'x', data: payload } },
          [{ jsonrpc: '2.0', id: 1, result: payload }],
        ]) {
          const text = JSON.stringify(message);
          const parsed = parseKeepingStrings(encoder.encode(text), minBytes);
          expect(keptIn(parsed)).toEqual([]);
          expect(parsed).toEqual(JSON.parse(text));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('write a kept literal on as the bytes it came as, multi-byte characters and escapes included', () => {
    const literal = `"${'é😀 a\\"b\\\\'.repeat(20)}\\u00e9\\/"`;
    const text = `{"jsonrpc":"2.0","id":"r-1","result":{"content":[{"type":"text","text":${literal}}]}}`;
    const bytes = encoder.encode(text);
    const parsed = parseKeepingStrings(bytes, 64) as { result: { content: Array<{ text: unknown }> } };
    const kept = parsed.result.content[0]!.text as KeptString;
    expect(kept).toBeInstanceOf(KeptString);
    expect(kept.json).toBe(literal);
    expect(String(kept)).toBe(JSON.parse(literal));
    const pieces = jsonPieces({ jsonrpc: '2.0', id: 3, result: parsed.result }) as Array<string | Uint8Array>;
    expect(pieces).toContain(kept.literal);
    const out = `{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":${literal}}]}}`;
    expect(decoder.decode(joinedBytes({ jsonrpc: '2.0', id: 3, result: parsed.result }))).toBe(out);
    // Text pieces count UTF-16 units, byte pieces bytes.
    expect(piecesLength(pieces)).toBe(out.length - literal.length + (kept.literal as Uint8Array).byteLength);
  });

  it('decode a literal that is not well-formed UTF-8 or not valid JSON the ordinary way, as JSON.parse would', () => {
    const long = encoder.encode('x'.repeat(100));
    const head = encoder.encode('{"jsonrpc":"2.0","id":1,"result":{"text":"');
    const tail = encoder.encode('"}}');
    const message = (bad: number[]) => new Uint8Array([...head, ...long, ...bad, ...long, ...tail]);
    // Bad UTF-8: a lone continuation, an overlong, a surrogate, past U+10FFFF, a cut sequence, a bad lead.
    for (const bad of [
      [0x80],
      [0xc0, 0xaf],
      [0xed, 0xa0, 0x80],
      [0xf4, 0x90, 0x80, 0x80],
      [0xe2, 0x82],
      [0xff],
    ]) {
      const bytes = message(bad);
      const parsed = parseKeepingStrings(bytes, 64);
      expect(keptIn(parsed)).toEqual([]);
      expect(parsed).toEqual(JSON.parse(decoder.decode(bytes))); // U+FFFD where the bytes were bad
    }
    // Well-formed edges are kept: the lowest and highest of each length.
    for (const good of [
      [0xc2, 0x80],
      [0xe0, 0xa0, 0x80],
      [0xed, 0x9f, 0xbf],
      [0xf0, 0x90, 0x80, 0x80],
      [0xf4, 0x8f, 0xbf, 0xbf],
    ]) {
      const parsed = parseKeepingStrings(message(good), 64) as { result: { text: unknown } };
      expect(parsed.result.text).toBeInstanceOf(KeptString);
      expect(String(parsed.result.text)).toBe(
        `${'x'.repeat(100)}${decoder.decode(new Uint8Array(good))}${'x'.repeat(100)}`,
      );
    }
    // Not JSON inside the literal (a raw control, a raw tab, bad escapes): the SyntaxError JSON.parse gives.
    for (const bad of [
      [0x01],
      [0x09],
      [0x5c, 0x78],
      [0x5c, 0x75, 0x31, 0x32],
      [0x5c, 0x75, 0x31, 0x32, 0x67, 0x34],
    ]) {
      const bytes = message(bad);
      expect(() => JSON.parse(decoder.decode(bytes))).toThrow(SyntaxError);
      expect(() => parseKeepingStrings(bytes, 64)).toThrow(SyntaxError);
    }
  });

  it('keep exactly the literals whose bytes are well-formed UTF-8 and valid JSON, at any alignment', () => {
    // Bytes that break literals: controls, backslashes before good and bad escapes, each UTF-8 lead and
    // the edges of its continuation ranges, stray continuations and bytes UTF-8 never uses.
    const hardByte = fc.constantFrom(
      0x61,
      0x20,
      0x7e,
      0x7f,
      0x5c,
      0x75,
      0x30,
      0x46,
      0x6e,
      0x01,
      0x09,
      0x1f,
      0x80,
      0x8f,
      0x90,
      0x9f,
      0xa0,
      0xbf,
      0xc0,
      0xc2,
      0xdf,
      0xe0,
      0xed,
      0xef,
      0xf0,
      0xf4,
      0xf5,
      0xff,
    );
    const head = encoder.encode(`{"jsonrpc":"2.0","id":1,"result":{"text":"${'x'.repeat(70)}`);
    const tail = encoder.encode('"}}');
    fc.assert(
      fc.property(fc.array(hardByte, { maxLength: 40 }), fc.integer({ min: 0, max: 7 }), (inside, shift) => {
        const whole = new Uint8Array(shift + head.length + inside.length + tail.length);
        whole.set(head, shift);
        whole.set(inside, shift + head.length);
        whole.set(tail, shift + head.length + inside.length);
        const bytes = whole.subarray(shift);
        const text = decoder.decode(bytes);
        let expected: unknown;
        try {
          expected = JSON.parse(text);
        } catch {
          expect(() => parseKeepingStrings(bytes, 64)).toThrow(SyntaxError);
          return;
        }
        const parsed = parseKeepingStrings(bytes, 64);
        expect(JSON.parse(JSON.stringify(parsed))).toEqual(expected);
        const kept = keptIn(parsed);
        expect(kept).toHaveLength(isUtf8(new Uint8Array(inside)) ? 1 : 0);
      }),
      { numRuns: 3000 },
    );
  });

  it('refuse a minBytes that could keep nothing sensible', () => {
    expect(() => keepStrings(1)).toThrow(/at least 2/);
    expect(() => keepStrings(Number.NaN)).toThrow(RangeError);
  });
});

describe('jsonPieces with long plain strings', () => {
  const LONG = 64 * 1024;
  // A long string made of a run and some hard characters: plain when none needs an escape.
  const longString = fc
    .tuple(fc.constantFrom('a', 'é', '😀', ' '), fc.array(hardChar, { maxLength: 6 }), fc.nat(LONG))
    .map(([unit, hard, cut]) => {
      const run = unit.repeat(Math.ceil(LONG / unit.length) + 1);
      return run.slice(0, cut) + hard.join('') + run.slice(cut);
    });
  // biome-ignore lint/suspicious/noControlCharactersInRegex: JSON escapes exactly these control characters.
  const needsEscape = (s: string) => /["\\\u0000-\u001f]/.test(s) || !s.isWellFormed();
  /** The pieces with each long string named by its place in `longs` (so a failure prints no 64 Ki). */
  const shape = (pieces: string | JsonPiece[], longs: string[]) =>
    typeof pieces === 'string'
      ? pieces.length
      : pieces.map((p) => (typeof p === 'string' && p.length >= LONG ? `<long ${longs.indexOf(p)}>` : p));

  it('write the same JSON, with each long string that needs no escape as a piece of its own (the same string)', () => {
    fc.assert(
      fc.property(value, longString, longString, (other, a, b) => {
        const message = { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: a }], other, b } };
        expect(joined(message) === JSON.stringify(message)).toBe(true);
        const pieces = jsonPieces(message);
        // Pieces that are the very strings given (not copies), in order; one needing an escape is text.
        const own = typeof pieces === 'string' ? [] : pieces.filter((p) => p === a || p === b);
        const plain = [a, b].filter((s) => !needsEscape(s));
        expect(own.length).toBe(plain.length);
        for (const [i, s] of plain.entries()) expect(own[i] === s).toBe(true);
      }),
      { numRuns: 60 },
    );
  });

  it('write a long string at the root, or beside a kept string, in document order', () => {
    const long = 'r'.repeat(LONG);
    expect(shape(jsonPieces(long), [long])).toEqual(['"', '<long 0>', '"']);
    const kept = new KeptString(`"${'k'.repeat(70)}"`);
    const pieces = jsonPieces({ first: kept, second: long, third: [kept] });
    expect(shape(pieces, [long])).toEqual([
      '{"first":',
      kept.json,
      ',"second":"',
      '<long 0>',
      '","third":[',
      kept.json,
      ']}',
    ]);
  });

  it('look only into the first 16 objects: a long string past them is serialized in place', () => {
    const long = 'd'.repeat(LONG);
    const late = { items: Array.from({ length: 20 }, (_, i) => ({ i })), long };
    expect(jsonPieces(late) === JSON.stringify(late)).toBe(true);
    const early = { long, items: Array.from({ length: 20 }, (_, i) => ({ i })) };
    expect(shape(jsonPieces(early), [long])).toEqual([
      '{"long":"',
      '<long 0>',
      `","items":${JSON.stringify(early.items)}}`,
    ]);
  });

  it('leave a long string in place where it needs an escape, or is what a toJSON returns', () => {
    for (const s of [`${'q'.repeat(LONG)}"`, `\n${'q'.repeat(LONG)}`, `${'q'.repeat(LONG)}\ud800`]) {
      const message = { text: s };
      expect(jsonPieces(message) === JSON.stringify(message)).toBe(true);
    }
    // Where a runtime has no String#isWellFormed, lone surrogates are found without it.
    const native = Object.getOwnPropertyDescriptor(String.prototype, 'isWellFormed')!;
    delete (String.prototype as { isWellFormed?: unknown }).isWellFormed;
    try {
      for (const s of [
        `${'q'.repeat(LONG)}\udc00`,
        `\ud800${'q'.repeat(LONG)}`,
        `${'q'.repeat(LONG)}\ud800\ud800\udc00`,
      ]) {
        const message = { text: s };
        expect(jsonPieces(message) === JSON.stringify(message)).toBe(true);
      }
      const paired = `${'q'.repeat(LONG)}😀`;
      expect(shape(jsonPieces({ paired }), [paired])).toEqual(['{"paired":"', '<long 0>', '"}']);
    } finally {
      Object.defineProperty(String.prototype, 'isWellFormed', native);
    }
    const wrapped = { toJSON: () => 'w'.repeat(LONG) };
    expect(jsonPieces({ wrapped }) === JSON.stringify({ wrapped })).toBe(true);
  });
});
