import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Endpoint, ProgressRelay } from '@mcp-inflight/core';
import type { Admission } from '@mcp-inflight/core/adapter';
import { type HttpSetupInfo, type ServeHttpOptions, serveHttp } from '@mcp-inflight/http';
import type { ListenStreams } from '@mcp-inflight/server/listen';
import { serveStdio } from '@mcp-inflight/stdio';
import type { CallRelay } from './call-relay.js';
import {
  ClientSessions,
  ClientShares,
  clientOf,
  DEFAULT_MAX_ADDRESS_CLIENTS,
  DEFAULT_MAX_CLIENT_SESSIONS,
  mayOpenSession,
} from './fair-shares.js';
import { hostLabel } from './host-label.js';
import { answerHealth, bearerCheck, unauthorized } from './http-routes.js';
import type { PassHeaders } from './pass-headers.js';

/** Where hosts reach the proxy, and how to stop taking them. */
export interface Listener {
  /** `stdio`, or the HTTP URL. */
  readonly url: string;
  /** Settles when no host can come any more (stdio: the host closed stdin). Never settles for HTTP. */
  readonly closed: Promise<void>;
  /** Why it closed, once `closed` settled (stdio: the host went, or was cut off for not reading). */
  readonly closeReason?: () => string | undefined;
  /** Stops listening after what is queued for hosts has been written. */
  close(): Promise<void>;
  /** The transport's own tables: stdio's read and write queues, or HTTP's sessions and requests. */
  stats(): Record<string, unknown>;
}

/**
 * Serves one host on the process's stdin and stdout (the listener), its 2026-07-28 listen streams on
 * `listenStreams` when given. A result that follows its call's last progress
 * update waits stdio's result gap (`resultGapMs`, default 5 ms), so an SDK v1 host reads the two apart and
 * sees the final update; env `MCP_PROXY_RESULT_GAP_MS` overrides it (bench/progress-gap.mjs measures it).
 *
 * @example
 * ```ts
 * import { listenStdio } from './listeners.js';
 * declare const relay: import('./call-relay.js').CallRelay;
 * const listener = listenStdio(relay);
 * await listener.closed; // the host went away
 * ```
 */
export function listenStdio(
  relay: CallRelay,
  listenStreams?: ListenStreams,
  progress?: ProgressRelay,
  admission?: Admission,
): Listener {
  const gap = process.env.MCP_PROXY_RESULT_GAP_MS;
  const setup = (endpoint: Endpoint): void => {
    admission?.assign(endpoint, endpoint); // one connection, one host
    relay.attach(endpoint, 'stdio');
  };
  const connection = serveStdio(setup, {
    ...(admission ? { admission } : {}),
    ...(gap === undefined || gap === '' ? {} : { resultGapMs: Number(gap) }),
    ...(listenStreams ? { listenStreams } : {}),
    ...(progress ? { progressRelay: progress } : {}),
  });
  return {
    url: 'stdio',
    closed: connection.closed,
    closeReason: () => connection.closeReason?.message,
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
  /**
   * Legacy sessions one client (its bearer token with `authTokens`, else its address) keeps alive at
   * once; one more `initialize` gets 503 naming `--max-client-sessions`. @default 100
   */
  maxClientSessions?: number;
  /**
   * Without `authTokens`, clients one address has apart (`--max-address-clients`): each clientInfo name
   * a host declares is a share of its own, up to this many per address; more names share the address's.
   * @default 16
   */
  maxAddressClients?: number;
}

/**
 * Serves any number of hosts over Streamable HTTP (127.0.0.1 and `/mcp` unless told otherwise): each
 * legacy session and each 2026-07-28 request gets its own endpoint, all relayed onto the one upstream;
 * listen streams are served on `listenStreams` when given.
 * `GET /healthz` and `GET /readyz` answer without a token.
 *
 * @example
 * ```ts
 * import { listenHttp } from './listeners.js';
 * declare const relay: import('./call-relay.js').CallRelay;
 * const listener = await listenHttp(relay, { port: 0 });
 * console.error(`listening on ${listener.url}`);
 * ```
 */
export async function listenHttp(
  relay: CallRelay,
  options: HttpListenOptions,
  listenStreams?: ListenStreams,
  progress?: ProgressRelay,
): Promise<Listener> {
  const { authTokens, readiness, passHeaders, maxClientSessions, maxAddressClients, ...serve } = options;
  const sessions = new ClientSessions(maxClientSessions ?? DEFAULT_MAX_CLIENT_SESSIONS);
  const admission = serve.admission;
  const shares = admission && new ClientShares(admission, maxAddressClients ?? DEFAULT_MAX_ADDRESS_CLIENTS);
  const setup = (endpoint: Endpoint, info: HttpSetupInfo): void => {
    const client = sessions.current ?? 'unknown';
    if (info.sessionId !== undefined) sessions.add(endpoint, client, info.sessionId);
    // A share is a client, not a session: one client's ten sessions get one client's turn [rule 14].
    shares?.assign(endpoint, client, info.sessionId !== undefined);
    relay.attach(endpoint, hostLabel(info.sessionId));
  };
  const server = await serveHttp(setup, {
    maxSessions: 1_000,
    sessionIdleMs: 300_000,
    // A browser host's preflight must allow the headers the proxy passes on.
    ...(passHeaders ? { corsAllowHeaders: passHeaders.names } : {}),
    ...serve,
    ...(listenStreams ? { listenStreams } : {}),
    ...(progress ? { progressRelay: progress } : {}),
  });
  // The proxy's own routes go first: health needs no token, everything else on the MCP path may.
  const [mcp] = server.server.listeners('request') as Array<
    // node:http's handlers, not listenStreams of ours
    (req: IncomingMessage, res: ServerResponse) => void
  >;
  server.server.removeAllListeners('request');
  const guard = authTokens && authTokens.length > 0 ? bearerCheck(authTokens) : undefined;
  server.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (answerHealth(req, res, readiness)) return;
    if (guard && req.method !== 'OPTIONS' && !guard(req.headers.authorization)) {
      return void unauthorized(res);
    }
    const client = clientOf(req, guard !== undefined);
    if (guard) sessions.bind(req, client); // a token's sessions are its own
    if (mayOpenSession(req) && sessions.full(client)) return void sessions.refuse(res);
    const pass = (): void => sessions.serve(client, () => mcp?.(req, res));
    if (passHeaders) passHeaders.serve(req.headers, pass);
    else pass();
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
