import { JsonRpcErrorCode } from '@mcp-inflight/core';

/**
 * Every JSON-RPC error code the HTTP transport itself answers with, server and client, in one table (the
 * same table is in the README). Where the spec names a code for the situation, that code; otherwise one of
 * ours from -32003..-32019 (shared with stdio where the meaning is shared: -32010 is "overloaded" on both).
 * -32000 and -32001 carry core's causes (`data.cause`), -32002 is the old
 * "resource not found" that 2026-07-28 forbids emitting, and -32020 and up belong to the spec.
 *
 * @example
 * ```ts
 * import { JsonRpcError } from '@mcp-inflight/core';
 * import { HTTP_ERROR_CODES } from '@mcp-inflight/http';
 * declare const error: unknown;
 * if (error instanceof JsonRpcError && error.code === HTTP_ERROR_CODES.SessionNotFound) {
 *   // the server ended our legacy session: initialize again
 * }
 * ```
 */
export const HTTP_ERROR_CODES = {
  /**
   * Core's codes, the spec's and our shared ones: 400 -32700 (not JSON), 400 -32600 (not a JSON-RPC message,
   * a batch where none is allowed, an id already in flight), 404 -32601 on 2026-07-28 (no handler), 400
   * -32602 (a required `_meta` field is missing), 500 -32603 (`setup` threw), 400 -32020 on 2026-07-28 (a
   * mirrored header differs from the body), 400 -32022 (the revision is not served; `data.supported` lists
   * ours), 503 -32010 (overloaded: `maxSessions` legacy sessions are alive or `maxConnections` connections
   * are open; stdio answers a full request queue with the same code).
   */
  ...JsonRpcErrorCode,
  /**
   * Client side: a non-2xx answer with no JSON-RPC error; `data.httpStatus` says which. (A broken exchange
   * is an `InflightError` `UPSTREAM_CLOSED` instead.) The -32000 family: a lost exchange.
   */
  TransportFailure: -32000,
  /** 503: the server is closing. */
  ServerClosing: -32003,
  /** 403: `Host` or `Origin` is not allowed (DNS rebinding, browsers). */
  Forbidden: -32004,
  /** 404: not the MCP endpoint's path. */
  NotFound: -32005,
  /** 405: the method (or a GET/DELETE with no session, or on 2026-07-28) is not served here. */
  MethodNotAllowed: -32006,
  /** 406: `Accept` allows neither JSON nor SSE (or a GET without SSE). */
  NotAcceptable: -32007,
  /** 413: the body is over `maxBodyBytes`. */
  PayloadTooLarge: -32008,
  /** 415: the body is not `application/json`. */
  UnsupportedMediaType: -32009,
  /** 400: a legacy request with no `Mcp-Session-Id`. */
  SessionRequired: -32011,
  /** 404: the legacy session ended (DELETE, expiry, shutdown) or never existed; initialize again. */
  SessionNotFound: -32012,
  /** 409: the session already has a live GET stream. */
  StreamConflict: -32013,
  /** 400: `Last-Event-ID` names nothing that can be resumed (unknown, delivered or expired). */
  NothingToResume: -32014,
  /** 408: the request's headers or body did not arrive within `headersTimeoutMs` / `requestTimeoutMs`. */
  RequestTimeout: -32015,
  /** 400: the bytes are not an HTTP/1.1 request. */
  BadHttpRequest: -32016,
  /** 431: the request's headers are larger than the server reads. */
  HeadersTooLarge: -32017,
} as const;
