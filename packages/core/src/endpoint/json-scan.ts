// The scan under `parseKeepingStrings` (kept-strings.ts): finds a JSON message's long string literals in
// value position, in its text or its UTF-8 bytes, and checks each holds what a JSON string may, without
// parsing or decoding it. No module state: every function reads only what it is given.

/** Small literals scanned before a message without a long one is parsed the ordinary way (bounds the waste). */
const MAX_SHORT_LITERALS = 4096;

const BACKSLASH = 0x5c;
const COLON = 0x3a;
const QUOTE = 0x22;

/**
 * What the scan reads of a message, its text or its UTF-8 bytes: in both a quote, a backslash, a colon
 * and JSON whitespace are one unit of the same value, and never part of a longer character.
 */
export interface Source {
  readonly length: number;
  /** The code unit or byte at `i`; not a number, or undefined, past either end. */
  at(i: number): number | undefined;
  /** The index of the next quote from `from`, or -1. */
  quote(from: number): number;
  /** `[from, to)` as text (decoded, for bytes: a part starts and ends at a quote, so no character is cut). */
  part(from: number, to: number): string;
  /** The literal `[from, to)` as a `KeptString` holds it: a slice of the text, a view of the bytes. */
  literal(from: number, to: number): string | Uint8Array;
  /** Whether `[from, to)`, the inside of a literal, is what a JSON string may hold. */
  valid(from: number, to: number): boolean;
}

export function textSource(text: string): Source {
  const slice = (from: number, to: number) => text.slice(from, to);
  return {
    length: text.length,
    at: (i) => text.charCodeAt(i),
    quote: (from) => text.indexOf('"', from),
    part: slice,
    literal: slice,
    valid: (from, to) => validContents(text, from, to),
  };
}

export function bytesSource(bytes: Uint8Array): Source {
  return {
    length: bytes.length,
    at: (i) => bytes[i],
    quote: (from) => bytes.indexOf(QUOTE, from),
    part: (from, to) => utf8.decode(bytes.subarray(from, to)),
    literal: (from, to) => bytes.subarray(from, to),
    valid: (from, to) => validContentBytes(bytes, from, to),
  };
}
/**
 * Decodes as `Buffer#toString` does: a byte order mark is kept (it is not JSON whitespace, so the parse
 * refuses it), bad bytes become U+FFFD. Pure: a bundle that never keeps strings leaves it out.
 */
export const utf8 = /* @__PURE__ */ new TextDecoder('utf-8', { ignoreBOM: true });
/**
 * Start and end offsets (pairs, in order) of the string literals in value position at least `minLength`
 * long whose contents are valid JSON. Stops looking after {@link MAX_SHORT_LITERALS} short ones: what it
 * found by then is kept, the rest is parsed as usual.
 */
export function longLiterals(source: Source, minLength: number): number[] {
  const spans: number[] = [];
  let short = 0;
  let at = 0;
  for (;;) {
    const open = source.quote(at);
    if (open === -1) return spans;
    const close = closingQuote(source, open + 1);
    if (close === -1) return spans; // unterminated: JSON.parse reports it
    at = close + 1;
    if (at - open < minLength) {
      if (++short > MAX_SHORT_LITERALS) return spans;
      continue;
    }
    if (isKey(source, at) || !source.valid(open + 1, close)) continue;
    spans.push(open, at);
  }
}

/** The index of the quote that ends the literal whose contents start at `from`, or -1. */
function closingQuote(source: Source, from: number): number {
  for (let at = from; ; ) {
    const quote = source.quote(at);
    if (quote === -1) return -1;
    // Escaped when an odd run of backslashes precedes it.
    let before = quote - 1;
    while (source.at(before) === BACKSLASH) before--;
    if ((quote - 1 - before) % 2 === 0) return quote;
    at = quote + 1;
  }
}

/** Whether the literal ending before `at` is an object key (a colon follows it). */
function isKey(source: Source, at: number): boolean {
  let i = at;
  while (i < source.length && isSpace(source.at(i))) i++;
  return source.at(i) === COLON;
}

function isSpace(c: number | undefined): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

// JSON strings hold no raw control characters and only these escapes [RFC 8259 §7].
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding raw control characters is its job
const CONTROL = /[\u0000-\u001f]/;
const ESCAPE = /\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})/y;

/** Whether `text[from, to)`, the inside of a literal, is what a JSON string may hold. */
function validContents(text: string, from: number, to: number): boolean {
  const inside = text.slice(from, to);
  if (CONTROL.test(inside)) return false;
  for (let at = inside.indexOf('\\'); at !== -1; at = inside.indexOf('\\', ESCAPE.lastIndex)) {
    ESCAPE.lastIndex = at;
    if (!ESCAPE.test(inside)) return false;
  }
  return true;
}

/**
 * Whether `bytes[from, to)`, the inside of a literal, is what a JSON string may hold, in well-formed
 * UTF-8 [RFC 8259 §7, §8.1; RFC 3629 §4]: a literal with a bad byte is decoded the ordinary way instead
 * (bad bytes become U+FFFD), so the next peer never reads bytes that are not UTF-8.
 */
function validContentBytes(bytes: Uint8Array, from: number, to: number): boolean {
  // Four bytes at a time where they are aligned: a word of printable ASCII without a backslash, the bulk
  // of a long text, is passed in one test; any other word is read byte by byte below.
  const offset = bytes.byteOffset;
  const words = new Int32Array(bytes.buffer, 0, (offset + to) >>> 2);
  let i = from;
  while (i < to) {
    if (((offset + i) & 3) === 0) {
      let k = (offset + i) >>> 2;
      while (k < words.length && plainWord(words[k]!)) k++;
      i = k * 4 - offset;
      if (i >= to) break;
    }
    const c = bytes[i]!;
    if (c >= 0x20 && c < 0x80 && c !== BACKSLASH) {
      i++;
      continue;
    }
    if (c < 0x20) return false;
    if (c === BACKSLASH) {
      const e = bytes[i + 1];
      if (e === 0x75 /* u */) {
        if (i + 6 > to) return false;
        for (let k = i + 2; k < i + 6; k++) if (!isHex(bytes[k]!)) return false;
        i += 6;
      } else if (i + 2 <= to && e !== undefined && SIMPLE_ESCAPES.includes(e)) i += 2;
      else return false;
      continue;
    }
    // A lead byte: how many continuation bytes follow, and the range of the first (no overlong forms,
    // no surrogates, nothing past U+10FFFF).
    let n: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) n = 1;
    else if (c >= 0xe0 && c <= 0xef) {
      n = 2;
      if (c === 0xe0) lo = 0xa0;
      else if (c === 0xed) hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
      n = 3;
      if (c === 0xf0) lo = 0x90;
      else if (c === 0xf4) hi = 0x8f;
    } else return false;
    if (i + n >= to) return false;
    const first = bytes[i + 1]!;
    if (first < lo || first > hi) return false;
    for (let k = i + 2; k <= i + n; k++) if ((bytes[k]! & 0xc0) !== 0x80) return false;
    i += n + 1;
  }
  return true;
}

/**
 * Whether all four bytes of `w` are in 0x20-0x7f and none is a backslash. Each term sets a byte's high bit
 * for the lowest byte that breaks it (0x80 and up; below 0x20, by the borrow; 0x5c, by its XOR's borrow),
 * and none does when no byte breaks one: no false verdict either way.
 */
function plainWord(w: number): boolean {
  return ((w | (w - 0x20202020) | ((w ^ 0x5c5c5c5c) - 0x01010101)) & 0x80808080) === 0;
}

/** The bytes after a backslash that make a two-byte escape: `" \ / b f n r t`. */
const SIMPLE_ESCAPES: readonly number[] = [0x22, 0x5c, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74];

function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

/** UTF-8 bytes of `size` when it is text; only requests that wait are measured, so the hot path is free. */
export function byteLengthOf(size: string | number | undefined): number {
  if (typeof size === 'number') return size;
  if (size === undefined) return 0;
  let bytes = size.length;
  for (let i = 0; i < size.length; i++) {
    const c = size.charCodeAt(i);
    if (c >= 0x80) bytes += c >= 0x800 && (c < 0xd800 || c > 0xdfff) ? 2 : 1;
  }
  return bytes;
}
