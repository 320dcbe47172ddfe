import { Utf8ChunkDecoder } from './utf8-chunks.js';

/**
 * One dispatched server-sent event.
 *
 * @example
 * ```ts
 * import { type SseEvent, SseParser } from '@mcp-inflight/http';
 * const events: SseEvent[] = [];
 * new SseParser((event) => events.push(event)).push('data: {}\n\n');
 * ```
 */
export interface SseEvent {
  /** The event type (`message` when the stream named none). */
  type: string;
  /** The event's `data` lines, joined with `\n` (`''` for a priming event). */
  data: string;
  /** The last event id seen so far on this stream (what `Last-Event-ID` would carry). */
  lastEventId: string;
}

/** The default cap on one event's size: 16 MiB of text. */
export const DEFAULT_MAX_EVENT_CHARS = 16 * 1024 * 1024;

/**
 * Options for an {@link SseParser}.
 *
 * @example
 * ```ts
 * import { SseParser, type SseParserOptions } from '@mcp-inflight/http';
 * const options: SseParserOptions = { maxEventChars: 1_048_576, onOversize: (size) => console.warn(size) };
 * new SseParser(() => {}, options);
 * ```
 */
export interface SseParserOptions {
  /**
   * The most text (UTF-16 code units: bytes, for ASCII JSON) one event, or one line, may hold. A larger one
   * is never buffered: it is skipped to its end and reported to `onOversize`.
   * @default 16 MiB
   */
  maxEventChars?: number;
  /**
   * Called once for each event that passed `maxEventChars`, with the size seen when it did. It may throw
   * (the error leaves {@link SseParser.push}) to stop reading that stream. @default skip quietly
   */
  onOversize?: (size: number, limit: number) => void;
}

/**
 * An incremental parser for `text/event-stream` per the WHATWG rules: any line ending (CRLF, LF, CR, even
 * split across chunks), comment lines ignored (keep-alives [TO11]), `data` lines joined with `\n`, an event
 * with no `data` line not dispatched, `retry` kept. A priming event (an id and an empty `data` [H16]) is
 * dispatched with `data === ''`; it carries no message, and consumers skip it. Each chunk is scanned once,
 * and no event grows past `maxEventChars`, so a hostile stream costs linear time and bounded memory.
 *
 * @example
 * ```ts
 * import { SseParser } from '@mcp-inflight/http';
 * const parser = new SseParser((event) => console.log(event.data));
 * parser.push('id: 1-1\ndata: {"jsonrpc":"2.0"');
 * parser.push('}\n\n'); // logs {"jsonrpc":"2.0"}
 * ```
 */
export class SseParser {
  /** The id of the last event (sent as `Last-Event-ID` to resume). */
  lastEventId = '';
  /** The reconnection delay the server asked for, if any. */
  retryMs: number | undefined;
  #onEvent: (event: SseEvent) => void;
  #maxEventChars: number;
  #onOversize: ((size: number, limit: number) => void) | undefined;
  /** The start of a line whose end has not arrived yet. */
  #partial = '';
  /** The current line's start was thrown away (it was too long): its end is not a blank line. */
  #lineDropped = false;
  /** Skipping an oversized event up to the blank line that ends it. */
  #discarding = false;
  #skipLf = false;
  #data: string[] = [];
  #dataSize = 0;
  #type = '';
  #pendingId: string | undefined;
  /** Decodes what `pushBytes` is given; made on first use. */
  #bytes: Utf8ChunkDecoder | undefined;

  constructor(onEvent: (event: SseEvent) => void, options: SseParserOptions = {}) {
    this.#onEvent = onEvent;
    this.#maxEventChars = options.maxEventChars ?? DEFAULT_MAX_EVENT_CHARS;
    this.#onOversize = options.onOversize;
  }

  /**
   * Feeds raw UTF-8 bytes, as a response body's chunks arrive; {@link SseParser.endBytes} after the last.
   * Each chunk is decoded whole on the decoder's fast path; a character cut at a chunk's end waits for
   * the rest in the next (a streaming `TextDecoder` takes several times as long on a 10 MB event).
   * Throws only what `onOversize` throws.
   *
   * @example
   * ```ts
   * import { SseParser } from '@mcp-inflight/http';
   * const parser = new SseParser((event) => console.log(event.data));
   * const bytes = new TextEncoder().encode('data: "✓"\n\n');
   * parser.pushBytes(bytes.subarray(0, 8)); // cut inside the check mark: held
   * parser.pushBytes(bytes.subarray(8)); // logs "✓"
   * parser.endBytes();
   * ```
   */
  pushBytes(chunk: Uint8Array): void {
    this.#bytes ??= new Utf8ChunkDecoder();
    const text = this.#bytes.decode(chunk);
    if (text !== '') this.push(text);
  }

  /** The bytes ended: a character left unfinished is decoded as U+FFFD, as a streaming decoder would. */
  endBytes(): void {
    const text = this.#bytes?.end() ?? '';
    if (text !== '') this.push(text);
  }

  /** Feeds decoded text. Throws only what `onOversize` throws. */
  push(text: string): void {
    let start = 0;
    if (this.#skipLf && text.length > 0) {
      this.#skipLf = false;
      if (text.charCodeAt(0) === 10) start = 1; // the LF of a CRLF split across chunks
    }
    // Line ends are found with native scans, not a loop over every character: a 10 MB event is one scan.
    // Each scan's position is kept until the lines pass it, so the text is scanned once for each.
    let lf = text.indexOf('\n', start);
    let cr = text.indexOf('\r', start);
    while (lf !== -1 || cr !== -1) {
      const i = cr === -1 || (lf !== -1 && lf < cr) ? lf : cr;
      this.#endLine(text, start, i);
      start = i + 1;
      if (i === cr) {
        if (start === text.length) this.#skipLf = true;
        else if (lf === start) start++; // CRLF
        cr = text.indexOf('\r', start);
      }
      if (lf !== -1 && lf < start) lf = text.indexOf('\n', start);
    }
    if (start >= text.length || this.#lineDropped) return;
    // A line of an event being skipped: only whether it is blank matters, and it is not.
    if (this.#discarding) {
      this.#lineDropped = true;
      return;
    }
    this.#partial += text.slice(start);
    if (this.#partial.length + this.#dataSize > this.#maxEventChars) {
      const size = this.#partial.length + this.#dataSize;
      this.#partial = '';
      this.#lineDropped = true;
      this.#oversize(size);
    }
  }

  #endLine(text: string, start: number, end: number): void {
    if (this.#lineDropped) {
      this.#lineDropped = false;
      return;
    }
    const line = this.#partial === '' ? text.slice(start, end) : this.#partial + text.slice(start, end);
    this.#partial = '';
    if (this.#discarding) {
      if (line === '') this.#reset(); // the oversized event ends here, unseen
      return;
    }
    this.#line(line);
  }

  #line(line: string): void {
    if (line === '') return this.#dispatch();
    if (line.charCodeAt(0) === 58) return; // ':' comment
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    if (field === 'data') {
      this.#data.push(value);
      this.#dataSize += value.length + 1;
      if (this.#dataSize > this.#maxEventChars) this.#oversize(this.#dataSize);
    } else if (field === 'event') this.#type = value;
    else if (field === 'id') {
      if (!value.includes('\0')) this.#pendingId = value;
    } else if (field === 'retry' && /^\d+$/.test(value)) this.retryMs = Number(value);
  }

  /** An event passed the cap: drop what it holds and skip the rest of it. */
  #oversize(size: number): void {
    this.#reset();
    this.#discarding = true;
    this.#onOversize?.(size, this.#maxEventChars);
  }

  #dispatch(): void {
    if (this.#pendingId !== undefined) this.lastEventId = this.#pendingId;
    const data = this.#data;
    const type = this.#type || 'message';
    this.#reset();
    if (data.length === 0) return;
    this.#onEvent({ type, data: data.join('\n'), lastEventId: this.lastEventId });
  }

  #reset(): void {
    this.#data = [];
    this.#dataSize = 0;
    this.#type = '';
    this.#pendingId = undefined;
    this.#discarding = false;
  }
}
