import { jsonPieces } from '@mcp-inflight/core/adapter';

// Pure: a bundle of the client alone (the browser HttpClient) leaves this server constant out.
const encoder = /* @__PURE__ */ new TextEncoder();

/** Headers of every SSE response: no caching, and no proxy buffering so progress arrives live [H48]. */
export const SSE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
};

/**
 * A message this long (64 Ki chars of JSON) is written apart from its framing (an SSE frame's head and end,
 * a JSON reply's HTTP head): joined to it, it would be copied whole once more.
 */
export const LONG_MESSAGE_CHARS = 64 * 1024;
const FRAME_END = /* @__PURE__ */ encoder.encode('\n\n');

/** One SSE event's bytes: one piece, or (a long message) its head, its JSON and its end. */
export type Frame = Uint8Array | Uint8Array[];

/**
 * One SSE event carrying a JSON-RPC message; `id` only where the stream is resumable (legacy). A long
 * message's JSON is encoded on its own: `data: ${json}\n\n` would be a rope the encoder first flattens,
 * a copy of all of it.
 */
export function messageFrame(message: unknown, id: string | undefined): Frame {
  // JSON.stringify escapes every newline, so the payload is always a single `data:` line.
  const json = jsonPieces(message);
  const head = id === undefined ? 'data: ' : `id: ${id}\ndata: `;
  if (typeof json === 'string') {
    if (json.length < LONG_MESSAGE_CHARS) return encoder.encode(`${head}${json}\n\n`);
    return [encoder.encode(head), encoder.encode(json), FRAME_END];
  }
  // A relayed message's kept strings are pieces of their own (see jsonPieces).
  const frame: Uint8Array[] = [encoder.encode(head)];
  for (const piece of json)
    if (piece.length > 0) frame.push(typeof piece === 'string' ? encoder.encode(piece) : piece);
  frame.push(FRAME_END);
  return frame;
}

/** The bytes a {@link Frame} holds. */
export function frameBytes(frame: Frame): number {
  if (!Array.isArray(frame)) return frame.byteLength;
  let bytes = 0;
  for (const piece of frame) bytes += piece.byteLength;
  return bytes;
}

/** Writes a {@link Frame} to `sink`, piece by piece. */
export function writeFrame(sink: SseSink, frame: Frame): void {
  if (!Array.isArray(frame)) sink.write(frame);
  else for (const piece of frame) sink.write(piece);
}

/** Text (a comment, a priming event) as bytes for {@link SseSink.write}. */
export function textFrame(text: string): Uint8Array {
  return encoder.encode(text);
}

/** What an {@link SseSink} reports to its stream. */
export interface SseSinkEvents {
  /** The consumer went away (the HTTP client disconnected) before we closed the stream. */
  onCancel: () => void;
  /** The consumer took everything queued: a held value may go now. */
  onDrained: () => void;
}

/**
 * The bytes side of one SSE response: a `ReadableStream` the Response carries, sized in bytes so the
 * stream knows its backlog. A consumer that keeps a read pending (a reading client) takes each frame as it
 * is written and the backlog stays 0; bytes queue only while the consumer is not reading (its socket is
 * full), and that backlog is what the stream's budget limits (rule 8).
 */
export class SseSink {
  readonly body: ReadableStream<Uint8Array>;
  #controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  #closed = false;
  #budgetBytes: number;

  constructor(events: SseSinkEvents, budgetBytes: number) {
    this.#budgetBytes = budgetBytes;
    this.body = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.#controller = controller;
        },
        pull: () => {
          if (!this.#closed && this.queuedBytes === 0) events.onDrained();
        },
        cancel: () => {
          if (this.#closed) return;
          this.#closed = true;
          events.onCancel();
        },
      },
      // The high-water mark is the budget, so desiredSize tells the bytes queued and pull() says "drained".
      { highWaterMark: budgetBytes, size: (chunk) => chunk.byteLength },
    );
  }

  /** Bytes written but not yet taken by the consumer. */
  get queuedBytes(): number {
    if (this.#closed) return 0;
    const desired = this.#controller?.desiredSize;
    return desired === null || desired === undefined ? 0 : Math.max(0, this.#budgetBytes - desired);
  }

  /** Queues bytes; returns false once closed. Never blocks: the stream decides what may be queued. */
  write(bytes: Uint8Array): boolean {
    if (this.#closed) return false;
    this.#controller?.enqueue(bytes);
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

  /**
   * Ends the stream abruptly and frees what is queued: the consumer gets an error, so the connection is
   * cut rather than ended (a client must not read a cut stream as a complete one).
   */
  abort(reason: Error): void {
    if (this.#closed) return;
    this.#closed = true;
    try {
      this.#controller?.error(reason);
    } catch {
      // already errored
    }
  }
}
