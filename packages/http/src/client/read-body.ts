import type { Clock } from '@mcp-inflight/core';
import type { SseParser } from './sse-parser.js';

/**
 * Reads a fetch body to its end into `parser`. Rejects if the connection breaks, the fetch is aborted or
 * the parser throws; the body is then cancelled, so its connection goes.
 */
export async function pumpSse(body: ReadableStream<Uint8Array>, parser: SseParser): Promise<void> {
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parser.pushBytes(value);
    }
    parser.endBytes(); // an unterminated last event is discarded, as the SSE rules say
  } catch (error) {
    await reader.cancel(error).catch(() => {});
    throw error;
  } finally {
    reader.releaseLock();
  }
}

/** The media type of a response without parameters, lower-cased (`text/event-stream; charset=utf-8` → `text/event-stream`). */
export function mediaTypeOf(response: Response): string {
  return (response.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
}

/** Settles when `work` does, or after `ms` on `clock`, whichever comes first; never rejects. */
export function settleWithin(work: Promise<unknown>, ms: number, clock: Clock): Promise<void> {
  return new Promise((resolve) => {
    const timer = clock.setTimer(resolve, ms);
    void work.then(
      () => {
        timer.clear();
        resolve();
      },
      () => {
        timer.clear();
        resolve();
      },
    );
  });
}
