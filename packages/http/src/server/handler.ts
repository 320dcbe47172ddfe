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
import {
  type Disconnect,
  type ExchangeServer,
  fromRequest,
  type InboundRequest,
  Reply,
  SERVE_EXCHANGE,
  toResponse,
} from './exchange.js';
import { LegacyServer } from './legacy.js';
import { serveModern } from './modern.js';
import { type HttpServerOptions, resolveServerOptions } from './options.js';
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
}

const ALLOW = 'GET, POST, DELETE';

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
  const resolved = resolveServerOptions(options);
  const context: ServeContext = {
    options: resolved,
    setup,
    stateless: new LiveTable(),
    streams: new LiveTable(),
    windows: new TimerQueue(resolved.clock),
    admission: resolved.admission,
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
  const legacy = new LegacyServer(context);
  let closed = false;

  const serve = async (request: InboundRequest, disconnect: Disconnect): Promise<Reply> => {
    if (closed)
      return errorReply(503, HTTP_ERROR_CODES.ServerClosing, 'Service Unavailable: the server is closing');
    const host = request.headers.get('host');
    if (host !== null && !resolved.isAllowedHost(host)) {
      return errorReply(
        403,
        HTTP_ERROR_CODES.Forbidden,
        `Forbidden: host ${JSON.stringify(host)} is not allowed; list its name in the server's allowedHosts option (loopback names only by default; '*' turns the check off)`,
      );
    }
    const origin = request.headers.get('origin');
    if (origin !== null && !resolved.isAllowedOrigin(origin)) {
      return errorReply(
        403,
        HTTP_ERROR_CODES.Forbidden,
        `Forbidden: origin ${JSON.stringify(origin)} is not allowed; list it in the server's allowedOrigins option (loopback origins only by default)`,
      ); // [H47]
    }
    const headers = corsHeaders(origin);
    const modernHeader = request.headers.get('mcp-protocol-version') === MODERN_REVISION;
    switch (request.method) {
      case 'POST':
        return post(request, headers, disconnect);
      case 'GET':
        // 2026-07-28 has no GET stream and no sessions [H32].
        if (modernHeader || !resolved.legacy) return methodNotAllowed('POST', headers);
        return legacy.get(request, headers);
      case 'DELETE':
        if (modernHeader || !resolved.legacy) return methodNotAllowed('POST', headers);
        return legacy.delete(request, headers);
      case 'OPTIONS':
        return preflight(headers);
      default:
        return methodNotAllowed(ALLOW, headers);
    }
  };

  const post = async (
    request: InboundRequest,
    headers: Record<string, string>,
    disconnect: Disconnect,
  ): Promise<Reply> => {
    const accepts = acceptsOf(request);
    if (!accepts.json && !accepts.sse) {
      return errorReply(
        406,
        HTTP_ERROR_CODES.NotAcceptable,
        'Not Acceptable: accept application/json and text/event-stream',
        { headers },
      );
    }
    const body = await readJsonBody(request, resolved.maxBodyBytes, headers);
    if (!body.ok) return body.response;
    const value = body.value;
    // A request carrying the 2026-07-28 envelope is served statelessly by that revision, whatever session
    // header it has [H31], an `initialize` too (2026-07-28 has none: 404 with -32601). A bare `initialize`
    // selects a legacy session [M10], even under a stray 2026-07-28 header.
    const carriesEnvelope = !Array.isArray(value) && metaVersionOf(value) !== undefined;
    const claimsModern =
      carriesEnvelope ||
      (!isInitialize(value) && request.headers.get('mcp-protocol-version') === MODERN_REVISION);
    if (claimsModern) return serveModern(request, value, context, headers, disconnect, body.bytes);
    if (!resolved.legacy) {
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
    return legacy.post(request, value, headers, disconnect, body.bytes);
  };

  // The Fetch entry and the Node listener's (SERVE_EXCHANGE) share `serve`: one server, two wrappings.
  const handler: HttpHandler & ExchangeServer = {
    handle: async (request, exchange) =>
      toResponse(await serve(fromRequest(request), exchange?.disconnect ?? request.signal)),
    [SERVE_EXCHANGE]: serve,
    async close() {
      if (closed) return;
      closed = true;
      // Listen streams end gracefully first [L11 CN3]; then what is left is shut down.
      resolved.listeners?.end(undefined, 'the server is closing');
      for (const endpoint of context.stateless.list()) endpoint.shutdown('the server is closing');
      legacy.shutdown('the server is closing');
    },
    get stats() {
      let bufferedBytes = 0;
      let replayBytes = 0;
      for (const stream of context.streams.list()) {
        bufferedBytes += stream.bufferedBytes;
        replayBytes += stream.replayBytes;
      }
      return {
        ...context.stats,
        ...context.admission.stats,
        sessions: legacy.sessions.size,
        statelessInFlight: context.stateless.size,
        bufferedBytes,
        replayBytes,
        openStreams: context.streams.size,
      };
    },
  };
  return handler;
}

function isInitialize(value: unknown): boolean {
  return (
    typeof value === 'object' && value !== null && (value as { method?: unknown }).method === 'initialize'
  );
}

function corsHeaders(origin: string | null): Record<string, string> {
  if (origin === null) return {};
  return {
    'access-control-allow-origin': origin,
    'access-control-expose-headers': 'mcp-session-id, mcp-protocol-version',
    vary: 'origin',
  };
}

function preflight(headers: Record<string, string>): Reply {
  return new Reply(204, {
    ...headers,
    'access-control-allow-methods': ALLOW,
    'access-control-allow-headers':
      'content-type, accept, authorization, mcp-session-id, mcp-protocol-version, mcp-method, mcp-name, last-event-id',
    'access-control-max-age': '600',
  });
}
