import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { HttpSetup } from '../server/context.js';
import { createHttpHandler, type HttpHandler } from '../server/handler.js';
import { type HttpServerOptions, LOOPBACK_HOSTS } from '../server/options.js';
import { errorReply, TRANSPORT_ERROR_CODE } from '../server/replies.js';
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
  const { port, host = '127.0.0.1', path = '/mcp', ...rest } = options;
  const loopback = LOOPBACK_HOSTS.includes(host);
  const handler = createHttpHandler(setup, {
    ...rest,
    allowedHosts: rest.allowedHosts ?? (loopback ? LOOPBACK_HOSTS : '*'),
  });
  const listener = toNodeListener(handler);
  const notFound = toNodeListener({
    handle: async () => errorReply(404, TRANSPORT_ERROR_CODE, `Not Found: the MCP endpoint is ${path}`),
    close: async () => {},
    stats: handler.stats,
  });
  const server = createServer({ noDelay: true }, (req, res) => {
    const pathname = new URL(req.url ?? '/', 'http://x').pathname;
    (pathname === path ? listener : notFound)(req, res);
  });
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
