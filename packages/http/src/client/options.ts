import type { Clock, ProgressRelay, Revision } from '@mcp-inflight/core';
import type { KeepStrings } from '@mcp-inflight/core/adapter';
import type { HttpClientWarning } from './param-headers.js';

/**
 * Options for an {@link HttpClient}.
 *
 * @example
 * ```ts
 * import { HttpClient, type HttpClientOptions } from '@mcp-inflight/http';
 * const options: HttpClientOptions = { url: 'http://127.0.0.1:3000/mcp', revision: '2025-11-25', idleMs: 10_000 };
 * const client = new HttpClient(options);
 * ```
 */
export interface HttpClientOptions {
  /** The server's MCP endpoint, e.g. `http://127.0.0.1:3000/mcp`. */
  url: string | URL;
  /**
   * A revision to speak, or `'auto'`: try 2026-07-28 first (`server/discover`) and fall back to
   * `initialize` as the server's answer directs [H46]. 2024-11-05 has no Streamable HTTP.
   * @default 'auto'
   */
  revision?: Revision | 'auto';
  /**
   * The fetch to use (a recording wrapper, a proxy-aware one). Without it, the client from
   * `@mcp-inflight/http` sends over `node:http` / `node:https` (their global keep-alive agents), which
   * costs a quarter to a seventh of Node's fetch's CPU per call, and over `globalThis.fetch` on Deno (whose
   * `node:http` re-sends a request destroyed on a reused socket); the one from `@mcp-inflight/http/fetch`
   * calls `globalThis.fetch`. @default node:http (`@mcp-inflight/http`, not on Deno), globalThis.fetch (`/fetch`)
   */
  fetch?: typeof fetch;
  /** Extra headers on every request (authorization, for instance). */
  headers?: Record<string, string>;
  /** Default idle limit per request (progress resets it). @default 60_000 */
  idleMs?: number;
  /** Default hard ceiling per request. @default 600_000 */
  ceilingMs?: number;
  /** Who we are. @default { name: 'mcp-inflight-http-client', version: '0.1.0' } */
  clientInfo?: {
    /** The implementation's name. */
    name: string;
    /** Its version. */
    version: string;
    [key: string]: unknown;
  };
  /** What we offer the server. @default {} */
  capabilities?: Record<string, unknown>;
  /**
   * Legacy resumes with `Last-Event-ID` in a row that bring no new event before a request whose stream
   * broke is given up (a server that polls [H17] brings one each time, and is followed to the end).
   * @default 2
   */
  resumeAttempts?: number;
  /**
   * The largest SSE event accepted, in characters of text (bytes, for ASCII JSON). A larger one fails its
   * request with `UPSTREAM_CLOSED` rather than being buffered; on the GET stream it is skipped.
   * @default 16 MiB
   */
  maxEventChars?: number;
  /**
   * For a relay's upstream leg: `keepStrings(65_536)` (`@mcp-inflight/core/adapter`) keeps long strings in
   * results as the JSON literals they arrived as; a JSON reply that long is read as bytes and never
   * decoded, so the literal goes on to the next peer as the bytes read. Without it, messages are
   * `JSON.parse`d.
   */
  keepStrings?: KeepStrings;
  /**
   * Receive what the server sends outside any call, with no further set-up. Legacy sessions: the GET
   * stream is kept open (reopened with `Last-Event-ID` after a drop) for server requests and notifications
   * that belong to no request (list changes, pings, `roots/list`) [H19]. 2026-07-28: a
   * `subscriptions/listen` stream is kept open for the list changes the client has handlers for
   * (`onNotification`) and the resources it subscribed to, reopened after a drop. `false` turns both off:
   * then a legacy server's request outside a call waits unanswered until its own limit. Each costs one
   * long-lived connection (a browser allows about six per origin on HTTP/1.1). @default true
   */
  listen?: boolean;
  /** Time for deadlines, resume pauses and the close() flush. @default systemClock */
  clock?: Clock;
  /** Share one relay (and its counters) among clients. @default a new relay on `clock` */
  progressRelay?: ProgressRelay;
  /**
   * Told what the client did on its own that the application should know of: a tool left out of a
   * 2026-07-28 `tools/list` result because its `x-mcp-header` annotations break a constraint (the spec
   * says to exclude it and log why). @default `console.warn` of the message
   */
  onWarning?: (warning: HttpClientWarning) => void;
}
