import { Endpoint, InflightError, type RequestId, type Revision, type TimerHandle } from '@mcp-inflight/core';
import { DEFAULT_HTTP_REVISION, IdTable, QuietTimer } from '@mcp-inflight/core/adapter';
import type { Accepts, ServeContext } from './context.js';
import type { Disconnect, Reply } from './exchange.js';
import { ResponseStream } from './response-stream.js';
import { SessionRouter } from './session-router.js';

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
  signal?: Disconnect;
  /** The POST's `respond`, which takes the reply as soon as it exists. */
  respond?: ((reply: Reply) => void) | undefined;
  /** The POST's `waitUntil` (Workers). */
  waitUntil?: ((work: Promise<unknown>) => void) | undefined;
  onEnd?: () => void;
}

/**
 * One legacy Streamable HTTP session (`Mcp-Session-Id`): its endpoint, the reply stream of each POST, the
 * optional GET stream, resumption by `Last-Event-ID`, and an idle expiry so sessions of clients that never
 * DELETE do not pile up (rule 8).
 *
 * Expiry counts only contact from the client: a request or notification, an open GET stream, or a reply
 * stream it is draining. Work in flight is not contact: a legacy disconnect is not a cancel [H13], so a
 * client that drops its long calls and never comes back would otherwise pin the session (and a slot of
 * `maxSessions`) for as long as the calls run. An expired session's work is cancelled with
 * `SESSION_EXPIRED`.
 */
export class LegacySession {
  readonly id: string;
  readonly endpoint: Endpoint;
  #context: ServeContext;
  #onClosed: () => void;
  #router: SessionRouter;
  #byKey = new IdTable<ResponseStream>(); // by the number in its event ids; see ServeContext on Map
  /** Finished streams whose connection is gone, each with its resume-window timer. */
  #parked = new Map<ResponseStream, TimerHandle>();
  #nextKey = 1;
  /** No contact from the client for `sessionIdleMs`: the session expires. */
  #idle: QuietTimer;
  #closed = false;

  constructor(id: string, context: ServeContext, onClosed: () => void) {
    this.id = id;
    this.#context = context;
    this.#onClosed = onClosed;
    const { options } = context;
    this.#router = new SessionRouter(context.stats);
    this.endpoint = new Endpoint({
      role: 'server',
      transport: 'http',
      clock: options.clock,
      progressRelay: options.progressRelay,
      ...options.endpoint,
      admission: context.admission,
      channel: this.#router,
    });
    this.#idle = new QuietTimer(options.clock, options.sessionIdleMs, (quietMs) => this.#onQuiet(quietMs));
    this.#idle.start();
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** A request or notification for this session arrived: contact. */
  touch(): void {
    this.#idle.touch();
  }

  /** Whether a request with this id is still owed a response here (ids must be fresh [J3]). */
  owes(id: RequestId): boolean {
    return this.#router.owes(id);
  }

  /** Opens the reply stream of a POST that carries requests. */
  openStream(open: OpenStreamOptions): ResponseStream {
    const { options, stats } = this.#context;
    const number = this.#nextKey++;
    const key = String(number);
    const stream: ResponseStream = new ResponseStream({
      clock: options.clock,
      keepAliveMs: options.keepAliveMs,
      windows: this.#context.windows,
      budgetBytes: options.sseBudgetBytes,
      stallMs: options.sseStallMs,
      maxMessageBytes: options.sseMaxMessageBytes,
      stats,
      live: this.#context.streams,
      acceptsJson: open.accepts.json,
      acceptsSse: open.accepts.sse,
      headers: open.headers,
      respond: open.respond,
      waitUntil: open.waitUntil,
      eventIds: {
        key,
        priming: open.revision === '2025-11-25',
        retryMs: options.retryMs,
        maxBuffered: options.maxBufferedEvents,
        maxBufferedBytes: options.maxBufferedBytes,
      },
      // Legacy: a disconnect is not a cancel; the handler runs on [H13]. (A GET stream owes nothing.)
      onDisconnect: (why) => {
        if (why === 'slow') stats.slowReaderEnds++;
        if (stream.requestIds.length > 0) stats.legacyDisconnects++;
      },
      onParked: () => {
        const timer = options.clock.setTimer(() => stream.expire(), options.resumeWindowMs);
        this.#parked.set(stream, timer);
      },
      onEnd: (outcome) => {
        this.#parked.get(stream)?.clear();
        this.#parked.delete(stream);
        this.#byKey.delete(number);
        this.#router.release(stream);
        if (outcome === 'dropped') stats.droppedResults++;
        stats.droppedMessages += stream.droppedMessages;
        open.onEnd?.();
      },
    });
    this.#byKey.set(number, stream);
    this.#router.track(stream, open.requestIds, open.batch);
    if (open.signal) stream.watch(open.signal);
    return stream;
  }

  /** Feeds a batch to the endpoint with `stream` as the target of responses written while it is read. */
  receiveInto(stream: ResponseStream | undefined, value: unknown, bytes?: number): void {
    this.#router.receiveInto(stream, () => this.endpoint.receive(value, bytes));
  }

  /** Opens the GET stream for unrelated server messages [H19]; `undefined` if one is already live (409). */
  openStandalone(headers: Record<string, string>): Promise<Reply> | undefined {
    const old = this.#router.standalone;
    if (old && !old.ended && old.attached) return undefined;
    old?.end();
    const stream = this.openStream({
      requestIds: [],
      batch: false,
      revision: this.endpoint.revision ?? DEFAULT_HTTP_REVISION,
      accepts: { json: false, sse: true },
      headers,
    });
    stream.open();
    this.#router.setStandalone(stream);
    return stream.response;
  }

  /** Resumes the stream an event id belongs to [H22 H23]; `undefined` if it is unknown or expired. */
  resume(lastEventId: string, headers: Record<string, string>): Reply | undefined {
    const match = /^(\d+)-(\d+)$/.exec(lastEventId.trim());
    const stream = match ? this.#byKey.get(Number(match[1])) : undefined;
    const response = stream?.attach(Number(match![2]), headers);
    if (response) this.#context.stats.resumedStreams++;
    return response;
  }

  /**
   * Ends the session: handlers are aborted with `cause` (DISCONNECTED unless said otherwise), every stream
   * closes, later requests get 404.
   */
  terminate(why: string, cause: InflightError = new InflightError('DISCONNECTED', why)): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#idle.stop();
    this.endpoint.close(cause, cause);
    for (const stream of this.#byKey.list()) stream.end();
    this.#router.clear();
    this.#onClosed();
  }

  /** Server shutdown: handlers are answered with a SHUTDOWN error on their streams, then the session ends. */
  shutdown(why: string): void {
    this.endpoint.shutdown(why);
    this.terminate(why);
  }

  /** Whether the client is in touch through a stream: a live GET stream, or a reply it is draining. */
  #streamContact(): boolean {
    for (const stream of this.#byKey.list()) {
      if (stream.ended) continue;
      if (stream.requestIds.length === 0 ? stream.attached : stream.draining) return true;
    }
    return false;
  }

  #onQuiet(quietMs: number): void {
    if (this.#closed) return;
    if (!this.#streamContact()) return this.#expire(quietMs);
    this.#idle.touch(); // a stream the client holds open or drains is contact
    this.#idle.start();
  }

  #expire(quietMs: number): void {
    const idleMs = Math.round(quietMs);
    const inFlight = this.endpoint.stats.inboundInFlight;
    const why = `the session expired after ${idleMs} ms without contact from its client`;
    this.#context.stats.expiredSessions++;
    this.#context.options.onSessionExpired({ sessionId: this.id, idleMs, inFlight });
    this.terminate(why, new InflightError('SESSION_EXPIRED', why));
  }
}
