import type { EventEmitter } from 'eventemitter3';
import type { Admission } from '../admission/admission.js';
import { type Clock, systemClock, type TimerHandle } from '../clock/clock.js';
import { JsonRpcErrorCode } from '../errors/causes.js';
import { InflightError } from '../errors/inflight-error.js';
import type { Role, TransportKind } from '../policy/era-cancel-policy.js';
import { ProgressRelay } from '../relay/progress-relay.js';
import {
  allowsBatches,
  isLegacy,
  isRevision,
  LATEST_LEGACY_REVISION,
  MODERN_REVISION,
  metaVersionOf,
  negotiateLegacy,
  REVISIONS,
  type Revision,
  revisionOf,
} from '../revisions/revisions.js';
import { isCancelledParams, isProgressParams } from '../schemas/guards.js';
import type { RequestId } from '../schemas/types.js';
import { BatchCollector } from './batch.js';
import type { Channel } from './channel.js';
import type { HandlerLimits, HandlerOptions, NotificationHandler, RequestHandler } from './context.js';
import { createEmitter, type EndpointEvents, type EventHub } from './events.js';
import { InboundRequests } from './inbound.js';
import {
  classify,
  errorResponse,
  type JsonRpcMessage,
  type MessageFields,
  type ProgressFields,
} from './messages.js';
import { OutboundRequests, type RequestOptions } from './outbound.js';

/** Requests 2026-07-28 removed: answered -32601 there, whoever registered a handler [TO10 M12]. */
const REMOVED_IN_MODERN: ReadonlySet<string> = new Set(['ping', 'initialize']);

/**
 * Options for an {@link Endpoint}.
 *
 * @example
 * ```ts
 * import { Endpoint, type EndpointOptions } from '@mcp-inflight/core';
 * const options: EndpointOptions = {
 *   role: 'client',
 *   transport: 'stdio',
 *   channel: { write: (message) => console.log(JSON.stringify(message)) },
 *   idleMs: 10_000, // outbound calls end after 10 s without progress…
 *   ceilingMs: 120_000, // …and after 2 min, whatever progress says
 *   onError: (error, context) => console.error(context, error),
 * };
 * const client = new Endpoint(options);
 * ```
 */
export interface EndpointOptions {
  /** Which side we are: decides who may send progress and cancels (2026-07-28 narrows both). */
  role: Role;
  /** Which transport carries us: decides how a cancel is signalled. */
  transport: TransportKind;
  /** Where messages are written. */
  channel: Channel;
  /** @default systemClock */
  clock?: Clock;
  /** Share one relay (and its counters) among endpoints. @default a new relay on `clock` */
  progressRelay?: ProgressRelay;
  /** The session's revision when known up front (an HTTP header, a pinned client). Set by `initialize`. */
  revision?: Revision;
  /** Who we are, stamped on every 2026-07-28 request we send unless the request names itself [M4]. */
  clientInfo?: {
    /** The implementation's name. */
    name: string;
    /** Its version. */
    version: string;
    [key: string]: unknown;
  };
  /** What we offer, stamped on every 2026-07-28 request we send [M2]. @default {} */
  clientCapabilities?: Record<string, unknown>;
  /** Default idle limit for outbound requests. @default 60_000 */
  idleMs?: number | undefined;
  /** Default hard ceiling for outbound requests. @default 600_000 */
  ceilingMs?: number | undefined;
  /** Idle limit for inbound handlers (reset by their own progress). @default Infinity */
  handlerIdleMs?: number | undefined;
  /** Hard ceiling for inbound handlers. @default Infinity */
  handlerCeilingMs?: number | undefined;
  /**
   * Told about failures that must not stop the endpoint: a notification handler that threw, a response
   * the channel could not write. The endpoint keeps serving either way. @default ignore (counted in stats)
   */
  onError?: (error: unknown, context: string) => void;
  /**
   * The most elements a 2025-03-26 batch may have; a larger one is refused whole with one `-32600`
   * (`id: null`) naming the limit, since every element's answer would go out in one message (a 2 MB body
   * of a million invalid elements asked for a 113 MB answer). @default 1_000 (`DEFAULT_MAX_BATCH_ELEMENTS`)
   */
  maxBatchElements?: number | undefined;
  /**
   * Asked before each inbound handler runs: at most its `maxInFlight` handlers at once over every endpoint
   * that shares it, a bounded queue, `-32010` beyond it, a cancel that takes a waiting request out at once.
   * Transports give one to each server endpoint (stdio: one per connection; HTTP: one per server).
   * @default none: every request runs at once
   */
  admission?: Admission;
}

/**
 * The default bound on a 2025-03-26 batch's elements ({@link EndpointOptions.maxBatchElements}).
 */
export const DEFAULT_MAX_BATCH_ELEMENTS = 1_000;

/**
 * Counters for one endpoint.
 *
 * @example
 * ```ts
 * import type { Endpoint, EndpointStats } from '@mcp-inflight/core';
 * declare const endpoint: Endpoint;
 * const stats: EndpointStats = endpoint.stats; // a snapshot: read `stats` again for new numbers
 * if (stats.lateResponses + stats.lateResults > 0) console.warn('answers came after the calls ended', stats);
 * ```
 */
export interface EndpointStats {
  /** Requests from the peer being handled now. */
  inboundInFlight: number;
  /** Requests from the peer waiting for admission (`EndpointOptions.admission`): not started yet. */
  inboundQueued: number;
  /** Our requests waiting for their answer. */
  outboundInFlight: number;
  /** Progress tokens held by outbound requests (minted per request, released when it settles). */
  outboundTokens: number;
  /** Responses that came after their request had ended (absorbed). */
  lateResponses: number;
  /** Handler results or errors that came after their request had ended (absorbed). */
  lateResults: number;
  /** Cancels that matched no request in flight when they arrived, or named `initialize` [CN7 CN11]. */
  ignoredCancels: number;
  /** Cancels that arrived before their request and still won (rule 3). */
  earlyCancelsApplied: number;
  /** Notifications ignored: malformed, or for a method nobody handles [CN15]. */
  ignoredNotifications: number;
  /** Input that was not JSON, when we are the client (a client does not answer it). */
  badInput: number;
  /** Errors passed to `onError` (thrown by callbacks or by the channel, invalid answers to our calls). */
  errors: number;
}

/**
 * One JSON-RPC connection (a stdio pipe, an HTTP session, or one stateless 2026-07-28 request) with the
 * whole request lifecycle of MCP: handlers dispatched off the read loop with a cancellable context,
 * outbound requests with deadlines and progress, era-correct cancellation, and strict hygiene. Adapters
 * only frame bytes into {@link Endpoint.receive} and implement {@link Channel}.
 *
 * @example
 * ```ts
 * import { Endpoint } from '@mcp-inflight/core';
 * const server = new Endpoint({
 *   role: 'server',
 *   transport: 'stdio',
 *   channel: { write: (message) => console.log(JSON.stringify(message)) },
 * });
 * server.setRequestHandler('tools/call', async (params, ctx) => {
 *   ctx.progress(1, 2, 'half way');
 *   return { content: [{ type: 'text', text: 'done' }] };
 * });
 * server.receiveText('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"progressToken":"t"}}}');
 * ```
 */
export class Endpoint {
  /** Which side we are (`EndpointOptions.role`). */
  readonly role: Role;
  /** Which transport carries us (`EndpointOptions.transport`). */
  readonly transport: TransportKind;
  /** Where messages are written. */
  readonly channel: Channel;
  /** The clock every deadline of this endpoint runs on. */
  readonly clock: Clock;
  /** The progress relay this endpoint's routes live on. */
  readonly progressRelay: ProgressRelay;
  /** The session's negotiated revision (legacy), if any; 2026-07-28 requests carry their own. */
  revision: Revision | undefined;
  /** The most elements a 2025-03-26 batch may have ({@link EndpointOptions.maxBatchElements}). */
  readonly maxBatchElements: number;
  /** Asked before each inbound handler runs ({@link EndpointOptions.admission}), if any. */
  readonly admission: Admission | undefined;
  #handlers = new Map<string, RequestHandler>();
  #handlerLimits = new Map<string, HandlerOptions>();
  #notificationHandlers = new Map<string, NotificationHandler>();
  #inbound: InboundRequests;
  #outbound: OutboundRequests;
  #closed = false;
  #ignoredNotifications = 0;
  #badInput = 0;
  #errors = { count: 0 };
  #onError: (error: unknown, context: string) => void;
  #hub: EventHub = { events: undefined };
  constructor(options: EndpointOptions) {
    this.role = options.role;
    this.transport = options.transport;
    this.channel = options.channel;
    this.clock = options.clock ?? options.progressRelay?.clock ?? systemClock;
    this.progressRelay = options.progressRelay ?? new ProgressRelay({ clock: this.clock });
    this.revision = options.revision;
    this.maxBatchElements = options.maxBatchElements ?? DEFAULT_MAX_BATCH_ELEMENTS;
    this.admission = options.admission;
    const errors = this.#errors;
    const onError = options.onError;
    const hub = this.#hub;
    this.#onError = (error, context) => {
      errors.count++;
      hub.events?.emit('error', error, context);
      onError?.(error, context);
    };
    // Each table gets its settings as one literal, not `{ ...shared, more }`: on Node 20 that spread made
    // a new hidden class per endpoint (~10 µs each and old-space garbage), and a 2026-07-28 HTTP server
    // makes an endpoint per request.
    this.#inbound = new InboundRequests({
      hub,
      onError: this.#onError,
      role: this.role,
      transport: this.transport,
      channel: this.channel,
      clock: this.clock,
      progressRelay: this.progressRelay,
      handlerIdleMs: options.handlerIdleMs ?? Number.POSITIVE_INFINITY,
      handlerCeilingMs: options.handlerCeilingMs ?? Number.POSITIVE_INFINITY,
      admission: options.admission,
      owner: this,
    });
    this.#outbound = new OutboundRequests({
      hub,
      onError: this.#onError,
      role: this.role,
      transport: this.transport,
      channel: this.channel,
      clock: this.clock,
      progressRelay: this.progressRelay,
      idleMs: options.idleMs ?? 60_000,
      ceilingMs: options.ceilingMs ?? 600_000,
      clientInfo: options.clientInfo,
      clientCapabilities: options.clientCapabilities ?? {},
    });
    this.#handlers.set('ping', () => ({}));
  }

  /**
   * Serves `method`. Replaces an earlier handler for it. `limits` bound this handler alone (instead of the
   * endpoint's `handlerIdleMs` / `handlerCeilingMs`); a limit that fires answers -32001 with `data.cause`.
   * `bypassesAdmission` runs it at once whatever the endpoint's `admission` says, taking no slot: for a
   * cheap request that must answer while callers' work fills every slot (a proxy's own stats [rule 14]).
   */
  setRequestHandler(
    method: string,
    handler: RequestHandler,
    limits?: HandlerLimits & { bypassesAdmission?: boolean },
  ): this {
    this.#handlers.set(method, handler);
    if (limits) this.#handlerLimits.set(method, limits);
    else this.#handlerLimits.delete(method);
    return this;
  }

  /** The handler serving `method`, if one is set (multi round-trip requests answer input requests with it). */
  requestHandler(method: string): RequestHandler | undefined {
    return this.#handlers.get(method);
  }

  /** The default limits of outbound requests (`EndpointOptions.idleMs` / `ceilingMs`). */
  get requestLimits(): {
    /** The idle window of an outbound request, in ms. */
    readonly idleMs: number;
    /** The ceiling of an outbound request, in ms. */
    readonly ceilingMs: number;
  } {
    const { idleMs, ceilingMs } = this.#outbound.settings;
    return { idleMs, ceilingMs };
  }

  /** What this endpoint declares as a client on each 2026-07-28 request (`EndpointOptions.clientCapabilities`). */
  get clientCapabilities(): Record<string, unknown> {
    return this.#outbound.settings.clientCapabilities;
  }

  /** Receives `method` notifications (cancel and progress are handled by the endpoint itself). */
  setNotificationHandler(method: string, handler: NotificationHandler): this {
    this.#notificationHandlers.set(method, handler);
    return this;
  }

  /**
   * The typed event stream of this endpoint (see {@link EndpointEvents}): requests started and ended,
   * progress accepted or dropped, cancels sent and received, deadlines fired, late messages absorbed,
   * errors. Made on first read; until then the endpoint emits nothing, so an endpoint nobody watches pays
   * nothing for it.
   *
   * @example
   * ```ts
   * import type { Endpoint } from '@mcp-inflight/core';
   * declare const client: Endpoint;
   * client.events.on('cancel-sent', (id, method, cause, how) => console.log(`${method} #${id} ${how}: ${cause.code}`));
   * client.events.on('late', (kind, key) => console.log(`late ${kind} for ${key}, absorbed`));
   * ```
   */
  get events(): EventEmitter<EndpointEvents> {
    this.#hub.events ??= createEmitter();
    return this.#hub.events;
  }

  /** Whether the endpoint has closed. */
  get closed(): boolean {
    return this.#closed;
  }

  /** A snapshot of the endpoint's counters: read it again for new numbers. */
  get stats(): EndpointStats {
    return {
      inboundInFlight: this.#inbound.size,
      inboundQueued: this.#inbound.queued,
      outboundInFlight: this.#outbound.size,
      outboundTokens: this.#outbound.tokens,
      lateResponses: this.#outbound.lateResponses,
      lateResults: this.#inbound.lateResults,
      ignoredCancels: this.#inbound.ignoredCancels,
      earlyCancelsApplied: this.#inbound.earlyCancelsApplied,
      ignoredNotifications: this.#ignoredNotifications,
      badInput: this.#badInput,
      errors: this.#errors.count,
    };
  }

  /**
   * Takes one line or body of text. A server answers broken JSON with -32700 and keeps serving; a client
   * only counts it (it may not write responses, and a stray log line is no request) [S5].
   */
  receiveText(text: string): void {
    if (this.#closed) return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      if (this.role === 'client') {
        this.#badInput++;
        return;
      }
      this.channel.write(
        errorResponse(null, JsonRpcErrorCode.ParseError, 'Parse error: the input is not valid JSON'),
      );
      return;
    }
    this.receive(value, text);
  }

  /**
   * Takes one parsed JSON value: a message, or a 2025-03-26 batch array. `source` is the text it was
   * parsed from (or that text's size in bytes): a request that waits for admission counts it against the
   * queue's bound, and it is measured only then.
   */
  receive(value: unknown, source?: string | number): void {
    if (this.#closed) return;
    if (Array.isArray(value)) return this.#receiveBatch(value, source);
    this.#receiveOne(value, undefined, source, 1);
  }

  /** Sends a request and waits for its result, within its deadline. Rejects with `InflightError` or `JsonRpcError`. */
  request(method: string, params?: Record<string, unknown>, options: RequestOptions = {}): Promise<unknown> {
    const revision = options.revision ?? this.revision ?? LATEST_LEGACY_REVISION;
    if (this.role === 'server' && !isLegacy(revision)) {
      // 2026-07-28: servers MUST NOT initiate requests [L1 S6].
      return Promise.reject(new Error(`a 2026-07-28 server may not send requests (tried ${method})`));
    }
    const result = this.#outbound.send(method, params, revision, options);
    if (method !== 'initialize') return result;
    return result.then((value) => {
      const negotiated = (value as { protocolVersion?: unknown } | undefined)?.protocolVersion;
      if (isRevision(negotiated)) this.revision = negotiated;
      return value;
    });
  }

  /** Sends a notification. `related` ties it to an inbound request (its stream on HTTP). */
  notify(method: string, params?: Record<string, unknown>, related?: RequestId): void {
    if (this.#closed) return;
    const message: JsonRpcMessage =
      params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };
    this.channel.write(message, related);
  }

  /**
   * Ends one inbound request for a local reason: its HTTP stream closed (2026-07-28: that is the cancel
   * [CN24], so no response follows) or a shutdown. Returns whether it was in flight.
   */
  abortInbound(id: RequestId, cause: InflightError, suppressResponse = true): boolean {
    return this.#inbound.abort(id, cause, suppressResponse);
  }

  /**
   * Fails one outbound request with `cause` and sends nothing: for a transport whose exchange for that
   * request broke (an HTTP POST refused at the network, a stream that ended with no response). Returns
   * whether it was in flight.
   */
  failOutbound(id: RequestId, cause: InflightError): boolean {
    return this.#outbound.fail(id, cause);
  }

  /**
   * Waits at most `graceMs` for every request in flight, ours and the peer's, to settle on its own: the
   * first half of a graceful close. Resolves `true` once nothing is in flight, `false` when the time ran
   * out (the requests go on; {@link Endpoint.shutdown} ends them). The bound is a fixed time on the
   * endpoint's clock, not a request deadline: one timer, cleared when the wait ends.
   *
   * @example
   * ```ts
   * import type { Endpoint } from '@mcp-inflight/core';
   * declare const endpoint: Endpoint;
   * const drained = await endpoint.drain(5_000); // let running calls finish, for up to 5 s
   * if (!drained) endpoint.shutdown('closing: 5 s grace passed'); // cancel the rest, answer with SHUTDOWN
   * endpoint.close();
   * ```
   */
  drain(graceMs: number): Promise<boolean> {
    const idle = (): boolean =>
      this.#closed || this.#inbound.size + this.#inbound.queued + this.#outbound.size === 0;
    // A grace that is not a positive number (0, negative, NaN) waits for nothing.
    if (idle() || !(graceMs > 0)) return Promise.resolve(idle());
    const events = this.events;
    return new Promise((resolve) => {
      let timer: TimerHandle | undefined;
      const end = (drained: boolean): void => {
        events.off('request-ended', onEnded);
        timer?.clear();
        resolve(drained);
      };
      const onEnded = (): void => {
        if (idle()) end(true);
      };
      events.on('request-ended', onEnded);
      // One timer on the endpoint's clock, which nothing extends; an Infinity grace arms none.
      if (graceMs !== Number.POSITIVE_INFINITY) timer = this.clock.setTimer(() => end(false), graceMs);
    });
  }

  /**
   * Stops everything in flight with the shutdown cause: our outbound requests are cancelled on the wire,
   * inbound handlers are aborted and answered with an error that says so.
   */
  shutdown(why = 'the endpoint is shutting down'): void {
    const cause = new InflightError('SHUTDOWN', why);
    this.#outbound.cancelAll(cause);
    this.#inbound.abortAll(cause, false);
  }

  /**
   * The transport is gone: every outbound call fails at once with `cause` (upstream closed by default),
   * every handler is aborted with the disconnect cause, and nothing more is written.
   */
  close(cause?: InflightError, inboundCause?: InflightError): void {
    if (this.#closed) return;
    this.#closed = true;
    // The default causes are built only when something is in flight to receive them.
    this.#outbound.failAll(cause ?? (() => new InflightError('UPSTREAM_CLOSED')));
    this.#inbound.abortAll(inboundCause ?? (() => new InflightError('DISCONNECTED')), true);
  }

  #receiveBatch(values: unknown[], source: string | number | undefined): void {
    // Batches exist only in 2025-03-26 [J9 J13]; an empty one is invalid. The spec names no error for one
    // over maxBatchElements: it is refused whole, so its answer stays one small message.
    const n = values.length;
    const max = this.maxBatchElements;
    const why =
      n === 0
        ? 'an empty batch'
        : !(this.revision && allowsBatches(this.revision))
          ? 'batches are not part of this revision'
          : n > max
            ? batchTooLargeWhy(max)
            : undefined;
    if (why) {
      if (this.role === 'client') return void this.#badInput++; // a client answers no batch it did not send
      this.channel.write(errorResponse(null, JsonRpcErrorCode.InvalidRequest, `Invalid Request: ${why}`));
      return;
    }
    const batch = new BatchCollector(this.channel);
    for (const value of values) this.#receiveOne(value, batch, source, n);
    batch.seal();
  }

  #receiveOne(
    value: unknown,
    batch: BatchCollector | undefined,
    source: string | number | undefined,
    parts: number,
  ): void {
    // The hot path: progress skips classification and allocates nothing until it is routed.
    const m = value as MessageFields | null;
    if (m !== null && typeof m === 'object' && m.method === 'notifications/progress' && m.id === undefined) {
      // `message` is checked by the route for the revisions that have it (2024-11-05 ignores it).
      if (m.jsonrpc === '2.0' && isProgressParams(m.params, false))
        this.#outbound.progress(m.params as ProgressFields);
      else this.#ignoredNotifications++; // invalid notifications are ignored [CN15]
      return;
    }
    const c = classify(value);
    switch (c.kind) {
      case 'request':
        return this.#onRequest(c.id, c.method, c.params, batch, source, parts);
      case 'notification':
        return this.#onNotification(c.method, c.params);
      case 'response':
        return this.#outbound.response(c.id, c.result, c.error);
      case 'invalid': {
        // Only something that tried to be a request is answered: never a response (two endpoints would
        // answer each other's errors forever), never a notification [CN15], and never by a 2026-07-28
        // client, which writes no responses [S5].
        if (!c.answerable || (this.role === 'client' && this.revision === MODERN_REVISION)) {
          // A broken answer to a call of ours (both result and error, a malformed error) is reported and
          // dropped: the call stays pending, to end by a valid answer or its deadline. Others are counted.
          if (this.#outbound.has(c.id)) {
            this.#onError(new Error(`invalid response ${JSON.stringify(c.id)}: ${c.message}`), 'response');
          } else this.#ignoredNotifications++;
          return;
        }
        this.#write(errorResponse(c.id, c.code, `Invalid Request: ${c.message}`), batch, undefined);
      }
    }
  }

  /** Writes a reply, or adds it to the batch it belongs to. */
  #write(message: JsonRpcMessage, batch: BatchCollector | undefined, related: RequestId | undefined): void {
    if (batch) {
      batch.expect();
      batch.add(message);
    } else
      this.channel.write(
        message,
        related,
        related === undefined ? undefined : { kind: 'response', id: related },
      );
  }

  #onRequest(
    id: RequestId,
    method: string,
    params: Record<string, unknown> | undefined,
    batch: BatchCollector | undefined,
    source: string | number | undefined,
    parts: number,
  ): void {
    const reply = (message: JsonRpcMessage): void => this.#write(message, batch, id);
    let revision = revisionOf({ params }, this.revision);
    if (revision === undefined) {
      const requested = metaVersionOf({ params });
      if (requested !== undefined) {
        return reply(
          errorResponse(id, JsonRpcErrorCode.UnsupportedProtocolVersion, 'Unsupported protocol version', {
            supported: REVISIONS,
            requested,
          }),
        );
      }
      revision = LATEST_LEGACY_REVISION; // no session yet and no envelope: serve leniently as legacy
    }
    const handler =
      isLegacy(revision) || !REMOVED_IN_MODERN.has(method) ? this.#handlers.get(method) : undefined;
    if (!handler) return reply(errorResponse(id, JsonRpcErrorCode.MethodNotFound, methodNotFound(method)));
    batch?.expect();
    const onResult =
      method === 'initialize'
        ? (result: unknown) => {
            const chosen = (result as { protocolVersion?: unknown } | undefined)?.protocolVersion;
            this.revision = negotiateLegacy(chosen, this.transport);
          }
        : undefined;
    this.#inbound.dispatch(
      id,
      method,
      params,
      revision,
      handler,
      batch,
      onResult,
      this.#handlerLimits.get(method),
      source,
      parts,
    );
  }

  #onNotification(method: string, params: Record<string, unknown> | undefined): void {
    const revision = revisionOf({ params }, this.revision);
    if (method === 'notifications/cancelled') {
      // A malformed cancel, or one without an id (2025-11-25 allows that shape only for tasks, which use
      // tasks/cancel [CN16]), is ignored quietly [CN15].
      if (!params || !isCancelledParams(params, false)) {
        this.#ignoredNotifications++;
        return;
      }
      const cancel = params as { requestId?: unknown; reason?: unknown };
      // A client is told so by a server ending its listen stream [CN3]; otherwise a cancel is for inbound work.
      if (this.role !== 'client' || !this.#outbound.endedByPeer(cancel.requestId as RequestId))
        this.#inbound.cancel(cancel.requestId as RequestId, cancel.reason as string | undefined);
    }
    const handler = this.#notificationHandlers.get(method);
    if (!handler) {
      if (method !== 'notifications/cancelled') this.#ignoredNotifications++;
      return;
    }
    try {
      handler(params, revision);
    } catch (error) {
      // A listener's bug must not reach the read loop.
      this.#onError(error, `notification handler for ${method}`);
    }
  }
}

const batchTooLargeWhy = (max: number): string => `a batch of more than maxBatchElements (${max})`;

/**
 * The one answer to a batch over `maxBatchElements`: `-32600`, `id: null`, naming the limit, with
 * `data: { elements, maxBatchElements }`. For transports that refuse a batch before it reaches an endpoint.
 */
export function batchTooLarge(elements: number, maxBatchElements: number): JsonRpcMessage {
  return errorResponse(
    null,
    JsonRpcErrorCode.InvalidRequest,
    `Invalid Request: ${batchTooLargeWhy(maxBatchElements)}`,
    { elements, maxBatchElements },
  );
}

/**
 * A missing handshake is a set-up mistake, not a peer's: the message says which call serves it, while
 * the code stays the spec's -32601.
 */
function methodNotFound(method: string): string {
  return method === 'initialize' || method === 'server/discover'
    ? `Method not found: ${method} (this endpoint serves no lifecycle: call serveLifecycle)`
    : `Method not found: ${method}`;
}
