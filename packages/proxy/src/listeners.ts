import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ProgressRelay } from '@mcp-inflight/core';
import type { Listeners } from '@mcp-inflight/core/listen';
import { type ServeHttpOptions, serveHttp } from '@mcp-inflight/http';
import { serveStdio } from '@mcp-inflight/stdio';
import { hostLabel } from './host-label.js';
import { answerHealth, bearerCheck, unauthorized } from './http-routes.js';
import type { PassHeaders } from './pass-headers.js';
import type { ProxyRelay } from './proxy-relay.js';

/** Where hosts reach the proxy, and how to stop taking them. */
export interface Listener {
  /** `stdio`, or the HTTP URL. */
  readonly url: string;
  /** Settles when no host can come any more (stdio: the host closed stdin). Never settles for HTTP. */
  readonly closed: Promise<void>;
  /** Stops listening after what is queued for hosts has been written. */
  close(): Promise<void>;
  /** The transport's own tables: stdio's read and write queues, or HTTP's sessions and requests. */
  stats(): Record<string, unknown>;
}

/**
 * Serves one host on the process's stdin and stdout. A result that follows its call's last progress
 * update waits stdio's result gap (`resultGapMs`, default 5 ms), so an SDK v1 host reads the two apart and
 * sees the final update; env `MCP_PROXY_RESULT_GAP_MS` overrides it (bench/progress-gap.mjs measures it).
 *
 * @example
 * ```ts
 * import { listenStdio } from './listeners.js';
 * declare const relay: import('./proxy-relay.js').ProxyRelay;
 * const listener = listenStdio(relay);
 * await listener.closed; // the host went away
 * ```
 */
export function listenStdio(relay: ProxyRelay, listeners?: Listeners, progress?: ProgressRelay): Listener {
  const gap = process.env.MCP_PROXY_RESULT_GAP_MS;
  const connection = serveStdio((endpoint) => relay.attach(endpoint, 'stdio'), {
    ...(gap === undefined || gap === '' ? {} : { resultGapMs: Number(gap) }),
    ...(listeners ? { listeners } : {}),
    ...(progress ? { progressRelay: progress } : {}),
  });
  return {
    url: 'stdio',
    closed: connection.closed,
    close: () => connection.close('the proxy is shutting down'),
    stats: () => ({ kind: 'stdio', ...connection.stats }),
  };
}

/** Where and how {@link listenHttp} listens: `serveHttp`'s options, plus the proxy's own routes. */
export interface HttpListenOptions extends ServeHttpOptions {
  /**
   * Bearer tokens a host must send (`Authorization: Bearer …`), compared in constant time; others get
   * `401` with a JSON-RPC error body. CORS preflights and the health routes need none. @default none
   */
  authTokens?: readonly string[];
  /** Answers `GET /readyz`: `undefined` when ready, else why not (503). @default always ready */
  readiness?: () => string | undefined;
  /** `--pass-header`: each host request is served with its named headers in context. */
  passHeaders?: PassHeaders;
}

/**
 * Serves any number of hosts over Streamable HTTP (127.0.0.1 and `/mcp` unless told otherwise): each
 * legacy session and each 2026-07-28 request gets its own endpoint, all relayed onto the one upstream.
 * `GET /healthz` and `GET /readyz` answer without a token.
 *
 * @example
 * ```ts
 * import { listenHttp } from './listeners.js';
 * declare const relay: import('./proxy-relay.js').ProxyRelay;
 * const listener = await listenHttp(relay, { port: 0 });
 * console.error(`listening on ${listener.url}`);
 * ```
 */
export async function listenHttp(
  relay: ProxyRelay,
  options: HttpListenOptions,
  listeners?: Listeners,
  progress?: ProgressRelay,
): Promise<Listener> {
  const { authTokens, readiness, passHeaders, ...serve } = options;
  const server = await serveHttp((endpoint, info) => relay.attach(endpoint, hostLabel(info.sessionId)), {
    maxSessions: 1_000,
    sessionIdleMs: 300_000,
    ...serve,
    ...(listeners ? { listeners } : {}),
    ...(progress ? { progressRelay: progress } : {}),
  });
  // The proxy's own routes go first: health needs no token, everything else on the MCP path may.
  const [mcp] = server.server.listeners('request') as Array<
    (req: IncomingMessage, res: ServerResponse) => void
  >;
  server.server.removeAllListeners('request');
  const guard = authTokens && authTokens.length > 0 ? bearerCheck(authTokens) : undefined;
  server.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (answerHealth(req, res, readiness)) return;
    if (guard && req.method !== 'OPTIONS' && !guard(req.headers.authorization)) {
      return void unauthorized(res);
    }
    if (passHeaders) passHeaders.serve(req.headers, () => mcp?.(req, res));
    else mcp?.(req, res);
  });
  const { handler } = server;
  return {
    url: server.url,
    closed: new Promise<void>(() => {}),
    close: () => server.close(),
    stats: () => {
      const { sessions, statelessInFlight } = handler.stats;
      return { kind: 'http', sessions, statelessInFlight };
    },
  };
}
