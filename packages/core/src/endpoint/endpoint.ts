import type { EventEmitter } from 'eventemitter3';
import type { Admission } from '../admission/admission.js';
import { type Clock, systemClock, type TimerHandle } from '../clock/clock.js';
import { InflightError } from '../errors/inflight-error.js';
import type { Role, TransportKind } from '../policy/era-cancel-policy.js';
import { ProgressRelay } from '../relay/progress-relay.js';
import { isLegacy, isRevision, LATEST_LEGACY_REVISION, type Revision } from '../revisions/revisions.js';
import type { RequestId } from '../schemas/types.js';
import type { Channel } from './channel.js';
import type { HandlerOptions, NotificationHandler, RequestHandler } from './context.js';
import {
  DEFAULT_MAX_BATCH_ELEMENTS,
  type EndpointOptions,
  type EndpointSettings,
  type EndpointStats,
} from './endpoint-options.js';
import { createEmitter, type EndpointEvents, type EventHub } from './events.js';
import { InboundRequests } from './inbound.js';
import type { JsonRpcMessage } from './messages.js';
import { OutboundRequests, type RequestOptions } from './outbound.js';
import { Receiver } from './receiver.js';

export { batchTooLarge } from './batch.js';
export { DEFAULT_MAX_BATCH_ELEMENTS, type EndpointOptions, type EndpointStats } from './endpoint-options.js';

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
  #inbound: InboundRequests;
  #outbound: OutboundRequests;
  /** Sorts what the peer sent; holds the handlers. */
  #receiver: Receiver;
  #closed = false;
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
    // Both tables share one settings literal, not `{ ...shared, more }` each: on Node 20 that spread made a
    // new hidden class per endpoint (13-27 -> 0.5 µs per `new Endpoint()` in the bench), and a 2026-07-28
    // HTTP server makes an endpoint per request.
    const settings: EndpointSettings = {
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
      idleMs: options.idleMs ?? 60_000,
      ceilingMs: options.ceilingMs ?? 600_000,
      clientInfo: options.clientInfo,
      clientCapabilities: options.clientCapabilities ?? {},
    };
    this.#inbound = new InboundRequests(settings);
    this.#outbound = new OutboundRequests(settings);
    this.#receiver = new Receiver(this, this.#inbound, this.#outbound);
    this.#receiver.handlers.set('ping', () => ({}));
  }

  /**
   * Serves `method`. Replaces an earlier handler for it. `limits` bound this handler alone (instead of the
   * endpoint's `handlerIdleMs` / `handlerCeilingMs`); a limit that fires answers -32001 with `data.cause`.
   * `bypassesAdmission` runs it in the admission's control lane, taking no work slot (as `initialize`,
   * `ping`, `tasks/get` do): for a cheap request that must answer while work fills every slot [rule 14].
   */
  setRequestHandler(method: string, handler: RequestHandler, limits?: HandlerOptions): this {
    this.#receiver.handlers.set(method, handler);
    if (limits) this.#receiver.handlerLimits.set(method, limits);
    else this.#receiver.handlerLimits.delete(method);
    return this;
  }

  /** The handler serving `method`, if one is set (multi round-trip requests answer input requests with it). */
  requestHandler(method: string): RequestHandler | undefined {
    return this.#receiver.handlers.get(method);
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
    this.#receiver.notificationHandlers.set(method, handler);
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
      ignoredNotifications: this.#receiver.ignoredNotifications,
      badInput: this.#receiver.badInput,
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
      return this.#receiver.notJson();
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
    if (Array.isArray(value)) return this.#receiver.batch(value, source);
    this.#receiver.one(value, undefined, source, 1);
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
}
