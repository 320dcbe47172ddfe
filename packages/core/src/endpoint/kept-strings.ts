import { bytesSource, longLiterals, textSource, utf8 } from './json-scan.js';
import { KEPT_BRAND } from './kept-brand.js';

// Long strings a relay carries without decoding them: a 10 MB text is written out as the JSON literal it
// arrived as, so the relay neither parses nor re-serializes it (each a full copy of fresh memory).

/**
 * Marks a kept string's place in the text `JSON.stringify` makes, and in the text a message is parsed
 * from. Random per process, so no peer can spell one; it never leaves this process.
 */
const MARK = /* @__PURE__ */ newMark();

// Pure: a bundle that never keeps strings (the browser HttpClient) leaves the mark out.
function newMark(): string {
  return `mcp-inflight kept ${Math.random().toString(36).slice(2, 10)} #`;
}

// Module state, as `toJSON` is handed no context; kept in this module behind `jsonPieces`/`KeptString`
// (bench: no A/B of its own; a message without a long string pays about 0.1 µs for the look).
/** Set while {@link jsonPieces} serializes: kept strings then record themselves in `met`, in document order. */
let collecting = false;
/** Reused (no allocation without kept strings): kept and long plain strings met, in document order. */
const met: Array<KeptString | string> = [];

/** A string this long (UTF-16 units) is a piece of its own in {@link jsonPieces}: one copy, not three. */
const LONG_STRING_CHARS = 64 * 1024;
/** Objects and arrays looked into for a long string before a message is serialized whole (bounds the look). */
const LOOK_OBJECTS = 16;

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
    text = look(value, LOOK_OBJECTS) === FOUND ? JSON.stringify(value, leaveOutLong) : JSON.stringify(value);
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

/** What {@link look} returns when it found a long string (a budget left is never below 0). */
const FOUND = -1;

/**
 * Looks for a long string among the values of the first `left` objects and arrays (depth first, as
 * serialized): returns {@link FOUND}, or what is left of `left`. A value with a `toJSON` is not looked
 * into: it serializes as what that returns.
 */
function look(value: unknown, left: number): number {
  if (left <= 0) return left;
  if (typeof value === 'string') return value.length >= LONG_STRING_CHARS ? FOUND : left;
  if (typeof value !== 'object' || value === null) return left;
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return left - 1;
  let rest = left - 1;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length && rest !== FOUND; i++) rest = look(value[i], rest);
    return rest;
  }
  for (const key in value) {
    rest = look((value as Record<string, unknown>)[key], rest);
    if (rest === FOUND) return FOUND;
  }
  return rest;
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
 * What a relay gives its upstream transport so long result strings (a 10 MB text or blob) pass through as
 * the literals the upstream wrote: each string in a response's `result` (and a progress `message`) whose
 * literal is at least `minBytes` long becomes a {@link KeptString}, validated, not decoded, and written on
 * as it came by {@link jsonPieces}; everything else parses as `JSON.parse` makes it. A kept progress message
 * reaches `onprogress` typed as its string (`String(message)` decodes it); only a relay should ask for this.
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
 * Puts kept strings where their placeholders were parsed under `value`, as themselves (`keep`) or decoded;
 * returns how many are left. Iterative: a deep message `JSON.parse` took cannot overflow the stack here.
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
