import type { Clock, Endpoint } from '@mcp-inflight/core';
import { pause } from '@mcp-inflight/core/adapter';
import { mediaTypeOf, pumpSse } from './read-body.js';
import { isOk, type Requester } from './requester.js';
import { SseParser } from './sse-parser.js';

/** What a legacy GET stream needs. */
export interface ListenOptions {
  url: string;
  request: Requester;
  endpoint: Endpoint;
  /** Session headers for the GET (session id, protocol version). */
  headers: () => Record<string, string>;
  signal: AbortSignal;
  /** Failed (re)connections in a row before giving up. */
  attempts: number;
  /** Time for the pauses between reconnections. */
  clock: Clock;
  /** The largest event read; a larger one is skipped, and the stream goes on. */
  maxEventChars: number;
}

/**
 * Keeps a legacy session's GET stream open [H19]: server requests and notifications not tied to a request
 * arrive here and go to the endpoint. A stream that ends is reopened with `Last-Event-ID` so nothing is
 * missed [H22]; a 405 means the server offers none, and the loop stops.
 */
export async function listen(options: ListenOptions): Promise<void> {
  let lastEventId = '';
  let retryMs = 1_000;
  let failures = 0;
  while (!options.signal.aborted && failures < options.attempts) {
    const parser = new SseParser(
      (event) => {
        if (event.type !== 'message' || event.data === '') return;
        try {
          options.endpoint.receive(JSON.parse(event.data));
        } catch {
          // a garbled event is skipped
        }
      },
      { maxEventChars: options.maxEventChars },
    );
    parser.lastEventId = lastEventId;
    try {
      const headers = options.headers();
      headers['accept'] = 'text/event-stream';
      if (lastEventId) headers['last-event-id'] = lastEventId;
      const response = await options.request(options.url, { method: 'GET', headers, signal: options.signal });
      if (response.status === 405) return void (await response.discard());
      if (isOk(response) && mediaTypeOf(response) === 'text/event-stream') {
        failures = 0;
        await pumpSse(response, parser);
      } else {
        failures++;
        await response.discard();
      }
    } catch {
      failures++;
    }
    lastEventId = parser.lastEventId;
    retryMs = parser.retryMs ?? retryMs;
    await pause(retryMs, options.signal, options.clock).catch(() => {});
  }
}
