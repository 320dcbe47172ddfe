import { JsonRpcErrorCode } from '@mcp-inflight/core';
import {
  DEFAULT_HTTP_REVISION,
  MODERN_REVISION,
  metaVersionOf,
  TimerQueue,
} from '@mcp-inflight/core/adapter';
import { HTTP_ERROR_CODES } from '../shared/error-codes.js';
import { LiveTable } from '../shared/live-table.js';
import { readJsonBody } from './body.js';
import { acceptsOf, type HttpHandlerStats, type HttpSetup, type ServeContext } from './context.js';
import { ALLOWED_METHODS, corsHeaders, preflight } from './cors.js';
import {
  type Disconnect,
  type ExchangeServer,
  fromRequest,
  type InboundRequest,
  type Reply,
  SERVE_EXCHANGE,
  toResponse,
} from './exchange.js';
import { LegacyServer } from './legacy.js';
import { serveModern } from './modern.js';
import { type HttpServerOptions, type ResolvedServerOptions, resolveServerOptions } from './options.js';
import { errorReply, methodNotAllowed } from './replies.js';

/**
 * A Fetch-standard MCP endpoint: `Request` in, `Response` out.
 *
 * @example
 * ```ts
 * import { createHttpHandler, type HttpHandler } from '@mcp-inflight/http';
 * const handler: HttpHandler = createHttpHandler(() => {});
 * const response = await handler.handle(new Request('http://127.0.0.1/mcp', { method: 'GET' }));
 * console.log(response.status); // 405: no session to listen on
 * await handler.close();
 * ```
 */
export interface HttpHandler {
  /**
   * Serves one HTTP request to the MCP endpoint (mount it at your MCP path). Pass `exchange.disconnect`
   * when the host runtime can say itself when the client went away: see {@link HttpExchange}.
   */
  handle(request: Request, exchange?: HttpExchange): Promise<Response>;
  /** Stops serving: handlers are answered with a SHUTDOWN error, every stream and session ends. */
  close(): Promise<void>;
  /** Counters: sessions, disconnects per era, resumed and dropped legacy results. */
  readonly stats: HttpHandlerStats;
}

/**
 * What a host runtime tells the handler about one HTTP exchange beyond the `Request` itself.
 *
 * A 2026-07-28 disconnect is the cancel [CN24], so the handler must learn of it however long the call has
 * been quiet. Without `disconnect` it listens on `request.signal`; that is only as good as the runtime's
 * link from the connection to the `Request` (Node 20's `new Request({ signal })` keeps it weakly, so after
 * a garbage collection the abort never arrives). A runtime that owns the connection passes a signal it
 * holds strongly for the life of the exchange and aborts it when the connection closes before the
 * response finished; {@link toNodeListener} does.
 *
 * @example
 * ```ts
 * import { createHttpHandler, type HttpExchange } from '@mcp-inflight/http';
 * const handler = createHttpHandler(() => {});
 * const closed = new AbortController(); // abort it from your server's connection 'close' event
 * const exchange: HttpExchange = { disconnect: closed.signal };
 * await handler.handle(new Request('http://127.0.0.1/mcp', { method: 'GET' }), exchange);
 * ```
 */
export interface HttpExchange {
  /** Aborts when the client's connection closed before the response finished. @default request.signal */
  disconnect?: AbortSignal;
  /**
   * Where the runtime ends a request's work with its response (Cloudflare Workers: pass `ctx.waitUntil`),
   * each POST's work is handed here until its stream ends, so a legacy call runs on after its client
   * dropped (the rule is that a disconnect is no cancel) and its result waits for a `Last-Event-ID`
   * resume. Bounded by the runtime (Workers: 30 s after the response) and by the handler's own limits.
   */
  waitUntil?: (work: Promise<unknown>) => void;
}

/**
 * Creates the Streamable HTTP server side of MCP for every revision on one endpoint. A legacy client gets a
 * session at `initialize` (one endpoint per session); a 2026-07-28 request gets a fresh endpoint of its own.
 * Each POSTed request gets its own reply: JSON when only the response comes, else an SSE stream of its
 * progress then its response. A closed stream cancels a 2026-07-28 request; under legacy revisions it does
 * not, and the result can be resumed with `Last-Event-ID`.
 *
 * @example
 * ```ts
 * import { serveLifecycle } from '@mcp-inflight/core';
 * import { createHttpHandler } from '@mcp-inflight/http';
 *
 * const handler = createHttpHandler((endpoint) => {
 *   serveLifecycle(endpoint, { serverInfo: { name: 'demo', version: '1.0.0' }, capabilities: { tools: {} } });
 *   endpoint.setRequestHandler('tools/list', () => ({ tools: [] }));
 * });
 * // serveHttp() on Node; elsewhere hand it each Fetch Request with a disconnect signal (see README)
 * ```
 */
export function createHttpHandler(setup: HttpSetup, options?: HttpServerOptions): HttpHandler {
  const server = new HandlerServer(setup, resolveServerOptions(options));
  // The Fetch entry and the Node listener's (SERVE_EXCHANGE) share `serve`: one server, two wrappings.
  const handler: HttpHandler & ExchangeServer = {
    handle: async (request, exchange) =>
      toResponse(
        await server.serve(fromRequest(request, exchange?.waitUntil), exchange?.disconnect ?? request.signal),
      ),
    [SERVE_EXCHANGE]: (request, disconnect) => server.serve(request, disconnect),
    close: () => server.close(),
    get stats() {
      return server.stats;
    },
  };
  return handler;
}

/**
 * What a handler does per request: the checks every request passes first (host, origin [H47]), then the
 * method, then for a POST the era that serves it: a 2026-07-28 request statelessly ({@link serveModern}), a
 * legacy one in its session ({@link LegacyServer}).
 */
class HandlerServer {
  readonly #options: ResolvedServerOptions;
  readonly #context: ServeContext;
  readonly #legacy: LegacyServer;
  #closed = false;

  constructor(setup: HttpSetup, options: ResolvedServerOptions) {
    this.#options = options;
    this.#context = {
      options,
      setup,
      stateless: new LiveTable(),
      streams: new LiveTable(),
      windows: new TimerQueue(options.clock),
      admission: options.admission,
      stats: {
        disconnectCancels: 0,
        legacyDisconnects: 0,
        resumedStreams: 0,
        droppedResults: 0,
        droppedMessages: 0,
        ignoredNotifications: 0,
        slowReaderEnds: 0,
        oversizeMessages: 0,
        expiredSessions: 0,
      },
    };
    this.#legacy = new LegacyServer(this.#context);
  }

  async serve(request: InboundRequest, disconnect: Disconnect): Promise<Reply> {
    if (this.#closed)
      return errorReply(503, HTTP_ERROR_CODES.ServerClosing, 'Service Unavailable: the server is closing');
    const origin = request.headers.get('origin');
    const refused = refuseHostOrOrigin(request.headers.get('host'), origin, this.#options);
    if (refused) return refused;
    const headers = corsHeaders(origin);
    const modernHeader = request.headers.get('mcp-protocol-version') === MODERN_REVISION;
    switch (request.method) {
      case 'POST':
        return this.#post(request, headers, disconnect);
      case 'GET':
        // 2026-07-28 has no GET stream and no sessions [H32].
        if (modernHeader || !this.#options.legacy) return methodNotAllowed('POST', headers);
        return this.#legacy.get(request, headers);
      case 'DELETE':
        if (modernHeader || !this.#options.legacy) return methodNotAllowed('POST', headers);
        return this.#legacy.delete(request, headers);
      case 'OPTIONS':
        return preflight(headers, request.headers.get('access-control-request-headers'), this.#options);
      default:
        return methodNotAllowed(ALLOWED_METHODS, headers);
    }
  }

  async #post(
    request: InboundRequest,
    headers: Record<string, string>,
    disconnect: Disconnect,
  ): Promise<Reply> {
    const accepts = acceptsOf(request);
    if (!accepts.json && !accepts.sse) {
      return errorReply(
        406,
        HTTP_ERROR_CODES.NotAcceptable,
        'Not Acceptable: accept application/json and text/event-stream',
        { headers },
      );
    }
    const body = await readJsonBody(request, this.#options.maxBodyBytes, headers);
    if (!body.ok) return body.response;
    const value = body.value;
    // A request carrying the 2026-07-28 envelope is served statelessly by that revision, whatever session
    // header it has [H31], an `initialize` too (2026-07-28 has none: 404 with -32601). A bare `initialize`
    // selects a legacy session [M10], even under a stray 2026-07-28 header.
    const carriesEnvelope = !Array.isArray(value) && metaVersionOf(value) !== undefined;
    const claimsModern =
      carriesEnvelope ||
      (!isInitialize(value) && request.headers.get('mcp-protocol-version') === MODERN_REVISION);
    if (claimsModern) return serveModern(this.#context, request, body, headers, disconnect);
    if (!this.#options.legacy) return modernOnly(request, headers);
    return this.#legacy.post(request, body, headers, disconnect);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    // Listen streams end gracefully first [L11 CN3]; then what is left is shut down.
    this.#options.listenStreams?.end(undefined, 'the server is closing');
    for (const endpoint of this.#context.stateless.list()) endpoint.shutdown('the server is closing');
    this.#legacy.shutdown('the server is closing');
  }

  get stats(): HttpHandlerStats {
    const context = this.#context;
    let bufferedBytes = 0;
    let replayBytes = 0;
    for (const stream of context.streams.list()) {
      bufferedBytes += stream.bufferedBytes;
      replayBytes += stream.replayBytes;
    }
    return {
      ...context.stats,
      ...context.admission.stats,
      sessions: this.#legacy.sessions.size,
      statelessInFlight: context.stateless.size,
      bufferedBytes,
      replayBytes,
      openStreams: context.streams.size,
    };
  }
}

/** A request from a host or an origin the server does not allow: 403 (DNS rebinding [H47]). */
function refuseHostOrOrigin(
  host: string | null,
  origin: string | null,
  options: ResolvedServerOptions,
): Reply | undefined {
  if (host !== null && !options.isAllowedHost(host)) {
    return errorReply(
      403,
      HTTP_ERROR_CODES.Forbidden,
      `Forbidden: host ${JSON.stringify(host)} is not allowed; list its name in ${options.refusalHints.host} (loopback names only by default; '*' turns the check off)`,
    );
  }
  if (origin !== null && !options.isAllowedOrigin(origin)) {
    return errorReply(
      403,
      HTTP_ERROR_CODES.Forbidden,
      `Forbidden: origin ${JSON.stringify(origin)} is not allowed; list it in ${options.refusalHints.origin} (loopback origins only by default)`,
    ); // [H47]
  }
  return undefined;
}

/** A legacy request to a server that speaks 2026-07-28 only. */
function modernOnly(request: InboundRequest, headers: Record<string, string>): Reply {
  return errorReply(
    400,
    JsonRpcErrorCode.UnsupportedProtocolVersion,
    'Unsupported protocol version: this server speaks 2026-07-28 only',
    {
      data: {
        supported: [MODERN_REVISION],
        requested: request.headers.get('mcp-protocol-version') ?? DEFAULT_HTTP_REVISION,
      },
      headers,
    },
  );
}

function isInitialize(value: unknown): boolean {
  return (
    typeof value === 'object' && value !== null && (value as { method?: unknown }).method === 'initialize'
  );
}
