import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeHeaderValue, encodeHeaderValue } from './header-value.js';

describe('Mcp-Name / Mcp-Param value encoding (2026-07-28)', () => {
  // The examples table of streamable-http.mdx "Value Encoding".
  it.each([
    ['us-west1', 'us-west1'],
    ['Hello, 世界', '=?base64?SGVsbG8sIOS4lueVjA==?='],
    [' padded ', '=?base64?IHBhZGRlZCA=?='],
    ['line1\nline2', '=?base64?bGluZTEKbGluZTI=?='],
    ['=?base64?literal?=', '=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?='],
  ])('encodes %j as %j and back', (value, header) => {
    expect(encodeHeaderValue(value)).toBe(header);
    expect(decodeHeaderValue(header)).toBe(value);
  });

  it('refuses headers that are neither plain nor valid sentinel values', () => {
    expect(decodeHeaderValue('caf\u00e9')).toBeUndefined(); // raw non-ASCII
    expect(decodeHeaderValue('a\u0001b')).toBeUndefined(); // control character
    expect(decodeHeaderValue('=?base64?***?=')).toBeUndefined(); // not Base64
    expect(decodeHeaderValue('=?base64?/w==?=')).toBeUndefined(); // 0xFF is not UTF-8
  });

  it('keeps an empty value plain', () => {
    expect(encodeHeaderValue('')).toBe('');
    expect(decodeHeaderValue('')).toBe('');
  });
});

describe('Base64 sentinel: strict decoding, any string round-trips', () => {
  it('refuses Base64 without its padding or with characters outside the alphabet', () => {
    expect(decodeHeaderValue('=?base64?SGVsbG8=?=')).toBe('Hello');
    expect(decodeHeaderValue('=?base64?SGVsbG8?=')).toBeUndefined(); // padding missing
    expect(decodeHeaderValue('=?base64?SGVs!!!bG8=?=')).toBeUndefined(); // not in the alphabet
    expect(decodeHeaderValue('=?base64?SGVsbG8==?=')).toBeUndefined(); // one '=' too many
  });

  it('takes a value without the whole sentinel literally', () => {
    expect(decodeHeaderValue('SGVsbG8=')).toBe('SGVsbG8=');
    expect(decodeHeaderValue('=?base64?SGVsbG8=')).toBe('=?base64?SGVsbG8=');
  });

  it('encodes a tab anywhere in Base64', () => {
    expect(encodeHeaderValue('a\tb')).toBe(`=?base64?${btoa('a\tb')}?=`);
  });

  // Through a real Headers object, as fetch sends it and a server reads it: the value survives whole,
  // edge whitespace and look-alike sentinels included. (A lone UTF-16 surrogate has no UTF-8 form, so
  // strings here are well formed, as UTF-8 JSON bodies are.)
  it('any string survives encode -> header -> decode', () => {
    const sentinelish = fc
      .tuple(fc.constantFrom('', '=?base64?'), fc.string({ unit: 'binary' }), fc.constantFrom('', '?='))
      .map(([a, b, c]) => a + b + c);
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary' }), fc.string(), sentinelish), (value) => {
        const headers = new Headers({
          'mcp-param-value': encodeHeaderValue(value),
        });
        expect(decodeHeaderValue(headers.get('mcp-param-value') ?? '')).toBe(value);
      }),
      { numRuns: 2_000 },
    );
  });
});
