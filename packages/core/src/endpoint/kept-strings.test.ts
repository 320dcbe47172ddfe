import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonPieces, KeptString, parseKeepingStrings, piecesLength } from './kept-strings.js';

/** The text the pieces make, as the next peer reads it. */
function joined(value: unknown): string {
  const pieces = jsonPieces(value);
  return typeof pieces === 'string' ? pieces : pieces.join('');
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

  it('keep nothing outside a result: requests, notifications, errors and batches parse as JSON.parse does', () => {
    fc.assert(
      fc.property(value, fc.integer({ min: 2, max: 30 }), (payload, minChars) => {
        const messages = [
          { jsonrpc: '2.0', method: 'notifications/progress', params: { message: payload } },
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

  it('decode everything when minChars is undefined, and leave short messages to JSON.parse', () => {
    const text = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { text: 'z'.repeat(200) } });
    expect(keptIn(parseKeepingStrings(text, undefined))).toEqual([]);
    expect(keptIn(parseKeepingStrings(text, text.length + 1))).toEqual([]);
    expect(keptIn(parseKeepingStrings(text, 100))).toHaveLength(1);
  });
});
