import type { RequestId } from '@mcp-inflight/core';
import {
  BoundedSet,
  type Channel,
  IdTable,
  type JsonRpcMessage,
  type SendIntent,
} from '@mcp-inflight/core/adapter';
import type { HttpHandlerStats } from './context.js';
import type { ResponseStream } from './response-stream.js';

/** Unrelated messages kept for a GET stream that is not open yet; the oldest go first. */
const MAX_UNRELATED_QUEUE = 64;
/** Tasks whose late messages are still routed; the oldest are forgotten first (rule 8). */
const MAX_TASKS = 256;

/**
 * The channel of one legacy session's endpoint: puts each message on the stream it belongs to (the POST
 * of its request [PT2], the GET stream for unrelated ones [PT3], one stream only [H20]) and ends a
 * request's stream when core says no response will come [CN9].
 */
export class SessionRouter implements Channel {
  #stats: Pick<HttpHandlerStats, 'droppedMessages'>;
  #byRequest = new IdTable<ResponseStream>(); // a Map would allocate a table per call (see ServeContext)
  #batches = new WeakSet<ResponseStream>();
  #receiving: ResponseStream | undefined;
  /** A batch array that matched no stream, for the suppressed request that follows it at once. */
  #orphanBatch: JsonRpcMessage[] | undefined;
  /** Requests answered with a CreateTaskResult, whose messages still come (2025-11-25) [PT5]. */
  #tasks = new BoundedSet<RequestId>(MAX_TASKS);
  #standalone: ResponseStream | undefined;
  #unrelated: JsonRpcMessage[] = [];

  constructor(stats: Pick<HttpHandlerStats, 'droppedMessages'>) {
    this.#stats = stats;
  }

  /** Whether a request with this id is still owed a response (ids must be fresh [J3]). */
  owes(id: RequestId): boolean {
    return this.#byRequest.has(id);
  }

  /** `stream` answers these requests (several, and as one array, for a 2025-03-26 batch). */
  track(stream: ResponseStream, requestIds: RequestId[], batch: boolean): void {
    for (const id of requestIds) {
      stream.requestIds.push(id);
      this.#byRequest.set(id, stream);
      this.#tasks.delete(id);
    }
    if (batch) this.#batches.add(stream);
  }

  /** The stream ended: it answers nothing any more. */
  release(stream: ResponseStream): void {
    for (const id of stream.requestIds) if (this.#byRequest.get(id) === stream) this.#byRequest.delete(id);
  }

  /** Runs `receive` (a batch being read) with `stream` as the target of the responses it writes at once. */
  receiveInto(stream: ResponseStream | undefined, receive: () => void): void {
    this.#receiving = stream;
    try {
      receive();
    } finally {
      this.#receiving = undefined;
    }
    // Every request in it was cancelled before it was read (rule 3): no array will ever come.
    if (stream && !stream.ended && stream.requestIds.length === 0) stream.end();
  }

  /** The GET stream now carries unrelated messages [H19]; what waited for it goes first. */
  setStandalone(stream: ResponseStream): void {
    this.#standalone = stream;
    for (const message of this.#unrelated.splice(0)) stream.send(message, false);
  }

  /** The live GET stream, if any. */
  get standalone(): ResponseStream | undefined {
    return this.#standalone;
  }

  /** The session ended: nothing waits for a GET stream any more. */
  clear(): void {
    this.#unrelated = [];
  }

  /** Puts a message on its request's stream; core's intent says whether it ends that stream [PT2]. */
  write(message: JsonRpcMessage | JsonRpcMessage[], related?: RequestId, intent?: SendIntent): void {
    if (Array.isArray(message)) return this.#writeBatch(message);
    if (related !== undefined) {
      const stream = this.#byRequest.get(related);
      if (stream) {
        const response = intent?.kind === 'response' ? intent : undefined;
        const final = response !== undefined && response.open !== true && !this.#batches.has(stream);
        if (final) {
          this.#byRequest.delete(related);
          removeId(stream.requestIds, related);
          if (response.task === true) this.#tasks.add(related);
        }
        return stream.send(message, final);
      }
      // A task outlives its POST's stream: its messages may come on any stream, the GET one included [PT5].
      // Anything else with no stream was cancelled or expired; it goes nowhere else [H20 PG12].
      if (!this.#tasks.has(related)) return void this.#stats.droppedMessages++;
    }
    this.#writeUnrelated(message);
  }

  /**
   * Core ended request `id` with no response (a cancel, one that came first, a dropped stream) [CN9]: its
   * POST's stream ends now rather than staying open with keep-alives. In a batch it is one answer fewer;
   * the batch ends when nothing is left to answer.
   */
  suppressed(id: RequestId): void {
    const stream = this.#byRequest.get(id);
    if (!stream) return;
    this.#byRequest.delete(id);
    removeId(stream.requestIds, id);
    if (!this.#batches.has(stream)) return stream.end();
    const orphan = this.#orphanBatch;
    this.#orphanBatch = undefined;
    if (orphan) return this.#sendBatch(stream, orphan);
    // While the batch is read, more of its answers may still come; receiveInto() ends it if none do.
    if (stream.requestIds.length === 0 && stream !== this.#receiving) stream.end();
  }

  /** Unrelated messages (server requests and notifications): the GET stream, or wait for one [PT3]. */
  #writeUnrelated(message: JsonRpcMessage): void {
    const standalone = this.#standalone;
    if (standalone && !standalone.ended) return standalone.send(message, false);
    this.#unrelated.push(message);
    if (this.#unrelated.length > MAX_UNRELATED_QUEUE) {
      this.#unrelated.shift();
      this.#stats.droppedMessages++;
    }
  }

  /**
   * A 2025-03-26 batch's responses, as one array, to the batch stream that owns them [J9]: the one being
   * read, else the one owning its ids (unique: a batch may not reuse an id in flight). An array that
   * matches no id (only errors for invalid elements) is written by core just before it reports the
   * batch's last request suppressed, so it waits for that call.
   */
  #writeBatch(message: JsonRpcMessage[]): void {
    const owners = message.map((m) => this.#byRequest.get(m['id'] as RequestId));
    const stream = this.#receiving ?? owners.find((s) => s !== undefined && this.#batches.has(s));
    if (stream) return this.#sendBatch(stream, message);
    this.#orphanBatch = message;
    queueMicrotask(() => {
      if (this.#orphanBatch !== message) return;
      this.#orphanBatch = undefined;
      this.#stats.droppedMessages++;
    });
  }

  #sendBatch(stream: ResponseStream, message: JsonRpcMessage[]): void {
    this.release(stream);
    stream.requestIds.length = 0;
    stream.send(message, true);
  }
}

/** Takes `id` out of a stream's few ids, the last one into its place: no array is made. */
function removeId(ids: RequestId[], id: RequestId): void {
  const at = ids.indexOf(id);
  if (at < 0) return;
  ids[at] = ids[ids.length - 1]!;
  ids.pop();
}
