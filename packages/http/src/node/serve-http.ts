import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { HttpSetup } from '../server/context.js';
import { toResponse } from '../server/exchange.js';
import { createHttpHandler, type HttpHandler } from '../server/handler.js';
import { type HttpServerOptions, LOOPBACK_HOSTS } from '../server/options.js';
import { errorReply } from '../server/replies.js';
import { HTTP_ERROR_CODES } from '../shared/error-codes.js';
import { answerClientError, limitConnections } from './limits.js';
import { toNodeListener } from './node-listener.js';

/**
 * Options for {@link serveHttp}: the handler's options plus where to listen.
 *
 * @example
 * ```ts
 * import type { ServeHttpOptions } from '@mcp-inflight/http';
 * const options: ServeHttpOptions = { port: 0, keepAliveMs: 10_000, allowedOrigins: ['https://app.example'] };
 * ```
 */
export interface ServeHttpOptions extends HttpServerOptions {
  /** The port; 0 picks a free one (read the real one from `url`). */
  port: number;
  /** The interface to bind. Loopback unless you say otherwise [H47, "bind only to localhost"]. @default '127.0.0.1' */
  host?: string;
  /** The MCP endpoint's path; anything else is 404. @default '/mcp' */
  path?: string;
  /**
   * A client must have sent all its request headers within this long of connecting (or of its previous
   * request on a kept-alive connection), else `408` and the connection closes: a client trickling headers
   * cannot hold a connection. Checked every quarter of it (at most every second). @default 10_000
   */
  headersTimeoutMs?: number;
  /** The whole request, body included, must have arrived within this long, else `408`. @default 30_000 */
  requestTimeoutMs?: number;
  /**
   * An idle kept-alive connection (no request in progress) closes after this long (advertised in the
   * `Keep-Alive` header; Node closes up to 1 s later so a client trusting it never races the close). Not
   * to be confused with `keepAliveMs`, the SSE comment interval. @default 5_000
   */
  keepAliveTimeoutMs?: number;
  /**
   * Open connections at most; one more gets `503` with `HTTP_ERROR_CODES.Overloaded` and is
   * closed. Keep it below the process's file-descriptor limit. @default 4_096
   */
  maxConnections?: number;
  /**
   * Idle connections from one remote address at most: those serving no request (opened and not yet past
   * their request's headers, or kept alive between requests). One more connection from that address gets
   * the same `503`, so one address's silent sockets cannot lock other clients out before any auth, while
   * a client with a thousand calls in flight (a connection each) is never refused for them. @default 256
   */
  maxIdleConnectionsPerAddress?: number;
  /**
   * A connection that has sent no byte this long after it opened gets `408` and is closed, well before
   * `headersTimeoutMs`: a silent socket frees its slot in seconds. @default 5_000
   */
  firstByteTimeoutMs?: number;
}

/**
 * A running MCP HTTP server.
 *
 * @example
 * ```ts
 * import { serveHttp } from '@mcp-inflight/http';
 * const running = await serveHttp(() => {}, { port: 0 });
 * console.log(running.url, running.handler.stats.sessions);
 * await running.close();
 * ```
 */
export interface RunningHttpServer {
  /** The MCP endpoint's URL with the real port, e.g. `http://127.0.0.1:53211/mcp`. */
  readonly url: string;
  /** The listening `node:http` server. */
  readonly server: Server;
  /** The Fetch handler behind it (for `stats`). */
  readonly handler: HttpHandler;
  /** Ends every session and stream, then stops listening. */
  close(): Promise<void>;
}

/**
 * Serves MCP over Streamable HTTP with `node:http`, every revision on one path: see
 * {@link createHttpHandler}. Binds 127.0.0.1 by default; on a loopback host the `Host` header must name
 * loopback too (DNS rebinding), and browser origins must be loopback unless `allowedOrigins` says otherwise.
 *
 * @example
 * ```ts
 * import { serveLifecycle } from '@mcp-inflight/core';
 * import { serveHttp } from '@mcp-inflight/http';
 *
 * const running = await serveHttp(
 *   (endpoint) => serveLifecycle(endpoint, { serverInfo: { name: 'demo', version: '1.0.0' }, capabilities: {} }),
 *   { port: 0 },
 * );
 * console.log(`listening on ${running.url}`);
 * await running.close();
 * ```
 */
export async function serveHttp(setup: HttpSetup, options: ServeHttpOptions): Promise<RunningHttpServer> {
  const {
    port,
    host = '127.0.0.1',
    path = '/mcp',
    headersTimeoutMs = 10_000,
    requestTimeoutMs = 30_000,
    keepAliveTimeoutMs = 5_000,
    maxConnections = 4_096,
    maxIdleConnectionsPerAddress = 256,
    firstByteTimeoutMs = 5_000,
    ...rest
  } = options;
  const loopback = LOOPBACK_HOSTS.includes(host);
  const handler = createHttpHandler(setup, {
    ...rest,
    allowedHosts: rest.allowedHosts ?? (loopback ? LOOPBACK_HOSTS : '*'),
  });
  const listener = toNodeListener(handler);
  const notFound = toNodeListener({
    handle: async () =>
      toResponse(errorReply(404, HTTP_ERROR_CODES.NotFound, `Not Found: the MCP endpoint is ${path}`)),
    close: async () => {},
    stats: handler.stats,
  });
  const server = createServer(
    {
      noDelay: true,
      // Node wants the headers limit within the request limit; it checks both on this interval.
      headersTimeout: Math.min(headersTimeoutMs, requestTimeoutMs),
      requestTimeout: requestTimeoutMs,
      keepAliveTimeout: keepAliveTimeoutMs,
      connectionsCheckingInterval: Math.max(10, Math.min(1_000, Math.floor(headersTimeoutMs / 4))),
    },
    (req, res) => {
      if (!admit(req, res)) return void res.destroy();
      (isPath(req.url ?? '/', path) ? listener : notFound)(req, res);
    },
  );
  const admit = limitConnections(server, {
    maxConnections,
    maxIdleConnectionsPerAddress,
    firstByteTimeoutMs,
    ...(rest.optionNames ? { names: rest.optionNames } : {}),
  });
  server.on('clientError', answerClientError);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shownHost}:${address.port}${path}`,
    server,
    handler,
    async close() {
      await handler.close();
      // Let the last frames (SHUTDOWN errors, stream ends) flush, then cut whatever is still open.
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const force = setTimeout(() => server.closeAllConnections(), 250);
      await stopped;
      clearTimeout(force);
    },
  };
}

/** Whether a request target names `path`: the exact path (with or without a query) costs no URL parse. */
function isPath(target: string, path: string): boolean {
  if (target === path || (target.startsWith(path) && target.charCodeAt(path.length) === 63)) return true; // '?'
  return new URL(target, 'http://x').pathname === path;
}
