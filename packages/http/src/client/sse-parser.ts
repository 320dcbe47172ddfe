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
  data: string;
  /** The last event id seen so far on this stream (what `Last-Event-ID` would carry). */
  lastEventId: string;
}

/**
 * An incremental parser for `text/event-stream` per the WHATWG rules: any line ending (CRLF, LF, CR, even
 * split across chunks), comment lines ignored (keep-alives [TO11]), `data` lines joined with `\n`, an event
 * with no `data` line not dispatched, `retry` kept. A priming event (an id and an empty `data` [H16]) is
 * dispatched with `data === ''`; it carries no message, and consumers skip it.
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
  #buffer = '';
  #skipLf = false;
  #data: string[] = [];
  #type = '';
  #pendingId: string | undefined;

  constructor(onEvent: (event: SseEvent) => void) {
    this.#onEvent = onEvent;
  }

  /** Feeds decoded text. */
  push(text: string): void {
    let start = 0;
    const buffer = this.#buffer + text;
    for (let i = 0; i < buffer.length; i++) {
      const ch = buffer.charCodeAt(i);
      if (ch === 10 && this.#skipLf && i === start) {
        // the LF of a CRLF split across chunks
        this.#skipLf = false;
        start = i + 1;
        continue;
      }
      if (ch !== 10 && ch !== 13) continue;
      this.#line(buffer.slice(start, i));
      if (ch === 13) {
        if (i + 1 < buffer.length) {
          if (buffer.charCodeAt(i + 1) === 10) i++;
        } else this.#skipLf = true;
      }
      start = i + 1;
      if (ch === 10) this.#skipLf = false;
    }
    this.#buffer = buffer.slice(start);
  }

  #line(line: string): void {
    this.#skipLf = false;
    if (line === '') return this.#dispatch();
    if (line.charCodeAt(0) === 58) return; // ':' comment
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    if (field === 'data') this.#data.push(value);
    else if (field === 'event') this.#type = value;
    else if (field === 'id') {
      if (!value.includes('\0')) this.#pendingId = value;
    } else if (field === 'retry' && /^\d+$/.test(value)) this.retryMs = Number(value);
  }

  #dispatch(): void {
    if (this.#pendingId !== undefined) this.lastEventId = this.#pendingId;
    this.#pendingId = undefined;
    const data = this.#data;
    const type = this.#type || 'message';
    this.#data = [];
    this.#type = '';
    if (data.length === 0) return;
    this.#onEvent({ type, data: data.join('\n'), lastEventId: this.lastEventId });
  }
}
