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

/**
 * The whole body as bytes, joined once and not decoded (a relay's JSON reply, see `keepStrings`).
 * Rejects if the connection breaks or the request is aborted.
 */
export async function readBytes(response: WireResponse): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let length = 0;
  for await (const chunk of response.chunks()) {
    chunks.push(chunk);
    length += chunk.byteLength;
  }
  if (chunks.length === 1) return chunks[0]!;
  const bytes = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}

/** The media type of a response without parameters, lower-cased (`text/event-stream; charset=utf-8` → `text/event-stream`). */
export function mediaTypeOf(response: WireResponse): string {
  return (response.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
}
