import { type Endpoint, type InflightError, JsonRpcErrorCode, type RequestId } from '@mcp-inflight/core';
import {
  errorResponse,
  isCancelledParams,
  isTokenOrId,
  type JsonRpcMessage,
} from '@mcp-inflight/core/adapter';

/**
 * Default bound on requests one connection runs at once: 1,000. Past it, requests wait their turn in a
 * queue bounded by {@link DEFAULT_MAX_QUEUED_BYTES}, so a burst of any size costs bounded memory.
 *
 * @example
 * ```ts
 * import { DEFAULT_MAX_IN_FLIGHT, serveStdio } from '@mcp-inflight/stdio';
 * serveStdio(() => {}, { maxInFlight: DEFAULT_MAX_IN_FLIGHT / 10 }); // handlers that each hold a lot of memory
 * ```
 */
export const DEFAULT_MAX_IN_FLIGHT = 1_000;

/**
 * Default bound on requests waiting for a free slot: 8 MiB, counted as the bytes of their lines plus
 * {@link QUEUED_REQUEST_OVERHEAD_BYTES} each (about 50,000 small tool calls). Waiting lines live long
 * enough to reach the old heap, which the collector lets grow to a few times what it holds, so this costs
 * about 40 MB of RSS when full. A request larger than the bound never waits: when every slot is busy it is
 * refused at once.
 *
 * @example
 * ```ts
 * import { DEFAULT_MAX_QUEUED_BYTES, serveStdio } from '@mcp-inflight/stdio';
 * serveStdio(() => {}, { maxQueuedBytes: DEFAULT_MAX_QUEUED_BYTES * 4 }); // a server that takes large bursts
 * ```
 */
export const DEFAULT_MAX_QUEUED_BYTES = 8 * 1024 * 1024;

/**
 * What a waiting request costs beyond its line, for the queue's bound: its entry, its id in the index.
 *
 * @example
 * ```ts
 * import { QUEUED_REQUEST_OVERHEAD_BYTES } from '@mcp-inflight/stdio';
 * const line = '{"jsonrpc":"2.0","id":1,"method":"ping"}';
 * const counted = Buffer.byteLength(line) + QUEUED_REQUEST_OVERHEAD_BYTES; // what it takes from maxQueuedBytes
 * ```
 */
export const QUEUED_REQUEST_OVERHEAD_BYTES = 64;

/**
 * The JSON-RPC error code of a request refused at once because its connection's queue is full: -32010,
 * from the range our own codes use (-32002..-32019), with the message "Overloaded: retry later". The
 * request never ran; the peer may send it again later.
 *
 * @example
 * ```ts
 * import { JsonRpcError } from '@mcp-inflight/core';
 * import { OVERLOADED_ERROR_CODE, spawnStdio } from '@mcp-inflight/stdio';
 * const client = spawnStdio('node server.js');
 * await client.connect();
 * try {
 *   await client.request('tools/call', { name: 'work', arguments: { steps: 1, intervalMs: 1 } });
 * } catch (error) {
 *   if (error instanceof JsonRpcError && error.code === OVERLOADED_ERROR_CODE) console.error('busy: retry later');
 * }
 * ```
 */
export const OVERLOADED_ERROR_CODE: -32010 = JsonRpcErrorCode.Overloaded;

/**
 * Counters of a connection's flow control for inbound requests (part of `connection.stats`).
 *
 * @example
 * ```ts
 * import type { RequestGateStats, StdioServer } from '@mcp-inflight/stdio';
 * declare const server: StdioServer;
 * const { queuedRequests, refusedRequests, peakQueuedBytes }: RequestGateStats = server.stats;
 * if (refusedRequests > 0) console.error(`refused ${refusedRequests}; the queue peaked at ${peakQueuedBytes} bytes`);
 * console.error(`${queuedRequests} requests wait for a free slot`);
 * ```
 */
export interface RequestGateStats {
  /** Requests (or 2025-03-26 batches) waiting for a free slot now. */
  queuedRequests: number;
  /** What they count against `maxQueuedBytes` now. */
  queuedBytes: number;
  /** The most the queue ever counted at once. */
  peakQueuedBytes: number;
  /** Requests refused at once with {@link OVERLOADED_ERROR_CODE} because the queue was full. */
  refusedRequests: number;
  /** Waiting requests the peer cancelled: removed from the queue, never run, never answered [CN9]. */
  cancelledWhileQueued: number;
}

/** Settings of a {@link RequestGate}. */
export interface RequestGateOptions {
  maxInFlight: number;
  maxQueuedBytes: number;
  /** Writes a reply of the gate's own (a refusal), unless the peer may not be answered. */
  reply: (message: JsonRpcMessage | JsonRpcMessage[]) => void;
}

interface Waiting {
  /** The request's id; undefined for a batch, which waits as one unit. */
  readonly id: RequestId | undefined;
  readonly method: string | undefined;
  readonly line: string;
  readonly bytes: number;
  cancelled: boolean;
}

/**
 * Per-connection flow control for inbound requests. Reading never stops for load, so a cancel never waits
 * behind requests (rule 7): every line is taken at once. A request runs at once while fewer than
 * `maxInFlight` are in flight; otherwise it waits, in arrival order, in a queue bounded by
 * `maxQueuedBytes`, and once that is full it is refused at once with {@link OVERLOADED_ERROR_CODE}.
 * Cancels, responses and every other notification pass straight through, and a cancel for a waiting
 * request removes it from the queue: it never runs and gets no response [CN9]. A burst of any size is
 * therefore answered in full, results or refusals, in bounded memory (rule 8).
 */
export class RequestGate {
  readonly maxInFlight: number;
  readonly maxQueuedBytes: number;
  readonly #endpoint: Endpoint;
  readonly #reply: (message: JsonRpcMessage | JsonRpcMessage[]) => void;
  /** Waiting requests in arrival order, from `#head`; cancelled ones stay as tombstones until reached. */
  #queue: (Waiting | undefined)[] = [];
  #head = 0;
  #byId = new Map<RequestId, Waiting>();
  #waiting = 0;
  /** Cancelled entries still in `#queue`. */
  #tombstones = 0;
  #queuedBytes = 0;
  #peakQueuedBytes = 0;
  #refused = 0;
  #cancelled = 0;
  #drainScheduled = false;
  #closed = false;

  constructor(endpoint: Endpoint, options: RequestGateOptions) {
    this.#endpoint = endpoint;
    this.#reply = options.reply;
    this.maxInFlight = options.maxInFlight;
    this.maxQueuedBytes = options.maxQueuedBytes;
    if (!(this.maxInFlight >= 1))
      throw new RangeError(`maxInFlight must be at least 1, got ${this.maxInFlight}`);
    if (!(this.maxQueuedBytes >= 0))
      throw new RangeError(`maxQueuedBytes must not be negative, got ${this.maxQueuedBytes}`);
  }

  get stats(): RequestGateStats {
    return {
      queuedRequests: this.#waiting,
      queuedBytes: this.#queuedBytes,
      peakQueuedBytes: this.#peakQueuedBytes,
      refusedRequests: this.#refused,
      cancelledWhileQueued: this.#cancelled,
    };
  }

  /** Takes one parsed line: runs it, queues it, or refuses it, at once. */
  take(value: unknown, line: string): void {
    if (this.#closed) return;
    let id: RequestId | undefined;
    let method: string | undefined;
    if (!Array.isArray(value)) {
      const m = value as JsonRpcMessage | null;
      if (typeof m !== 'object' || m === null || typeof m.method !== 'string' || m.id === undefined) {
        if (this.#waiting > 0 && m?.method === 'notifications/cancelled' && this.#cancelWaiting(m.params))
          return;
        return this.#endpoint.receive(value); // not a request: responses and notifications act at once
      }
      if (!isTokenOrId(m.id)) return this.#endpoint.receive(value); // the endpoint answers the bad id now
      id = m.id;
      method = m.method;
    }
    if (this.#waiting === 0 && this.#inflight() < this.maxInFlight) return this.#endpoint.receive(value);
    if (id !== undefined && this.#byId.has(id)) {
      // Two requests with one id cannot both be answered [J3 J4]; the endpoint would say the same.
      return this.#reply(
        errorResponse(
          id,
          JsonRpcErrorCode.InvalidRequest,
          `request id ${JSON.stringify(id)} is already in flight`,
        ),
      );
    }
    const bytes = Buffer.byteLength(line) + QUEUED_REQUEST_OVERHEAD_BYTES;
    if (this.#queuedBytes + bytes > this.maxQueuedBytes) return this.#refuse(value, id);
    const waiting: Waiting = { id, method, line, bytes, cancelled: false };
    this.#queue.push(waiting);
    if (id !== undefined) this.#byId.set(id, waiting);
    this.#waiting++;
    this.#queuedBytes += bytes;
    if (this.#queuedBytes > this.#peakQueuedBytes) this.#peakQueuedBytes = this.#queuedBytes;
  }

  /** A request may have ended (a response was written, or one ended with none): let waiting ones in. */
  release(): void {
    if (this.#waiting === 0 || this.#drainScheduled || this.#closed) return;
    this.#drainScheduled = true;
    queueMicrotask(this.#drain);
  }

  /**
   * The connection is over. Waiting requests never ran: with `answer` (a graceful close) each is told
   * why, otherwise they are dropped, as nothing more can reach the peer.
   */
  close(answer?: InflightError): void {
    if (this.#closed) return;
    this.#closed = true;
    const waiting = this.#queue.slice(this.#head);
    this.#queue = [];
    this.#head = 0;
    this.#byId.clear();
    this.#waiting = 0;
    this.#tombstones = 0;
    this.#queuedBytes = 0;
    if (!answer) return;
    const { code, message, data } = answer.toJsonRpc();
    for (const w of waiting)
      if (w && !w.cancelled && w.id !== undefined) this.#reply(errorResponse(w.id, code, message, data));
  }

  #drain = (): void => {
    this.#drainScheduled = false;
    while (this.#waiting > 0 && !this.#closed && this.#inflight() < this.maxInFlight) {
      const next = this.#shift();
      if (next) this.#endpoint.receive(JSON.parse(next.line));
    }
  };

  #shift(): Waiting | undefined {
    const next = this.#queue[this.#head]!;
    this.#queue[this.#head] = undefined; // let its line go now, not at the next compaction
    this.#head++;
    // Compact now and then, so the array does not keep every line that ever waited.
    if (this.#head >= 1_024 && this.#head * 2 >= this.#queue.length) {
      this.#queue = this.#queue.slice(this.#head);
      this.#head = 0;
    }
    if (next.cancelled) {
      this.#tombstones--;
      return undefined;
    }
    this.#forget(next);
    return next;
  }

  #forget(waiting: Waiting): void {
    if (waiting.id !== undefined) this.#byId.delete(waiting.id);
    this.#waiting--;
    this.#queuedBytes -= waiting.bytes;
  }

  /** A cancel for a waiting request removes it [CN9]; `initialize` may not be cancelled [CN7]. */
  #cancelWaiting(params: unknown): boolean {
    if (!isCancelledParams(params, false)) return false;
    const waiting = this.#byId.get((params as { requestId: RequestId }).requestId);
    if (!waiting || waiting.method === 'initialize') return false;
    waiting.cancelled = true;
    this.#forget(waiting);
    this.#cancelled++;
    // A peer that queues and cancels over and over must not grow the array with dead entries (rule 8).
    if (++this.#tombstones > 1_024 && this.#tombstones > this.#waiting) {
      this.#queue = this.#queue.slice(this.#head).filter((w) => w !== undefined && !w.cancelled);
      this.#head = 0;
      this.#tombstones = 0;
    }
    return true;
  }

  #refuse(value: unknown, id: RequestId | undefined): void {
    this.#refused++;
    // Short: under a flood, refusals are most of what is written, and the peer must read them all.
    const refusal = (requestId: RequestId) =>
      errorResponse(requestId, OVERLOADED_ERROR_CODE, 'Overloaded: retry later');
    if (id !== undefined) return this.#reply(refusal(id));
    // A 2025-03-26 batch is answered in kind: one refusal for each request in it [J9].
    const answers = (value as JsonRpcMessage[])
      .filter((m) => typeof m?.method === 'string' && isTokenOrId(m.id))
      .map((m) => refusal(m.id as RequestId));
    if (answers.length > 0) this.#reply(answers);
  }

  #inflight(): number {
    return this.#endpoint.stats.inboundInFlight;
  }
}
