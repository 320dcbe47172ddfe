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
