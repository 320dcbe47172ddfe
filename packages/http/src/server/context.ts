import type { Endpoint, Revision } from '@mcp-inflight/core';
import type { Admission, AdmissionStats, JsonRpcMessage, TimerQueue } from '@mcp-inflight/core/adapter';
import type { LiveTable } from '../shared/live-table.js';
import type { InboundRequest } from './exchange.js';
import type { ResolvedServerOptions } from './options.js';
import type { LiveStream } from './stream-options.js';

/**
 * What `setup` learns about the endpoint it configures.
 *
 * @example
 * ```ts
 * import { createHttpHandler, type HttpSetupInfo } from '@mcp-inflight/http';
 * createHttpHandler((endpoint, info: HttpSetupInfo) => {
 *   console.log(info.sessionId ? `legacy session ${info.sessionId.slice(0, 8)} (${info.revision})` : 'one 2026-07-28 request');
 * });
 * ```
 */
export interface HttpSetupInfo {
  /** 2026-07-28 for a stateless request; for a legacy session, the revision its `initialize` asked for. */
  revision: Revision;
  /** The legacy session's `Mcp-Session-Id`; absent for 2026-07-28. */
  sessionId?: string;
}

/**
 * Configures one fresh server {@link Endpoint}: register handlers on it. Called once per legacy session (at
 * `initialize`) and once per 2026-07-28 request, so ids and tokens of different clients never meet (rule 9).
 * Keep it cheap; state shared by all clients lives outside it.
 *
 * @example
 * ```ts
 * import { serveLifecycle } from '@mcp-inflight/core';
 * import type { HttpSetup } from '@mcp-inflight/http';
 * const setup: HttpSetup = (endpoint) => {
 *   serveLifecycle(endpoint, { serverInfo: { name: 'demo', version: '1.0.0' }, capabilities: { tools: {} } });
 *   endpoint.setRequestHandler('tools/list', () => ({ tools: [] }));
 * };
 * ```
 */
export type HttpSetup = (endpoint: Endpoint, info: HttpSetupInfo) => void | Promise<void>;

/**
 * Counters for one HTTP handler, with its admission's (`maxInFlight`, over every session and request).
 *
 * @example
 * ```ts
 * import { createHttpHandler } from '@mcp-inflight/http';
 * const handler = createHttpHandler(() => {});
 * const { disconnectCancels, legacyDisconnects, droppedResults } = handler.stats;
 * ```
 */
export interface HttpHandlerStats extends AdmissionStats {
  /** Legacy sessions alive. */
  sessions: number;
  /** 2026-07-28 requests in flight. */
  statelessInFlight: number;
  /** 2026-07-28 handlers aborted because their response stream closed (the era's cancel) [CN24]. */
  disconnectCancels: number;
  /** Legacy response streams that dropped before their response; the handler ran on [H13]. */
  legacyDisconnects: number;
  /** Legacy streams resumed with `Last-Event-ID` [H22]. */
  resumedStreams: number;
  /** Legacy results lost: their stream was gone and nobody resumed it within the window. */
  droppedResults: number;
  /** Messages with nowhere to go (unrelated on 2026-07-28, progress to a JSON-only client, after the end). */
  droppedMessages: number;
  /** Notifications accepted with 202 and ignored (2026-07-28 defines none over HTTP [H34]). */
  ignoredNotifications: number;
  /** SSE streams cut because their client stopped reading: a backlog over `sseBudgetBytes` for `sseStallMs`. */
  slowReaderEnds: number;
  /** Messages over `sseMaxMessageBytes`: responses replaced by an error, others dropped. */
  oversizeMessages: number;
  /** Legacy sessions ended by `sessionIdleMs` with no contact from their client. */
  expiredSessions: number;
  /** Bytes waiting for clients that are not reading: queued in live SSE responses, or held progress. */
  bufferedBytes: number;
  /** Bytes kept by live legacy streams for `Last-Event-ID` replay. */
  replayBytes: number;
  /** SSE and JSON replies still open. */
  openStreams: number;
}

/** Shared state of one handler. */
export interface ServeContext {
  readonly options: ResolvedServerOptions;
  readonly setup: HttpSetup;
  /** The counters; `sessions` and `statelessInFlight` are read from the live tables instead. */
  readonly stats: Omit<
    HttpHandlerStats,
    'sessions' | 'statelessInFlight' | 'bufferedBytes' | 'replayBytes' | 'openStreams' | keyof AdmissionStats
  >;
  /** 2026-07-28 endpoints in flight, for `close()` (a `LiveTable`: they come and go per request). */
  readonly stateless: LiveTable<Endpoint>;
  /** Every reply stream not yet ended, for the byte counts in stats. */
  readonly streams: LiveTable<LiveStream>;
  /**
   * The streams' keep-alive windows, on one runtime timer: a stream per request then arms and clears no
   * timer of its own (at 1 call in flight that was a Node timer per request).
   */
  readonly windows: TimerQueue;
  /** The one admission of this handler: its 2026-07-28 requests and legacy sessions alike. */
  readonly admission: Admission;
}

/** What the `Accept` header allows; a missing header or a wildcard allows both. */
export interface Accepts {
  json: boolean;
  sse: boolean;
}

export function acceptsOf(request: InboundRequest): Accepts {
  const header = request.headers.get('accept');
  if (!header) return BOTH;
  // A client sends the same header on every call: the last answer is kept, so a call splits nothing.
  if (header === lastAccept.header) return lastAccept.accepts;
  const types = header.split(',').map((part) => part.split(';')[0]!.trim().toLowerCase());
  const any = types.includes('*/*');
  const accepts: Accepts = Object.freeze({
    json: any || types.includes('application/json') || types.includes('application/*'),
    sse: any || types.includes('text/event-stream') || types.includes('text/*'),
  });
  lastAccept = { header, accepts };
  return accepts;
}

// Pure: a bundle of the client alone (the browser HttpClient) leaves this server constant out.
const BOTH: Accepts = /* @__PURE__ */ Object.freeze({ json: true, sse: true });
let lastAccept: { header: string | undefined; accepts: Accepts } = { header: undefined, accepts: BOTH };

/** The JSON-RPC error code of a response, if it is an error. */
export function errorCodeOf(message: JsonRpcMessage | JsonRpcMessage[]): number | undefined {
  if (Array.isArray(message)) return undefined;
  const error = message['error'] as { code?: unknown } | undefined;
  return typeof error?.code === 'number' ? error.code : undefined;
}
