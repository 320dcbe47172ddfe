import type { Clock, TimerHandle } from '@mcp-inflight/core';
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

/** Why a stream's connection went: the client closed it, or it stopped reading past the byte budget. */
export type DisconnectWhy = 'closed' | 'slow';

/** What an {@link SseSink} reports to its stream. */
export interface SseSinkEvents {
  /**
   * The connection is over before we closed it: the consumer went away (`closed`: the HTTP client
   * disconnected), or the sink cut it because the client stopped reading (`slow`).
   */
  onGone: (why: DisconnectWhy) => void;
  /** The consumer took everything queued: a held value may go now. */
  onDrained: () => void;
}

/** How much an {@link SseSink} may hold for a client that is not reading, and for how long. */
export interface SseSinkLimits {
  /** Bytes that may wait for the client. */
  budgetBytes: number;
  /** How long a backlog over `budgetBytes` may go without shrinking before the client counts as stalled. */
  stallMs: number;
  clock: Clock;
}

/**
 * The bytes side of one SSE response: a `ReadableStream` the Response carries, sized in bytes so the
 * stream knows its backlog. A consumer that keeps a read pending (a reading client) takes each frame as it
 * is written and the backlog stays 0; bytes queue only while the consumer is not reading (its socket is
 * full), and that backlog is what the stream's budget limits (rule 8). Rule 13: one write never cuts the
 * client, whatever its size; a backlog that stays over the budget without shrinking for a whole
 * `stallMs` (a client that stopped reading) does, and so does one past the budget plus one message
 * (rule 14: whatever the client reads, it is that far behind).
 */
export class SseSink {
  readonly body: ReadableStream<Uint8Array>;
  #controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  #closed = false;
  #limits: SseSinkLimits;
  #events: SseSinkEvents;
  /** Armed while the backlog is over budget: it must have shrunk below `#stallBacklogBytes` by the check. */
  #stall: TimerHandle | undefined;
  #stallBacklogBytes = 0;
  /** Bytes of the message being written (since the last `checkBudget`). */
  #messageBytes = 0;
  /** The one message the backlog may hold past the budget: the largest since the consumer last drained it. */
  #oneMessageBytes = 0;

  constructor(events: SseSinkEvents, limits: SseSinkLimits) {
    this.#limits = limits;
    this.#events = events;
    this.body = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.#controller = controller;
        },
        pull: () => {
          if (this.#closed || this.queuedBytes !== 0) return;
          this.#clearStall(); // nothing waits: whatever was over the budget has been read
          this.#oneMessageBytes = 0;
          events.onDrained();
        },
        cancel: () => {
          if (this.#closed) return;
          this.#closed = true;
          this.#clearStall();
          events.onGone('closed');
        },
      },
      // The high-water mark is the budget, so desiredSize tells the bytes queued and pull() says "drained".
      { highWaterMark: limits.budgetBytes, size: (chunk) => chunk.byteLength },
    );
  }

  /** Bytes written but not yet taken by the consumer. */
  get queuedBytes(): number {
    if (this.#closed) return 0;
    const desired = this.#controller?.desiredSize;
    return desired === null || desired === undefined ? 0 : Math.max(0, this.#limits.budgetBytes - desired);
  }

  /** Whether the backlog is over the budget (and being watched for a stall). */
  get overBudget(): boolean {
    return this.#stall !== undefined;
  }

  /** After a message is written: a backlog over the budget must shrink by every stall check from now on. */
  checkBudget(): void {
    if (this.#messageBytes > this.#oneMessageBytes) this.#oneMessageBytes = this.#messageBytes;
    this.#messageBytes = 0;
    if (this.#stall === undefined && this.queuedBytes > this.#limits.budgetBytes)
      this.#armStall(this.queuedBytes);
  }

  #armStall(backlogBytes: number): void {
    this.#stall = this.#limits.clock.setTimer(() => this.#checkStall(), this.#limits.stallMs);
    this.#stallBacklogBytes = backlogBytes;
  }

  /**
   * The stall check: a backlog still over the budget and no smaller than at the last check means the
   * client stopped reading; the connection is cut (its queued bytes freed) and the stream told `slow`.
   */
  #checkStall(): void {
    const backlog = this.queuedBytes;
    this.#stall = undefined;
    if (backlog <= this.#limits.budgetBytes) return;
    if (backlog < this.#stallBacklogBytes) return this.#armStall(backlog); // it read something: judge the next window
    this.abort(new Error('the client stopped reading: the stream stayed over its byte budget'));
    this.#events.onGone('slow');
  }

  #clearStall(): void {
    this.#stall?.clear();
    this.#stall = undefined;
  }

  /**
   * Queues bytes; returns false once closed. Never blocks. The backlog never holds more than the budget
   * plus one message (rule 14): bytes past that cut the connection at once, as a stall would, so a
   * client that stops reading costs the server no more than that, however fast messages come.
   */
  write(bytes: Uint8Array): boolean {
    if (this.#closed) return false;
    this.#messageBytes += bytes.byteLength;
    const allowed = this.#limits.budgetBytes + Math.max(this.#oneMessageBytes, this.#messageBytes);
    if (this.queuedBytes + bytes.byteLength > allowed) {
      this.abort(new Error('the client stopped reading: its stream passed its byte budget plus one message'));
      // Told after the writer's own turn: the stream is not re-entered from inside its write.
      queueMicrotask(() => this.#events.onGone('slow'));
      return false;
    }
    this.#controller?.enqueue(bytes);
    return true;
  }

  /** Ends the stream normally (after the final response, or on shutdown). */
  close(): void {
    this.#clearStall();
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
    this.#clearStall();
    if (this.#closed) return;
    this.#closed = true;
    try {
      this.#controller?.error(reason);
    } catch {
      // already errored
    }
  }
}
