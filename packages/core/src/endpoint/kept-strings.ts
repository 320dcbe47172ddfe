import { KEPT_BRAND } from './kept-brand.js';

/**
 * Long strings a relay carries without decoding them: a result's 10 MB text is read as the JSON literal it
 * arrived as and written out as those same characters, so the relay neither parses nor re-serializes it
 * (each a full copy of fresh memory, most of a large message's cost in a proxy).
 */

/**
 * Marks a kept string's place in the text `JSON.stringify` makes, and in the text a message is parsed
 * from. Random per process, so no peer can spell one; it never leaves this process.
 */
const MARK = /* @__PURE__ */ newMark();

// Pure: a bundle that never keeps strings (the browser HttpClient) leaves the mark out.
function newMark(): string {
  return `mcp-inflight kept ${Math.random().toString(36).slice(2, 10)} #`;
}

/** Small literals scanned before a message without a long one is parsed the ordinary way (bounds the waste). */
const MAX_SHORT_LITERALS = 4096;

const BACKSLASH = 0x5c;
const COLON = 0x3a;
const QUOTE = 0x22;

/** Set while {@link jsonPieces} serializes: kept strings then record themselves in `met`, in document order. */
let collecting = false;
/**
 * Reused, so a message without kept strings costs no allocation: the kept strings met, and the long plain
 * strings the serializer left out of its text (written as pieces of their own), in document order.
 */
const met: Array<KeptString | string> = [];

/**
 * A string this long (UTF-16 units) is a piece of its own in {@link jsonPieces}: copied into the message's
 * text, it cost three full copies of fresh memory (the serializer's parts, their join, the encode), as a
 * piece only the encode.
 */
const LONG_STRING_CHARS = 64 * 1024;
/** Objects and arrays looked into for a long string before a message is serialized whole (bounds the look). */
const LOOK_OBJECTS = 16;
let lookLeft = 0;

/**
 * A string value kept as the JSON literal it arrived as (quotes and escapes included), never decoded
 * here. `JSON.stringify` reads it as the string it stands for, decoded then; {@link jsonPieces} writes
 * its literal as it is. Only a relay's upstream connection makes them ({@link keepStrings}), in results
 * and in a progress notification's `message`.
 */
export class KeptString {
  /**
   * The literal exactly as the peer wrote it (validated JSON): its text, or its UTF-8 bytes where the
   * transport read the message as bytes (then never decoded in this process).
   */
  readonly literal: string | Uint8Array;

  constructor(literal: string | Uint8Array) {
    this.literal = literal;
    // Read by `isKept`, for code that must not import this class. Set here, not as a class field with a
    // computed key, which would keep the class in every bundle that never makes one.
    (this as { [KEPT_BRAND]?: true })[KEPT_BRAND] = true;
  }

  /** The literal as text (decodes it where it is bytes: a full copy). */
  get json(): string {
    return typeof this.literal === 'string' ? this.literal : utf8.decode(this.literal);
  }

  /** The string it stands for (decodes the literal: a full copy). */
  toString(): string {
    return JSON.parse(this.json) as string;
  }

  /** In {@link jsonPieces}: a placeholder its literal replaces; anywhere else, the decoded string. */
  toJSON(): string {
    if (!collecting) return this.toString();
    met.push(this);
    return `${MARK}${met.length - 1}`;
  }
}

/** A piece of JSON text from {@link jsonPieces}: text, or a kept literal's UTF-8 bytes. */
export type JsonPiece = string | Uint8Array;

/**
 * Serializes `value` as `JSON.stringify` does, except that each {@link KeptString}'s literal is its own
 * piece, and so is each long string that needs no escape (64 Ki characters or more; looked for in the
 * message's first 16 objects and arrays, then taken wherever it is): neither is copied into a larger
 * string. The pieces, written in order, are the JSON text. A value without either is one string, as
 * `JSON.stringify` returns it. Throws what `JSON.stringify` throws.
 */
export function jsonPieces(value: unknown): string | JsonPiece[] {
  if (collecting) return JSON.stringify(value); // called from inside a toJSON: decoded, not pieces
  collecting = true;
  let text: string;
  try {
    lookLeft = LOOK_OBJECTS;
    text = hasLongString(value) ? JSON.stringify(value, leaveOutLong) : JSON.stringify(value);
  } catch (error) {
    met.length = 0;
    throw error;
  } finally {
    collecting = false;
  }
  if (met.length === 0) return text;
  const kept = met.splice(0);
  const pieces: JsonPiece[] = [];
  let at = 0;
  for (let i = 0; i < kept.length; i++) {
    const mark = `"${MARK}${i}"`;
    const found = text.indexOf(mark, at);
    if (found === -1) return JSON.stringify(value); // a replacer moved it: decode, correct if slower
    const piece = kept[i]!;
    if (typeof piece === 'string') {
      // A plain string: the text keeps the placeholder's quotes around it.
      pieces.push(text.slice(at, found + 1), piece);
      at = found + mark.length - 1;
    } else {
      pieces.push(text.slice(at, found), piece.literal);
      at = found + mark.length;
    }
  }
  pieces.push(text.slice(at));
  return pieces;
}

/**
 * Whether a long string is among the values of the first {@link LOOK_OBJECTS} objects and arrays (depth
 * first, as serialized). A value with a `toJSON` is not looked into: it serializes as what that returns.
 */
function hasLongString(value: unknown): boolean {
  if (lookLeft <= 0) return false;
  if (typeof value === 'string') return value.length >= LONG_STRING_CHARS;
  if (typeof value !== 'object' || value === null) return false;
  lookLeft--;
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (hasLongString(value[i])) return true;
    return false;
  }
  for (const key in value) if (hasLongString((value as Record<string, unknown>)[key])) return true;
  return false;
}

/**
 * The serializer's replacer where a message has a long string: one that needs no escape is left out of
 * the text, its placeholder there instead. One that needs escapes (a quote, a backslash, a control
 * character, a lone surrogate) is serialized in place, as before.
 */
function leaveOutLong(_key: string, value: unknown): unknown {
  if (typeof value !== 'string' || value.length < LONG_STRING_CHARS || NEEDS_ESCAPE.test(value)) return value;
  if (!isWellFormed(value)) return value;
  met.push(value);
  return `${MARK}${met.length - 1}`;
}

/** What `JSON.stringify` escapes, but for lone surrogates ({@link isWellFormed}). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: JSON escapes exactly these control characters.
const NEEDS_ESCAPE = /["\\\u0000-\u001f]/;

/** No lone surrogate (those `JSON.stringify` writes as `\u` escapes). */
function isWellFormed(text: string): boolean {
  const native = (text as { isWellFormed?: () => boolean }).isWellFormed;
  return native ? native.call(text) : !LONE_SURROGATE.test(text);
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?:^|[^\ud800-\udbff])[\udc00-\udfff]/;

/**
 * The length of the text {@link jsonPieces} returned: UTF-16 units of its text pieces plus the bytes of
 * its byte pieces (for a size check: at most the UTF-8 size for ASCII JSON, a close bound otherwise).
 */
export function piecesLength(pieces: string | readonly JsonPiece[]): number {
  if (typeof pieces === 'string') return pieces.length;
  let length = 0;
  for (const piece of pieces) length += typeof piece === 'string' ? piece.length : piece.byteLength;
  return length;
}

/**
 * How a relay's upstream leg reads messages, given to a transport (`keepStrings` of `connectStdio`,
 * `spawnStdio` and `HttpClient`): see {@link keepStrings}.
 */
export interface KeepStrings {
  /** Result strings and progress messages whose literal is at least this long (bytes, or UTF-16 units of text) are kept. */
  readonly minBytes: number;
  /**
   * A message to its value, as `JSON.parse` makes it except for the kept strings. A transport hands over
   * a message of at least `minBytes` as the UTF-8 bytes it read, when it has them, so the kept literals
   * are never decoded at all; shorter ones as text. Throws `SyntaxError` for what is not JSON.
   */
  parse(message: string | Uint8Array): unknown;
}

/**
 * What a relay gives its upstream transport so that long result strings (a 10 MB text or blob) pass
 * through as the literals the upstream wrote: each string value in a response's `result` whose literal is
 * at least `minBytes` long becomes a {@link KeptString}, validated but not decoded, and so does a long
 * `message` of a progress notification; {@link jsonPieces} writes each on as it came (its bytes, where it
 * was read as bytes). Everything else (a request, another notification, an error, a batch) parses exactly
 * as `JSON.parse` makes it. A kept progress message reaches `onprogress` and the endpoint's events as the
 * `KeptString`, typed as the string it stands for: `String(message)` decodes it, and it serializes as
 * that string; only a relay, which passes it on, should ask for this.
 */
export function keepStrings(minBytes: number): KeepStrings {
  if (!(minBytes >= 2))
    throw new RangeError(`minBytes must be at least 2 (a literal's quotes), got ${minBytes}`);
  return { minBytes, parse: (message) => parseKeepingStrings(message, minBytes) };
}

/**
 * `JSON.parse` of the message (text, or UTF-8 bytes), except that in a response's `result`, each string
 * value whose literal is at least `minLength` long (UTF-16 units of text, bytes of bytes) becomes a
 * {@link KeptString}. Throws `SyntaxError` for what is not JSON, as `JSON.parse` does.
 */
export function parseKeepingStrings(message: string | Uint8Array, minLength: number): unknown {
  const text = typeof message === 'string';
  const kind =
    message.length < minLength
      ? undefined
      : keptKind(text ? message : utf8.decode(message.subarray(0, HEAD_CHARS)));
  if (kind === undefined) return JSON.parse(text ? message : utf8.decode(message));
  const source = text ? textSource(message) : bytesSource(message);
  const spans = longLiterals(source, minLength);
  if (spans.length === 0) return JSON.parse(source.part(0, message.length));
  const kept: KeptString[] = [];
  let reduced = '';
  let at = 0;
  for (let i = 0; i < spans.length; i += 2) {
    const start = spans[i]!;
    const end = spans[i + 1]!;
    reduced += `${source.part(at, start)}"${MARK}${kept.length}"`;
    kept.push(new KeptString(source.literal(start, end)));
    at = end;
  }
  reduced += source.part(at, message.length);
  return placeKept(JSON.parse(reduced), kept, kind);
}

/**
 * What the scan reads of a message, its text or its UTF-8 bytes: in both a quote, a backslash, a colon
 * and JSON whitespace are one unit of the same value, and never part of a longer character.
 */
interface Source {
  readonly length: number;
  /** The code unit or byte at `i`; not a number, or undefined, past either end. */
  at(i: number): number | undefined;
  /** The index of the next quote from `from`, or -1. */
  quote(from: number): number;
  /** `[from, to)` as text (decoded, for bytes: a part starts and ends at a quote, so no character is cut). */
  part(from: number, to: number): string;
  /** The literal `[from, to)` as a {@link KeptString} holds it: a slice of the text, a view of the bytes. */
  literal(from: number, to: number): string | Uint8Array;
  /** Whether `[from, to)`, the inside of a literal, is what a JSON string may hold. */
  valid(from: number, to: number): boolean;
}

function textSource(text: string): Source {
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

function bytesSource(bytes: Uint8Array): Source {
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
 * Puts the kept strings back where their placeholders were parsed: as themselves in a result, or in a
 * progress notification's `message`; decoded anywhere else.
 */
function placeKept(value: unknown, kept: KeptString[], kind: KeptKind): unknown {
  const m = value as { result?: unknown; method?: unknown; params?: unknown } | null;
  let left = kept.length;
  const message = typeof m === 'object' && m !== null && !Array.isArray(m) ? m : undefined;
  if (kind === 'result' && message && message.method === undefined && 'result' in message) {
    // Only a result's strings are kept: the id and everything else are read by code that wants strings.
    const index = typeof message.result === 'string' ? placeholderIndex(message.result, kept.length) : -1;
    if (index !== -1) {
      message.result = kept[index];
      left--;
    } else left = restore(message.result, kept, left, true);
  } else if (kind === 'progress' && message && isProgressMethod(message.method, kept)) {
    // Of a progress notification only `message`: the relay reads the token, the value and the total.
    const params = message.params as { message?: unknown } | null;
    const index =
      typeof params === 'object' && params !== null && typeof params.message === 'string'
        ? placeholderIndex(params.message, kept.length)
        : -1;
    if (index !== -1) {
      params!.message = kept[index];
      left--;
    }
  }
  if (left > 0) restore(value, kept, left, false);
  return value;
}

/** Whether `method` is `notifications/progress`, itself a placeholder or not (a `minBytes` that small). */
function isProgressMethod(method: unknown, kept: KeptString[]): boolean {
  if (method === 'notifications/progress') return true;
  if (typeof method !== 'string') return false;
  const index = placeholderIndex(method, kept.length);
  return index !== -1 && kept[index]!.toString() === 'notifications/progress';
}

/**
 * Decodes as `Buffer#toString` does: a byte order mark is kept (it is not JSON whitespace, so the parse
 * refuses it), bad bytes become U+FFFD. Pure: a bundle that never keeps strings leaves it out.
 */
const utf8 = /* @__PURE__ */ new TextDecoder('utf-8', { ignoreBOM: true });

/** How far into a message {@link keptKind} looks. */
const HEAD_CHARS = 1024;

/** What a message may keep: a response's result strings, or a progress notification's message. */
type KeptKind = 'result' | 'progress';

/**
 * What the message's head says it is: a response when it names `"result"` before any `"method"`, as every
 * writer orders one; a progress notification when its method is `notifications/progress`. Anything else
 * (a request, an error) is parsed at once, with no scan; a message this misreads is parsed the ordinary
 * way or its strings are restored decoded, so the guess costs speed at worst, never correctness.
 */
function keptKind(text: string): KeptKind | undefined {
  const head = text.length > HEAD_CHARS ? text.slice(0, HEAD_CHARS) : text;
  const result = head.indexOf('"result"');
  const method = head.indexOf('"method"');
  if (result !== -1 && (method === -1 || result < method)) return 'result';
  return method !== -1 && head.includes('"notifications/progress"') ? 'progress' : undefined;
}

/**
 * Start and end offsets (pairs, in order) of the string literals in value position at least `minLength`
 * long whose contents are valid JSON. Stops looking after {@link MAX_SHORT_LITERALS} short ones: what it
 * found by then is kept, the rest is parsed as usual.
 */
function longLiterals(source: Source, minLength: number): number[] {
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

/**
 * Puts kept strings where their placeholders were parsed under `value`: as themselves (`keep`) or
 * decoded. Returns how many are left to place. Iterative, so a deep message cannot overflow the stack
 * here when `JSON.parse` took it.
 */
function restore(value: unknown, kept: KeptString[], left: number, keep: boolean): number {
  const stack: unknown[] = [value];
  while (left > 0 && stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== 'object' || node === null || node instanceof KeptString) continue;
    const keys = Array.isArray(node) ? undefined : Object.keys(node);
    const count = keys ? keys.length : (node as unknown[]).length;
    for (let i = 0; i < count; i++) {
      const key = keys ? keys[i]! : i;
      const child = (node as Record<string | number, unknown>)[key];
      if (typeof child !== 'string') {
        if (typeof child === 'object' && child !== null) stack.push(child);
        continue;
      }
      const index = placeholderIndex(child, kept.length);
      if (index === -1) continue;
      const string = keep ? kept[index] : kept[index]!.toString();
      // Defined, not assigned: JSON.parse makes "__proto__" an own key, and assigning would set the prototype.
      Object.defineProperty(node, key, {
        value: string,
        writable: true,
        enumerable: true,
        configurable: true,
      });
      left--;
    }
  }
  return left;
}

function placeholderIndex(value: string, count: number): number {
  if (!value.startsWith(MARK)) return -1;
  const index = Number(value.slice(MARK.length));
  return Number.isInteger(index) && index >= 0 && index < count ? index : -1;
}
