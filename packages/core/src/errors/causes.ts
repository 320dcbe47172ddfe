/**
 * Why a request stopped before its result. Causes are data: each maps to a local error code, an honest
 * wire `reason` for `notifications/cancelled`, and a JSON-RPC error for whoever waits on the call.
 * `UNSERIALIZABLE` is the one cause that is not a cancel: the request could not be written as JSON (too
 * deep, a cycle, a BigInt), so it never left and nothing is cancelled on the wire.
 *
 * @example
 * ```ts
 * import { type CancelCode, InflightError } from '@mcp-inflight/core';
 * function label(code: CancelCode): string {
 *   switch (code) {
 *     case 'IDLE_TIMEOUT':
 *     case 'CEILING':
 *       return 'timed out';
 *     case 'CANCELLED':
 *       return 'stopped';
 *     default:
 *       return 'connection lost'; // DISCONNECTED, UPSTREAM_CLOSED, UPSTREAM_UNAVAILABLE, SHUTDOWN, SESSION_EXPIRED
 *   }
 * }
 * declare const error: unknown;
 * if (error instanceof InflightError) console.log(label(error.code));
 * ```
 */
export type CancelCode =
  | 'CANCELLED'
  | 'IDLE_TIMEOUT'
  | 'CEILING'
  | 'DISCONNECTED'
  | 'UPSTREAM_CLOSED'
  | 'UPSTREAM_UNAVAILABLE'
  | 'SHUTDOWN'
  | 'SESSION_EXPIRED'
  | 'UNSERIALIZABLE';

/**
 * Every cancellation cause, in a stable order.
 */
export const CANCEL_CODES: readonly CancelCode[] = [
  'CANCELLED',
  'IDLE_TIMEOUT',
  'CEILING',
  'DISCONNECTED',
  'UPSTREAM_CLOSED',
  'UPSTREAM_UNAVAILABLE',
  'SHUTDOWN',
  'SESSION_EXPIRED',
  'UNSERIALIZABLE',
];

/**
 * JSON-RPC error codes used for callers of a call that ended early. The spec assigns none to timeouts
 * (2026-07-28 "not currently assigned codes" [TO12]), so these sit in the implementation-defined range:
 * -32001 for both timeouts (what existing hosts already read as "timed out"), -32800 for a caller's own
 * cancel (never the timeout code: a user's stop is not a timeout), -32000 for a connection that went away
 * (and for an HTTP session that expired with no contact from its client, which is a lost peer too).
 * `data.cause` always carries the {@link CancelCode}, so callers can tell every cause apart. A request that
 * could not be serialized (too deep, a cycle, a BigInt; never sent) is ours, -32019: it is neither a
 * lost connection nor a cancel, and a proxy answers its host with the same code.
 */
export const JSONRPC_CODE_BY_CAUSE: Readonly<Record<CancelCode, number>> = {
  CANCELLED: -32800,
  IDLE_TIMEOUT: -32001,
  CEILING: -32001,
  DISCONNECTED: -32000,
  UPSTREAM_CLOSED: -32000,
  UPSTREAM_UNAVAILABLE: -32000,
  SHUTDOWN: -32000,
  SESSION_EXPIRED: -32000,
  UNSERIALIZABLE: -32019,
};

/**
 * Standard JSON-RPC error codes the spec names for bad input.
 *
 * @example
 * ```ts
 * import { JsonRpcError, JsonRpcErrorCode } from '@mcp-inflight/core';
 * declare const error: unknown;
 * if (error instanceof JsonRpcError && error.code === JsonRpcErrorCode.UnsupportedProtocolVersion) {
 *   // the server does not serve 2026-07-28: fall back to initialize
 * }
 * ```
 */
export const JsonRpcErrorCode = {
  /** Invalid JSON was received. */
  ParseError: -32700,
  /** The JSON is not a valid JSON-RPC request. */
  InvalidRequest: -32600,
  /** The method does not exist or is not served. */
  MethodNotFound: -32601,
  /** The method's params are invalid. */
  InvalidParams: -32602,
  /** An internal error of the peer. */
  InternalError: -32603,
  /** 2026-07-28: `MCP-Protocol-Version` header disagrees with `_meta` [H40]. */
  HeaderMismatch: -32020,
  /** 2026-07-28: the request needs a client capability the client did not declare (the spec's code). */
  MissingClientCapability: -32021,
  /** 2026-07-28: the requested revision is not served [M19]. */
  UnsupportedProtocolVersion: -32022,
  /**
   * Ours (-32003..-32019): overloaded, retry later. A stdio connection's request queue is full, or an HTTP
   * server has its most sessions or connections; the same code on every transport and through a proxy.
   */
  Overloaded: -32010,
  /**
   * Ours: a multi round-trip request (`@mcp-inflight/client/input`) still asked for input after `maxRounds`
   * requests; `data.rounds` and `data.lastResult` say how far it got.
   */
  InputRoundsExceeded: -32018,
} as const;
