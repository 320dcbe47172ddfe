import type { WireResponse } from './requester.js';
import type { SseParser } from './sse-parser.js';

/**
 * Reads a response's body to its end into `parser`. Rejects if the connection breaks, the request is
 * aborted or the parser throws; the body is then let go, so its connection goes.
 */
export async function pumpSse(response: WireResponse, parser: SseParser): Promise<void> {
  try {
    for await (const chunk of response.chunks()) parser.pushBytes(chunk);
    parser.endBytes(); // an unterminated last event is discarded, as the SSE rules say
  } catch (error) {
    await response.discard();
    throw error;
  }
}

/** The media type of a response without parameters, lower-cased (`text/event-stream; charset=utf-8` → `text/event-stream`). */
export function mediaTypeOf(response: WireResponse): string {
  return (response.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
}
