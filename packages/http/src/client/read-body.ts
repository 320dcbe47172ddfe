import type { SseParser } from './sse-parser.js';

/** Reads a fetch body to its end into `parser`. Rejects if the connection breaks or the fetch is aborted. */
export async function pumpSse(body: ReadableStream<Uint8Array>, parser: SseParser): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parser.push(decoder.decode(value, { stream: true }));
    }
    parser.push(decoder.decode()); // an unterminated last event is discarded, as the SSE rules say
  } finally {
    reader.releaseLock();
  }
}

/** The media type of a response without parameters, lower-cased (`text/event-stream; charset=utf-8` → `text/event-stream`). */
export function mediaTypeOf(response: Response): string {
  return (response.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
}

/** Waits `ms`, or rejects when `signal` aborts. */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
