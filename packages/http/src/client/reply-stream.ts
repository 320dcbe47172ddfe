import type { Clock } from '@mcp-inflight/core';
import { pause } from '@mcp-inflight/core/adapter';
import { mediaTypeOf, pumpSse } from './read-body.js';
import { isOk, type WireResponse } from './requester.js';
import { SseParser } from './sse-parser.js';

/** How to read one request's SSE reply. */
export interface ReplyStreamOptions {
  /** Legacy streams carry event ids and can be resumed with `Last-Event-ID` [H22]; 2026-07-28 ones cannot. */
  resumable: boolean;
  /** Resumes in a row that bring no new event before giving up. */
  resumeAttempts: number;
  maxEventChars: number;
  /** How an event's data becomes a value. */
  parseJson: (text: string) => unknown;
  clock: Clock;
  /** The request's own signal: aborted when it is cancelled or the client closes. */
  signal: AbortSignal;
  /** Opens the GET that resumes the stream after `lastEventId` [H23]. */
  resume: (lastEventId: string) => Promise<WireResponse>;
  /** One JSON value read from an event (garbled events are skipped). */
  onValue: (value: unknown) => void;
  /** Whether nothing more is awaited: the response came, or the request was let go. */
  finished: () => boolean;
  /** The stream advised a reconnection delay (`retry`) [H18]. */
  onRetry?: (ms: number) => void;
}

/**
 * Reads a request's SSE reply until its response. A legacy stream that ends first is resumed from its last
 * event id after the server's `retry` [H17 H18]; a resume that brought new events restarts the count of
 * attempts, so a server that closes the connection after every event (polling, 2025-11-25 [H17]) is
 * followed to the end. Returns `undefined` when finished, else why the response will not come.
 */
export async function readReplyStream(
  response: WireResponse,
  options: ReplyStreamOptions,
): Promise<string | undefined> {
  let tooLarge: string | undefined;
  const newParser = (): SseParser =>
    new SseParser(
      (event) => {
        if (event.type !== 'message' || event.data === '') return;
        let value: unknown;
        try {
          value = options.parseJson(event.data);
        } catch {
          return; // a garbled event is skipped; the stream goes on
        }
        options.onValue(value);
      },
      {
        maxEventChars: options.maxEventChars,
        onOversize: (size, limit) => {
          tooLarge = `an SSE event of at least ${size} characters is larger than maxEventChars (${limit})`;
          throw new Error(tooLarge); // stop reading: the event may be the response, which is lost
        },
      },
    );
  let parser = newParser();
  await pumpSse(response, parser).catch(() => {});
  if (parser.retryMs !== undefined) options.onRetry?.(parser.retryMs);
  let seen = parser.lastEventId;
  let attempts = 0;
  while (!options.finished() && !options.signal.aborted) {
    if (tooLarge) return tooLarge;
    const lastEventId = parser.lastEventId;
    if (lastEventId !== seen) {
      seen = lastEventId;
      attempts = 0; // that connection brought events: it was not a failed attempt
    }
    if (!options.resumable || !lastEventId || attempts >= options.resumeAttempts)
      return 'the response stream ended before the response arrived';
    attempts++;
    const retryMs = parser.retryMs;
    try {
      await pause(retryMs ?? 1_000, options.signal, options.clock); // [H18]
    } catch {
      return undefined; // let go (cancelled, closed): nothing to report
    }
    parser = newParser();
    parser.lastEventId = lastEventId;
    parser.retryMs = retryMs;
    try {
      const resumed = await options.resume(lastEventId);
      if (isOk(resumed) && mediaTypeOf(resumed) === 'text/event-stream') await pumpSse(resumed, parser);
      else await resumed.discard();
    } catch {
      // a failed resume is one attempt spent; the loop decides whether to try again
    }
  }
  return undefined;
}
