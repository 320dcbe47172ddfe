import type { Endpoint, RequestContext, RequestId } from '@mcp-inflight/core';
import { eraCancelPolicy, InflightError, JsonRpcError, JsonRpcErrorCode } from '@mcp-inflight/core';
import {
  filterWants,
  isLegacy,
  LIST_CHANGED,
  LISTEN_ACK_METHOD,
  LISTEN_METHOD,
  type ListenFilter,
  MODERN_REVISION,
  resultResponse,
  SUBSCRIPTION_ID_META_KEY,
} from '@mcp-inflight/core/adapter';

/**
 * Which notification types a {@link ListenStreams} hub offers; each defaults to `true`. The acknowledgment
 * echoes only what is offered [LS3].
 *
 * @example
 * ```ts
 * import { ListenStreams, type ListenStreamsOptions } from '@mcp-inflight/server/listen';
 * const options: ListenStreamsOptions = { offer: { promptsListChanged: false, resourceSubscriptions: false } };
 * const listenStreams = new ListenStreams(options);
 * ```
 */
export interface ListenStreamsOptions {
  /** The notification types this server can deliver. @default every type `true` */
  offer?: {
    /** `notifications/tools/list_changed`. */
    toolsListChanged?: boolean;
    /** `notifications/prompts/list_changed`. */
    promptsListChanged?: boolean;
    /** `notifications/resources/list_changed`. */
    resourcesListChanged?: boolean;
    /** `notifications/resources/updated` for subscribed URIs. */
    resourceSubscriptions?: boolean;
  };
}

/**
 * Counters of a {@link ListenStreams} hub.
 *
 * @example
 * ```ts
 * import { ListenStreams, type ListenStreamsStats } from '@mcp-inflight/server/listen';
 * const stats: ListenStreamsStats = new ListenStreams().stats;
 * console.log(stats.streams, stats.delivered);
 * ```
 */
export interface ListenStreamsStats {
  /** Open `subscriptions/listen` streams. */
  streams: number;
  /** Legacy sessions and connections that get list changes unasked. */
  legacyEndpoints: number;
  /** Notifications written to a listener (a stream or a legacy endpoint). */
  delivered: number;
  /** Streams the server ended gracefully (response and `notifications/cancelled`). */
  ended: number;
  /** Streams the client cancelled (closed its stream, or sent `notifications/cancelled`). */
  cancelled: number;
}

interface Stream {
  readonly id: RequestId;
  readonly endpoint: Endpoint;
  readonly filter: ListenFilter;
}

/** Sweep closed legacy endpoints once the set has doubled since the last sweep (rule 8). */
const SWEEP_FLOOR = 64;

/**
 * The server's listenStreams, shared by every endpoint it serves: it answers `subscriptions/listen` on each
 * endpoint handed to {@link ListenStreams.serve} and delivers what the server publishes with
 * {@link ListenStreams.notify} to every stream whose filter asked for it [LS1], tagged with the stream's
 * subscription id [L10]. A legacy session or connection gets list changes unasked, as its revision has
 * them. A listen stream has no idle limit or ceiling of its own: it lives until the client cancels it
 * (closes the stream on HTTP, `notifications/cancelled` on stdio [CN27]), its connection goes, or the
 * server ends it with {@link ListenStreams.end}.
 *
 * @example
 * ```ts
 * import { Endpoint, serveLifecycle } from '@mcp-inflight/core';
 * import { ListenStreams } from '@mcp-inflight/server/listen';
 * const listenStreams = new ListenStreams(); // one per server, shared by every connection
 * const endpoint = new Endpoint({ role: 'server', transport: 'stdio', channel: { write: () => {} } });
 * serveLifecycle(endpoint, { serverInfo: { name: 'demo', version: '1.0.0' }, capabilities: { tools: { listChanged: true } } });
 * listenStreams.serve(endpoint); // or pass `listenStreams` to serveStdio / createHttpHandler, which also end it on close
 * listenStreams.notify('notifications/tools/list_changed'); // every stream that asked for it
 * listenStreams.end(); // shutting down: each stream gets its response, then notifications/cancelled
 * ```
 */
export class ListenStreams {
  #offer: Required<NonNullable<ListenStreamsOptions['offer']>>;
  #streams = new Set<Stream>();
  #legacy = new Set<Endpoint>();
  #sweepAt = SWEEP_FLOOR;
  #delivered = 0;
  #ended = 0;
  #cancelled = 0;

  constructor(options: ListenStreamsOptions = {}) {
    this.#offer = {
      toolsListChanged: true,
      promptsListChanged: true,
      resourcesListChanged: true,
      resourceSubscriptions: true,
      ...options.offer,
    };
  }

  /** The hub's counters; `streams` and `legacyEndpoints` are read from the live tables. */
  get stats(): ListenStreamsStats {
    return {
      streams: this.#streams.size,
      legacyEndpoints: this.#legacy.size,
      delivered: this.#delivered,
      ended: this.#ended,
      cancelled: this.#cancelled,
    };
  }

  /**
   * Serves `subscriptions/listen` on `endpoint` (call it in the transport's setup, or pass the hub as the
   * adapter's `listenStreams` option). A legacy endpoint is also remembered for list changes until it closes.
   */
  serve(endpoint: Endpoint): void {
    // No idle limit and no ceiling: the stream is meant to stay open [L12]; handler limits must not end it.
    const unlimited = { idleMs: Number.POSITIVE_INFINITY, ceilingMs: Number.POSITIVE_INFINITY };
    endpoint.setRequestHandler(LISTEN_METHOD, (params, ctx) => this.#open(endpoint, params, ctx), unlimited);
    // A stateless 2026-07-28 endpoint lives for one request: only sessions and connections are remembered.
    if (endpoint.revision === MODERN_REVISION) return;
    this.#legacy.add(endpoint);
    if (this.#legacy.size >= this.#sweepAt) {
      this.#sweep();
      this.#sweepAt = Math.max(SWEEP_FLOOR, this.#legacy.size * 2);
    }
  }

  /**
   * Publishes a notification: every listen stream whose filter asked for `method` gets it, with its
   * subscription id in `_meta` [L10 LS1]; a list change also goes to every legacy session or connection.
   * Returns how many listenStreams it reached. Only the types a filter can name travel on a listen stream
   * (progress and log messages belong to their request [PT7]).
   */
  notify(method: string, params: Record<string, unknown> = {}): number {
    let reached = 0;
    for (const stream of this.#streams) {
      if (stream.endpoint.closed || !filterWants(stream.filter, method, params)) continue;
      const own = (params as { _meta?: Record<string, unknown> })._meta;
      const meta = { ...own, [SUBSCRIPTION_ID_META_KEY]: stream.id };
      stream.endpoint.notify(method, { ...params, _meta: meta }, stream.id);
      reached++;
    }
    const field = LIST_CHANGED[method];
    if (field && this.#offer[field]) {
      for (const endpoint of this.#legacy) {
        if (endpoint.closed) this.#legacy.delete(endpoint);
        else if (endpoint.revision !== undefined && isLegacy(endpoint.revision)) {
          endpoint.notify(method, params);
          reached++;
        }
      }
    }
    this.#delivered += reached;
    return reached;
  }

  /**
   * Ends listen streams on the server's initiative (shutdown, drain): each gets the successful
   * `subscriptions/listen` response [L11 CN28] and then `notifications/cancelled` for it [CN3], then its
   * stream closes. A client that takes either as the end reads the first and ignores the other as late
   * [CN11]. Ends every stream, or only those of `endpoint`.
   */
  end(endpoint?: Endpoint, why = 'the server is closing'): number {
    let ended = 0;
    for (const stream of [...this.#streams]) {
      if (endpoint !== undefined && stream.endpoint !== endpoint) continue;
      this.#streams.delete(stream);
      ended++;
      const target = stream.endpoint;
      if (target.closed) continue;
      const meta = { [SUBSCRIPTION_ID_META_KEY]: stream.id };
      // The stream stays open for the cancel that follows, which ends it [L11 CN3].
      target.channel.write(resultResponse(stream.id, { resultType: 'complete', _meta: meta }), stream.id, {
        kind: 'response',
        id: stream.id,
        open: true,
      });
      // A 2026-07-28 server sends notifications/cancelled only to end a listen stream [CN6]: the policy says so.
      if (
        eraCancelPolicy(MODERN_REVISION, target.transport).maySendCancelled('server', 'subscriptions/listen')
          .value
      ) {
        const end = {
          jsonrpc: '2.0',
          method: 'notifications/cancelled',
          params: { requestId: stream.id, reason: why },
        };
        target.channel.write(end, stream.id, { kind: 'notification', id: stream.id, final: true });
      }
      // The handler ends with no response of its own (it was written above); HTTP closes the stream here.
      target.abortInbound(stream.id, new InflightError('SHUTDOWN', why), true);
    }
    this.#ended += ended;
    return ended;
  }

  #open(
    endpoint: Endpoint,
    params: Record<string, unknown> | undefined,
    ctx: RequestContext,
  ): Promise<never> {
    if (isLegacy(ctx.revision)) {
      // Listen streams are 2026-07-28's; a legacy session has the GET stream instead [H19].
      throw new JsonRpcError(JsonRpcErrorCode.MethodNotFound, `Method not found: ${LISTEN_METHOD}`);
    }
    const requested = (params as { notifications?: unknown } | undefined)?.notifications;
    if (typeof requested !== 'object' || requested === null || Array.isArray(requested)) {
      throw new JsonRpcError(
        JsonRpcErrorCode.InvalidParams,
        'Invalid params: notifications must be an object',
      );
    }
    const filter = this.#honour(requested);
    const stream: Stream = { id: ctx.id, endpoint, filter };
    this.#streams.add(stream);
    // The acknowledgment first, before any notification of the stream [L9].
    endpoint.notify(
      LISTEN_ACK_METHOD,
      { _meta: { [SUBSCRIPTION_ID_META_KEY]: ctx.id }, notifications: filter },
      ctx.id,
    );
    return new Promise<never>(() => {
      // Settled by nobody: a client's cancel or a dropped connection aborts the request (no response may
      // follow [CN24 CN25]), and end() writes the graceful response itself. The stream leaves the table
      // either way, so nothing outlives it.
      ctx.signal.addEventListener(
        'abort',
        () => {
          if (this.#streams.delete(stream)) this.#cancelled++;
        },
        { once: true },
      );
    });
  }

  /** The subset of the requested filter this server offers, well-formed [LS3]. */
  #honour(requested: { [K in keyof ListenFilter]?: unknown }): ListenFilter {
    const filter: ListenFilter = {};
    const offer = this.#offer;
    if (offer.toolsListChanged && requested.toolsListChanged === true) filter.toolsListChanged = true;
    if (offer.promptsListChanged && requested.promptsListChanged === true) filter.promptsListChanged = true;
    if (offer.resourcesListChanged && requested.resourcesListChanged === true)
      filter.resourcesListChanged = true;
    const uris = requested.resourceSubscriptions;
    if (offer.resourceSubscriptions && Array.isArray(uris)) {
      const strings = uris.filter((uri): uri is string => typeof uri === 'string');
      if (strings.length > 0) filter.resourceSubscriptions = strings;
    }
    return filter;
  }

  #sweep(): void {
    for (const endpoint of this.#legacy) if (endpoint.closed) this.#legacy.delete(endpoint);
  }
}
