import { type Clock, type Endpoint, ProgressRelay, systemClock } from '@mcp-inflight/core';
import { Admission } from '@mcp-inflight/core/adapter';
import { setFields } from '../shared/set-fields.js';

/**
 * Host names that mean "this machine": the default `allowedHosts`, and the hosts of the default allowed
 * origins.
 *
 * @example
 * ```ts
 * import { createHttpHandler, LOOPBACK_HOSTS } from '@mcp-inflight/http';
 * createHttpHandler(() => {}, { allowedHosts: [...LOOPBACK_HOSTS, 'mcp.internal'] });
 * ```
 */
export const LOOPBACK_HOSTS: readonly string[] = ['localhost', '127.0.0.1', '[::1]', '::1'];

/**
 * Options for {@link createHttpHandler} (and {@link serveHttp}). Every limit has a default that is safe on
 * a developer machine: loopback origins only, 4 MiB bodies, keep-alives every 15 s.
 *
 * @example
 * ```ts
 * import { createHttpHandler, type HttpServerOptions } from '@mcp-inflight/http';
 * const options: HttpServerOptions = { allowedOrigins: ['https://app.example'], allowedHosts: '*', handlerCeilingMs: 120_000 };
 * createHttpHandler(() => {}, options);
 * ```
 */
export interface HttpServerOptions {
  /**
   * Browser origins allowed to call. A request with an `Origin` outside this set gets `403` [H47]; a request
   * without `Origin` (not a browser) passes. `'*'` allows every origin.
   * @default loopback origins (`http(s)://localhost|127.0.0.1|[::1]` on any port)
   */
  allowedOrigins?: readonly string[] | '*' | ((origin: string) => boolean);
  /**
   * Host names (without port) the `Host` header may name, against DNS rebinding; `'*'` turns the check off.
   * @default loopback names; `serveHttp` on a non-loopback host defaults to `'*'`
   */
  allowedHosts?: readonly string[] | '*';
  /** Larger POST bodies get `413`. @default 4_194_304 (4 MiB) */
  maxBodyBytes?: number;
  /** An SSE comment (`: keep-alive`) after this long with nothing written; 0 turns it off. @default 15_000 */
  keepAliveMs?: number;
  /** The SSE `retry` a 2025-11-25 priming event advertises [H16 H18]. @default 1_000 */
  retryMs?: number;
  /**
   * How long a legacy request's result waits for a `Last-Event-ID` resume once it is done and its stream
   * is gone; then it is dropped. @default 60_000
   */
  resumeWindowMs?: number;
  /** Events a legacy stream keeps for replay. @default 256 */
  maxBufferedEvents?: number;
  /**
   * Bytes a legacy stream keeps for replay, as well as `maxBufferedEvents`: the oldest events go first,
   * the newest (the result, once written) always stays. @default 4_194_304 (4 MiB)
   */
  maxBufferedBytes?: number;
  /**
   * Per SSE response: bytes that may wait for a client that is not reading. Past 64 KiB its progress is
   * held back to the latest value per token instead of queued; anything else is queued, whatever its
   * size. A backlog over the budget that does not shrink for `sseStallMs` means the client stopped
   * reading, and ends the stream: a 2026-07-28 request is cancelled (`DISCONNECTED`), a legacy stream's
   * connection is cut and its result waits for a `Last-Event-ID` resume. A client that reads is never
   * cut, however large one message (rule 13). @default 4_194_304 (4 MiB)
   */
  sseBudgetBytes?: number;
  /**
   * How long an SSE backlog over `sseBudgetBytes` may go without shrinking before its client counts as
   * stalled and is cut. @default 10_000
   */
  sseStallMs?: number;
  /**
   * The largest SSE or JSON message the server writes, in bytes. A response over it is replaced by a
   * `-32603` error for its request (`data: { responseBytes, maxMessageBytes }`); progress or any other
   * message over it is dropped. Both count in `stats.oversizeMessages`. @default 16_777_216 (16 MiB)
   */
  sseMaxMessageBytes?: number;
  /**
   * A legacy session ends after this long without contact from its client (a request or notification, an
   * open GET stream, or a reply stream the client is draining), even with work in flight: that work is
   * cancelled with `SESSION_EXPIRED`. A long call whose stream is being read never expires. @default 300_000
   */
  sessionIdleMs?: number;
  /** Told when a legacy session expires (for logs): its id, how long it was quiet, calls it cancelled. */
  onSessionExpired?: (expired: SessionExpiry) => void;
  /** More concurrent legacy sessions than this get `503` at initialize. @default 10_000 */
  maxSessions?: number;
  /** Serve legacy revisions (sessions, `initialize`). @default true */
  legacy?: boolean;
  /** Serve 2026-07-28 (stateless, per-request). @default true */
  modern?: boolean;
  /** Idle limit for each handler (reset by its own progress). @default Infinity */
  handlerIdleMs?: number;
  /** Hard ceiling for each handler. @default Infinity */
  handlerCeilingMs?: number;
  /** Idle limit for requests the server sends (legacy only). @default 60_000 */
  idleMs?: number;
  /** Hard ceiling for requests the server sends (legacy only). @default 600_000 */
  ceilingMs?: number;
  /**
   * The most elements a 2025-03-26 batch may have: a larger one gets `400` with one `-32600` (`id: null`)
   * naming the limit. @default 1_000
   */
  maxBatchElements?: number;
  /**
   * Handlers running at once over the whole server: its 2026-07-28 requests and every legacy session
   * together; more wait their turn in arrival order (a cancel or a 2026-07-28 disconnect takes a waiting
   * one out at once). Ignored when `admission` is given. @default 1_000 (`DEFAULT_MAX_IN_FLIGHT`)
   */
  maxInFlight?: number;
  /**
   * Bound on requests waiting for a slot: the bytes of their bodies plus 64 each (a batch's elements
   * share its body). A request that does not fit is answered `-32010` "Overloaded: retry later" at once.
   * Ignored when `admission` is given. @default 8 MiB (`DEFAULT_MAX_QUEUED_BYTES`)
   */
  maxQueuedBytes?: number;
  /**
   * The admission every endpoint of this server asks before a handler runs (core's `Admission`), to
   * share one between servers or to put endpoints in shares. @default one of its own, from `maxInFlight`
   * and `maxQueuedBytes`
   */
  admission?: Admission;
  /** Time source for every timer here. @default systemClock */
  clock?: Clock;
  /** One relay shared by every endpoint (sessions and stateless requests). @default a new one */
  progressRelay?: ProgressRelay;
  /** Reports errors that have no caller to go to (a throwing `setup`). */
  onError?: (error: unknown) => void;
  /**
   * The server's listen streams (`ListenStreams` from `@mcp-inflight/server/listen`): served on every endpoint
   * after `setup`, and ended gracefully (the listen response, then `notifications/cancelled`) when the
   * handler closes, before anything else is shut down. Without it, a listen stream still open at close is
   * answered with a SHUTDOWN error.
   */
  listenStreams?: ListenStreamsLike;
  /**
   * Request headers a browser may send besides MCP's own (`Content-Type`, `Authorization`,
   * `MCP-Session-Id`, `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, `Last-Event-ID`, and every
   * `Mcp-Param-*` it asks for): a CORS preflight allows these too, e.g. the headers a proxy passes on.
   * @default []
   */
  corsAllowHeaders?: readonly string[];
  /**
   * How refusals name the options they cite, for a command line that sets them by flags of its own:
   * `{ allowedOrigins: '--allowed-origins' }` makes a refused origin's `403` say "list it in
   * --allowed-origins". `maxConnections` and `maxIdleConnectionsPerAddress` name `serveHttp`'s limits in
   * their `503`. @default each option's own name ("the server's allowedOrigins option")
   */
  optionNames?: {
    /** What a refused origin's `403` names. @default "the server's allowedOrigins option" */
    allowedOrigins?: string;
    /** What a refused `Host`'s `403` names. @default "the server's allowedHosts option" */
    allowedHosts?: string;
    /** What a `503` for too many connections names (`serveHttp`). @default 'maxConnections' */
    maxConnections?: string;
    /** What a `503` for too many idle connections from one address names. @default 'maxIdleConnectionsPerAddress' */
    maxIdleConnectionsPerAddress?: string;
  };
}

/**
 * What the HTTP handler needs of a listen hub: `ListenStreams` from `@mcp-inflight/server/listen` is one.
 *
 * @example
 * ```ts
 * import { ListenStreams } from '@mcp-inflight/server/listen';
 * import type { ListenStreamsLike } from '@mcp-inflight/http';
 * const listenStreams: ListenStreamsLike = new ListenStreams();
 * ```
 */
export interface ListenStreamsLike {
  /** Serves `subscriptions/listen` on one endpoint. */
  serve(endpoint: Endpoint): void;
  /** Ends the streams (of one endpoint, or all) on the server's initiative. */
  end(endpoint?: Endpoint, why?: string): number;
}

/**
 * What {@link HttpServerOptions.onSessionExpired} is told.
 *
 * @example
 * ```ts
 * import { createHttpHandler, type SessionExpiry } from '@mcp-inflight/http';
 * const log = (e: SessionExpiry) => console.error(`session ${e.sessionId.slice(0, 8)} expired; ${e.inFlight} call(s) cancelled`);
 * createHttpHandler(() => {}, { sessionIdleMs: 60_000, onSessionExpired: log });
 * ```
 */
export interface SessionExpiry {
  /** The expired session's `MCP-Session-Id`. */
  sessionId: string;
  /** How long the client had been out of contact. */
  idleMs: number;
  /** Requests of the session still running, now cancelled with `SESSION_EXPIRED`. */
  inFlight: number;
}

/** {@link HttpServerOptions} with every default applied. */
export interface ResolvedServerOptions {
  isAllowedOrigin: (origin: string) => boolean;
  isAllowedHost: (host: string) => boolean;
  corsAllowHeaders: readonly string[];
  /** What a `403` tells the client to change: the option, or the flag that sets it. */
  refusalHints: { origin: string; host: string };
  maxBodyBytes: number;
  keepAliveMs: number;
  retryMs: number;
  resumeWindowMs: number;
  maxBufferedEvents: number;
  maxBufferedBytes: number;
  sseBudgetBytes: number;
  sseStallMs: number;
  sseMaxMessageBytes: number;
  sessionIdleMs: number;
  onSessionExpired: (expired: SessionExpiry) => void;
  maxSessions: number;
  legacy: boolean;
  modern: boolean;
  clock: Clock;
  progressRelay: ProgressRelay;
  endpoint: {
    handlerIdleMs?: number;
    handlerCeilingMs?: number;
    idleMs?: number;
    ceilingMs?: number;
    maxBatchElements?: number;
  };
  onError: (error: unknown) => void;
  listenStreams: ListenStreamsLike | undefined;
  admission: Admission;
}

export function resolveServerOptions(options: HttpServerOptions = {}): ResolvedServerOptions {
  checkNumbers(options);
  const clock = options.clock ?? options.progressRelay?.clock ?? systemClock;
  return {
    isAllowedOrigin: originCheck(options.allowedOrigins),
    isAllowedHost: hostCheck(options.allowedHosts ?? LOOPBACK_HOSTS),
    corsAllowHeaders: (options.corsAllowHeaders ?? []).map((name) => name.toLowerCase()),
    refusalHints: {
      origin: options.optionNames?.allowedOrigins ?? "the server's allowedOrigins option",
      host: options.optionNames?.allowedHosts ?? "the server's allowedHosts option",
    },
    maxBodyBytes: options.maxBodyBytes ?? 4 * 1024 * 1024,
    keepAliveMs: options.keepAliveMs ?? 15_000,
    retryMs: options.retryMs ?? 1_000,
    resumeWindowMs: options.resumeWindowMs ?? 60_000,
    maxBufferedEvents: options.maxBufferedEvents ?? 256,
    maxBufferedBytes: options.maxBufferedBytes ?? 4 * 1024 * 1024,
    sseBudgetBytes: options.sseBudgetBytes ?? 4 * 1024 * 1024,
    sseStallMs: options.sseStallMs ?? 10_000,
    sseMaxMessageBytes: options.sseMaxMessageBytes ?? 16 * 1024 * 1024,
    sessionIdleMs: options.sessionIdleMs ?? 300_000,
    onSessionExpired: options.onSessionExpired ?? (() => {}),
    maxSessions: options.maxSessions ?? 10_000,
    legacy: options.legacy ?? true,
    modern: options.modern ?? true,
    clock,
    progressRelay: options.progressRelay ?? new ProgressRelay({ clock }),
    endpoint: setFields({
      handlerIdleMs: options.handlerIdleMs,
      handlerCeilingMs: options.handlerCeilingMs,
      idleMs: options.idleMs,
      ceilingMs: options.ceilingMs,
      maxBatchElements: options.maxBatchElements,
    }),
    onError: options.onError ?? (() => {}),
    listenStreams: options.listenStreams,
    admission:
      options.admission ??
      new Admission({
        ...(options.maxInFlight === undefined ? {} : { maxInFlight: options.maxInFlight }),
        ...(options.maxQueuedBytes === undefined ? {} : { maxQueuedBytes: options.maxQueuedBytes }),
        clock,
      }),
  };
}

const NUMBER_OPTIONS = [
  'maxBodyBytes',
  'keepAliveMs',
  'retryMs',
  'resumeWindowMs',
  'maxBufferedEvents',
  'maxBufferedBytes',
  'sseBudgetBytes',
  'sseStallMs',
  'sseMaxMessageBytes',
  'sessionIdleMs',
  'maxSessions',
  'handlerIdleMs',
  'handlerCeilingMs',
  'idleMs',
  'ceilingMs',
  'maxBatchElements',
] as const;

// A limit given as a string ('4mb') or NaN would compare false everywhere and turn the limit off unseen.
function checkNumbers(options: HttpServerOptions): void {
  for (const name of NUMBER_OPTIONS) {
    const value: unknown = options[name];
    if (value !== undefined && !(typeof value === 'number' && value >= 0)) {
      throw new RangeError(
        `HTTP server option ${name} must be a number >= 0 (Infinity for no limit), got ${typeof value === 'string' ? JSON.stringify(value) : String(value)}`,
      );
    }
  }
}

function originCheck(allowed: HttpServerOptions['allowedOrigins']): (origin: string) => boolean {
  if (allowed === '*') return () => true;
  if (typeof allowed === 'function') return allowed;
  if (allowed !== undefined) checkList('allowedOrigins', allowed, "origins such as ['https://app.example']");
  if (allowed) {
    // An Origin header is scheme://host[:port], never with a path: an entry with one would never match.
    const withPath = allowed.find((o) => /^[a-z][a-z0-9+.-]*:\/\/[^/]+\/./i.test(o) || o.endsWith('/'));
    if (withPath !== undefined) {
      throw new RangeError(
        `allowedOrigins: ${JSON.stringify(withPath)} has a path; an origin is scheme://host[:port], e.g. 'https://app.example'`,
      );
    }
    const set = new Set(allowed.map((o) => o.toLowerCase()));
    return (origin) => set.has(origin.toLowerCase());
  }
  return (origin) => {
    try {
      const url = new URL(origin);
      return (url.protocol === 'http:' || url.protocol === 'https:') && LOOPBACK_HOSTS.includes(url.hostname);
    } catch {
      return false;
    }
  };
}

function hostCheck(allowed: readonly string[] | '*'): (host: string) => boolean {
  if (allowed === '*') return () => true;
  checkList('allowedHosts', allowed, "host names such as ['localhost', 'mcp.internal']");
  // The check compares names with the Host header's port cut off: an entry with a port would never match.
  const withPort = allowed.find((h) => /^[^:[\]]+:\d*$|^\[.*\]:|\//.test(h));
  if (withPort !== undefined) {
    throw new RangeError(
      `allowedHosts: ${JSON.stringify(withPort)} is not a bare host name; list names without scheme or port, e.g. 'mcp.internal'`,
    );
  }
  const set = new Set(allowed.map((h) => h.toLowerCase()));
  // A client sends the same Host on every request: the last answer is kept, so a request parses nothing.
  let last: string | undefined;
  let lastAllowed = false;
  return (host) => {
    if (host !== last) {
      lastAllowed = set.has(hostnameOf(host).toLowerCase());
      last = host;
    }
    return lastAllowed;
  };
}

function checkList(name: string, allowed: unknown, example: string): void {
  if (Array.isArray(allowed) && allowed.every((entry) => typeof entry === 'string')) return;
  const got =
    typeof allowed === 'string'
      ? JSON.stringify(allowed)
      : Array.isArray(allowed)
        ? 'an array with a non-string'
        : typeof allowed;
  throw new TypeError(`${name} must be an array of ${example}, or '*', got ${got}`);
}

/** `example.com:8080` → `example.com`; `[::1]:80` → `[::1]`. */
function hostnameOf(host: string): string {
  if (host.startsWith('[')) {
    const end = host.indexOf(']');
    return end < 0 ? host : host.slice(0, end + 1);
  }
  const colon = host.indexOf(':');
  return colon < 0 ? host : host.slice(0, colon);
}
