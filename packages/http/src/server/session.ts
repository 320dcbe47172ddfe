import {
  Endpoint,
  InflightError,
  type JsonRpcMessage,
  type RequestId,
  type Revision,
  type TimerHandle,
} from '@mcp-inflight/core';
import { type Accepts, isResponseTo, type ServeContext } from './context.js';
import { ResponseStream } from './response-stream.js';

/** Unrelated messages kept for a GET stream that is not open yet; the oldest go first. */
const MAX_UNRELATED_QUEUE = 64;

/** How a POST's reply stream is opened. */
export interface OpenStreamOptions {
  requestIds: RequestId[];
  /** A 2025-03-26 batch: its responses come back as one array. */
  batch: boolean;
  /** The revision whose stream rules apply (2025-11-25 primes for resumption [H16]). */
  revision: Revision;
  accepts: Accepts;
  headers: Record<string, string>;
  /** The POST's signal: its abort is the client going away. */
  signal?: AbortSignal;
  onEnd?: () => void;
}

/**
 * One legacy Streamable HTTP session (`Mcp-Session-Id`): its endpoint, the reply stream of each POST, the
 * optional GET stream, resumption by `Last-Event-ID`, and an idle expiry so sessions of clients that never
 * DELETE do not pile up (rule 8).
 */
export class LegacySession {
  readonly id: string;
  readonly endpoint: Endpoint;
  #context: ServeContext;
  #onClosed: () => void;
  #byRequest = new Map<RequestId, ResponseStream>();
  #byKey = new Map<string, ResponseStream>();
  #batches = new WeakSet<ResponseStream>();
  /** Finished streams whose connection is gone, each with its resume-window timer. */
  #parked = new Map<ResponseStream, TimerHandle>();
  #initializeStream: ResponseStream | undefined;
  #nextKey = 1;
  #standalone: ResponseStream | undefined;
  #unrelated: (JsonRpcMessage | JsonRpcMessage[])[] = [];
  #receiving: ResponseStream | undefined;
  #lastActiveAt: number;
  #idleTimer: TimerHandle | undefined;
  #closed = false;

  constructor(id: string, context: ServeContext, onClosed: () => void) {
    this.id = id;
    this.#context = context;
    this.#onClosed = onClosed;
    const { options } = context;
    this.endpoint = new Endpoint({
      role: 'server',
      transport: 'http',
      clock: options.clock,
      relay: options.relay,
      ...options.endpoint,
      channel: { write: (message, related) => this.#route(message, related) },
    });
    this.#lastActiveAt = options.clock.now();
    this.#armIdle(options.sessionIdleMs);
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** A request for this session arrived: it is not idle. */
  touch(): void {
    this.#lastActiveAt = this.#context.options.clock.now();
  }

  /** Whether a request with this id is still owed a response here (ids must be fresh [J3]). */
  owes(id: RequestId): boolean {
    return this.#byRequest.has(id);
  }

  /** Opens the reply stream of a POST that carries requests. */
  openStream(open: OpenStreamOptions, initialize = false): ResponseStream {
    const { options, stats } = this.#context;
    const key = String(this.#nextKey++);
    const stream: ResponseStream = new ResponseStream({
      clock: options.clock,
      keepAliveMs: options.keepAliveMs,
      acceptsJson: open.accepts.json,
      acceptsSse: open.accepts.sse,
      headers: open.headers,
      eventIds: {
        key,
        priming: open.revision === '2025-11-25',
        retryMs: options.retryMs,
        maxBuffered: options.maxBufferedEvents,
      },
      // Legacy: a disconnect is not a cancel; the handler runs on [H13]. (A GET stream owes nothing.)
      onDisconnect: () => {
        if (stream.requestIds.size > 0) stats.legacyDisconnects++;
      },
      onParked: () => {
        const timer = options.clock.setTimer(() => stream.expire(), options.resumeWindowMs);
        this.#parked.set(stream, timer);
      },
      onEnd: (outcome) => {
        this.#parked.get(stream)?.clear();
        this.#parked.delete(stream);
        this.#byKey.delete(key);
        for (const id of stream.requestIds)
          if (this.#byRequest.get(id) === stream) this.#byRequest.delete(id);
        if (outcome === 'dropped') stats.droppedResults++;
        stats.droppedMessages += stream.droppedMessages;
        open.onEnd?.();
      },
    });
    this.#byKey.set(key, stream);
    for (const id of open.requestIds) {
      stream.requestIds.add(id);
      this.#byRequest.set(id, stream);
    }
    if (open.batch) this.#batches.add(stream);
    if (open.signal) stream.watch(open.signal);
    if (initialize) this.#initializeStream = stream;
    return stream;
  }

  /** Feeds a batch to the endpoint with `stream` as the target of responses written while it is read. */
  receiveInto(stream: ResponseStream | undefined, value: unknown): void {
    this.#receiving = stream;
    try {
      this.endpoint.receive(value);
    } finally {
      this.#receiving = undefined;
    }
  }

  /**
   * A `notifications/cancelled` for `id` was handled: its response is suppressed [CN9], so its POST
   * stream is ended now rather than left open. `initialize` cannot be cancelled [CN7].
   */
  noteCancel(id: unknown): void {
    const stream = this.#byRequest.get(id as RequestId);
    if (!stream || stream === this.#initializeStream) return;
    this.#byRequest.delete(id as RequestId);
    stream.requestIds.delete(id as RequestId);
    if (stream.requestIds.size === 0) stream.end();
  }

  /** Opens the GET stream for unrelated server messages [H19]; `undefined` if one is already live (409). */
  openStandalone(headers: Record<string, string>): Promise<Response> | undefined {
    const old = this.#standalone;
    if (old && !old.ended && old.attached) return undefined;
    old?.end();
    const stream = this.openStream({
      requestIds: [],
      batch: false,
      revision: this.endpoint.revision ?? '2025-03-26',
      accepts: { json: false, sse: true },
      headers,
    });
    this.#standalone = stream;
    stream.open();
    for (const message of this.#unrelated.splice(0)) stream.send(message, false);
    return stream.response;
  }

  /** Resumes the stream an event id belongs to [H22 H23]; `undefined` if it is unknown or expired. */
  resume(lastEventId: string, headers: Record<string, string>): Response | undefined {
    const match = /^(\d+)-(\d+)$/.exec(lastEventId.trim());
    const stream = match ? this.#byKey.get(match[1]!) : undefined;
    const response = stream?.attach(Number(match![2]), headers);
    if (response) this.#context.stats.resumedStreams++;
    return response;
  }

  /** Ends the session: handlers are aborted with DISCONNECTED, every stream closes, later requests get 404. */
  terminate(why: string): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#idleTimer?.clear();
    this.endpoint.close(new InflightError('DISCONNECTED', why));
    for (const stream of [...this.#byKey.values()]) stream.end();
    this.#unrelated = [];
    this.#onClosed();
  }

  /** Server shutdown: handlers are answered with a SHUTDOWN error on their streams, then the session ends. */
  shutdown(why: string): void {
    this.endpoint.shutdown(why);
    this.terminate(why);
  }

  #route(message: JsonRpcMessage | JsonRpcMessage[], related: RequestId | undefined): void {
    const stats = this.#context.stats;
    if (Array.isArray(message)) {
      // A 2025-03-26 batch's responses: to the stream that owns them [J9].
      const stream =
        this.#receiving ?? message.map((m) => this.#byRequest.get(m.id as RequestId)).find((s) => s);
      if (!stream) return void stats.droppedMessages++;
      for (const m of message)
        if (this.#byRequest.get(m.id as RequestId) === stream) this.#byRequest.delete(m.id as RequestId);
      stream.requestIds.clear();
      return stream.send(message, true);
    }
    if (related !== undefined) {
      const stream = this.#byRequest.get(related);
      // No stream: the request was cancelled or its stream expired; nothing goes elsewhere [H20 PG12].
      if (!stream) return void stats.droppedMessages++;
      const final = !this.#batches.has(stream) && isResponseTo(message, related);
      if (final) {
        this.#byRequest.delete(related);
        stream.requestIds.delete(related);
      }
      return stream.send(message, final);
    }
    // Unrelated (server requests and notifications): the GET stream, or wait for one [PT3].
    const standalone = this.#standalone;
    if (standalone && !standalone.ended) return standalone.send(message, false);
    this.#unrelated.push(message);
    if (this.#unrelated.length > MAX_UNRELATED_QUEUE) {
      this.#unrelated.shift();
      stats.droppedMessages++;
    }
  }

  #armIdle(waitMs: number): void {
    const { clock, sessionIdleMs } = this.#context.options;
    this.#idleTimer = clock.setTimer(() => {
      if (this.#closed) return;
      const idleMs = clock.now() - this.#lastActiveAt;
      const busy =
        this.endpoint.stats.inboundInFlight > 0 || [...this.#byKey.values()].some((s) => s.attached);
      if (!busy && idleMs >= sessionIdleMs) return this.terminate('the session expired after being idle');
      this.#armIdle(busy ? sessionIdleMs : sessionIdleMs - idleMs);
    }, waitMs);
  }
}
