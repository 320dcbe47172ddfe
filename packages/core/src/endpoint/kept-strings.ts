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

/** Set while {@link jsonPieces} serializes: kept strings then record themselves in `met`, in document order. */
let collecting = false;
/** Reused, so a message without kept strings costs no allocation. */
const met: KeptString[] = [];

/**
 * A string value kept as the JSON literal it arrived as (quotes and escapes included), never decoded
 * here. `JSON.stringify` reads it as the string it stands for, decoded then; {@link jsonPieces} writes
 * its literal as it is. Only a relay's upstream connection makes them (`keepStringsMinChars`), in results.
 */
export class KeptString {
  /** The literal, quotes included, exactly as the peer wrote it (validated JSON). */
  readonly json: string;

  constructor(json: string) {
    this.json = json;
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

/**
 * Serializes `value` as `JSON.stringify` does, except that each {@link KeptString}'s literal is its own
 * piece, never copied into a larger string: the pieces, written in order, are the JSON text. A value
 * without kept strings is one string, as `JSON.stringify` returns it. Throws what `JSON.stringify` throws.
 */
export function jsonPieces(value: unknown): string | string[] {
  if (collecting) return JSON.stringify(value); // called from inside a toJSON: decoded, not pieces
  collecting = true;
  let text: string;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    met.length = 0;
    throw error;
  } finally {
    collecting = false;
  }
  if (met.length === 0) return text;
  const kept = met.splice(0);
  const pieces: string[] = [];
  let at = 0;
  for (let i = 0; i < kept.length; i++) {
    const mark = `"${MARK}${i}"`;
    const found = text.indexOf(mark, at);
    if (found === -1) return JSON.stringify(value); // a replacer moved it: decode, correct if slower
    pieces.push(text.slice(at, found), kept[i]!.json);
    at = found + mark.length;
  }
  pieces.push(text.slice(at));
  return pieces;
}

/** The length in UTF-16 units of the text {@link jsonPieces} returned. */
export function piecesLength(pieces: string | readonly string[]): number {
  if (typeof pieces === 'string') return pieces.length;
  let length = 0;
  for (const piece of pieces) length += piece.length;
  return length;
}

/**
 * `JSON.parse(text)`, except that in a response's `result`, each string value whose literal is at least
 * `minChars` long becomes a {@link KeptString} (none when `minChars` is undefined): validated, not decoded. Anything else (a request, a
 * notification, an error, a batch) comes back exactly as `JSON.parse` makes it. Throws `SyntaxError` for
 * text that is not JSON, as `JSON.parse` does.
 */
export function parseKeepingStrings(text: string, minChars: number | undefined): unknown {
  if (minChars === undefined || text.length < minChars || !resultFirst(text)) return JSON.parse(text);
  const spans = longLiterals(text, minChars);
  if (spans.length === 0) return JSON.parse(text);
  const kept: KeptString[] = [];
  let reduced = '';
  let at = 0;
  for (let i = 0; i < spans.length; i += 2) {
    const start = spans[i]!;
    const end = spans[i + 1]!;
    reduced += `${text.slice(at, start)}"${MARK}${kept.length}"`;
    kept.push(new KeptString(text.slice(start, end)));
    at = end;
  }
  reduced += text.slice(at);
  const value: unknown = JSON.parse(reduced);
  const m = value as { result?: unknown; method?: unknown } | null;
  let left = kept.length;
  if (typeof m === 'object' && m !== null && !Array.isArray(m) && m.method === undefined && 'result' in m) {
    // Only a result's strings are kept: the id and everything else are read by code that wants strings.
    const index = typeof m.result === 'string' ? placeholderIndex(m.result, kept.length) : -1;
    if (index !== -1) {
      m.result = kept[index];
      left--;
    } else left = restore(m.result, kept, left, true);
  }
  if (left > 0) restore(value, kept, left, false);
  return value;
}

/** How far into a message {@link resultFirst} looks. */
const HEAD_CHARS = 1024;

/**
 * Whether the message's head names `"result"` before any `"method"`: a response, as every writer orders
 * one. A request or notification (a 10 MB progress message) is parsed at once, with no scan; a response
 * this misses is parsed the ordinary way too, so the guess costs speed at worst, never correctness.
 */
function resultFirst(text: string): boolean {
  const head = text.length > HEAD_CHARS ? text.slice(0, HEAD_CHARS) : text;
  const result = head.indexOf('"result"');
  if (result === -1) return false;
  const method = head.indexOf('"method"');
  return method === -1 || result < method;
}

/**
 * Start and end offsets (pairs, in order) of the string literals in value position at least `minChars`
 * long whose contents are valid JSON. Stops looking after {@link MAX_SHORT_LITERALS} short ones: what it
 * found by then is kept, the rest is parsed as usual.
 */
function longLiterals(text: string, minChars: number): number[] {
  const spans: number[] = [];
  let short = 0;
  let at = 0;
  for (;;) {
    const open = text.indexOf('"', at);
    if (open === -1) return spans;
    const close = closingQuote(text, open + 1);
    if (close === -1) return spans; // unterminated: JSON.parse reports it
    at = close + 1;
    if (at - open < minChars) {
      if (++short > MAX_SHORT_LITERALS) return spans;
      continue;
    }
    if (isKey(text, at) || !validContents(text, open + 1, close)) continue;
    spans.push(open, at);
  }
}

/** The index of the quote that ends the literal whose contents start at `from`, or -1. */
function closingQuote(text: string, from: number): number {
  for (let at = from; ; ) {
    const quote = text.indexOf('"', at);
    if (quote === -1) return -1;
    // Escaped when an odd run of backslashes precedes it.
    let before = quote - 1;
    while (text.charCodeAt(before) === BACKSLASH) before--;
    if ((quote - 1 - before) % 2 === 0) return quote;
    at = quote + 1;
  }
}

/** Whether the literal ending before `at` is an object key (a colon follows it). */
function isKey(text: string, at: number): boolean {
  let i = at;
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  return text.charCodeAt(i) === COLON;
}

function isSpace(c: number): boolean {
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
