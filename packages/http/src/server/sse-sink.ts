const encoder = new TextEncoder();

/** Headers of every SSE response: no caching, and no proxy buffering so progress arrives live [H48]. */
export const SSE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
};

/** One SSE event carrying a JSON-RPC message; `id` only where the stream is resumable (legacy). */
export function messageFrame(message: unknown, id?: string): string {
  // JSON.stringify escapes every newline, so the payload is always a single `data:` line.
  const data = `data: ${JSON.stringify(message)}\n\n`;
  return id === undefined ? data : `id: ${id}\n${data}`;
}

/**
 * The bytes side of one SSE response: a `ReadableStream` the Response carries. `onCancel` runs when the
 * consumer goes away (the HTTP client disconnected) before we closed it.
 */
export class SseSink {
  readonly body: ReadableStream<Uint8Array>;
  #controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  #closed = false;

  constructor(onCancel: () => void) {
    this.body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.#controller = controller;
      },
      cancel: () => {
        if (this.#closed) return;
        this.#closed = true;
        onCancel();
      },
    });
  }

  /** Queues text; returns false once closed. Never blocks: progress is already coalesced upstream. */
  write(text: string): boolean {
    if (this.#closed) return false;
    this.#controller?.enqueue(encoder.encode(text));
    return true;
  }

  /** Ends the stream normally (after the final response, or on shutdown). */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    try {
      this.#controller?.close();
    } catch {
      // already errored by the consumer: nothing to end
    }
  }
}
