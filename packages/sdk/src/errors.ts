import { type CancelCode, InflightError } from '@mcp-inflight/core';
import type { JsonRpcErrorObject } from '@mcp-inflight/core/adapter';
import { CANCEL_CODES, inflightErrorFromJsonRpc } from '@mcp-inflight/core/adapter';

const CODES = new Set<string>(CANCEL_CODES);
// v1 McpError prefixes its message with "MCP error <code>: "; the cause's own text is what we keep.
const MCP_ERROR_PREFIX = /^MCP error -?\d+: /;

/** A v1 McpError's message without its "MCP error <code>: " prefix (an SDK adds it again when it writes). */
export function withoutMcpPrefix(message: string): string {
  return message.replace(MCP_ERROR_PREFIX, '');
}
const WIRE_REASON = /^([A-Z_]+): ([\s\S]*)$/;

/**
 * Reads the `reason` of an inbound `notifications/cancelled` (what the SDK aborts a handler's signal with)
 * back into an {@link InflightError}. A reason written by mcp-inflight (`"CEILING: hard ceiling of…"`,
 * {@link InflightError.wireReason}) keeps its cause, so a proxy passes "the host's ceiling fired" on
 * upstream instead of a bare "cancelled". A string reason is one the peer sent, so its error has `origin:
 * 'remote'`. A transport close is DISCONNECTED; anything else is the caller's cancel, with their text
 * kept (`origin: 'local'`: the SDK aborted without a reason from the peer).
 *
 * @example
 * ```ts
 * import { inflightErrorFromAbort } from '@mcp-inflight/sdk';
 * inflightErrorFromAbort('CEILING: hard ceiling of 500 ms reached (0 updates before)').code; // 'CEILING'
 * inflightErrorFromAbort('user pressed stop').code;                                        // 'CANCELLED'
 * inflightErrorFromAbort('user pressed stop').origin;                                      // 'remote'
 * ```
 */
export function inflightErrorFromAbort(reason: unknown): InflightError {
  // A string is the `reason` the peer put in its notifications/cancelled: the cause is theirs.
  if (typeof reason === 'string') {
    const match = WIRE_REASON.exec(reason);
    const remote = { origin: 'remote', cause: reason } as const;
    if (match && CODES.has(match[1]!)) return new InflightError(match[1] as CancelCode, match[2], {}, remote);
    const { code, message, details } = InflightError.from(reason);
    return new InflightError(code, message, details, remote);
  }
  // SDK v2 aborts every in-flight handler with SdkError CONNECTION_CLOSED when its transport closes.
  if (isConnectionClosed(reason)) return new InflightError('DISCONNECTED', undefined, {}, { cause: reason });
  return InflightError.from(reason);
}

/**
 * Whether an SDK error says our own connection closed: v1's `McpError(-32000, "Connection closed")` or v2's
 * `SdkError` with code `CONNECTION_CLOSED`. A peer's -32000 error with other text is not.
 *
 * @example
 * ```ts
 * import { isConnectionClosed } from '@mcp-inflight/sdk';
 * isConnectionClosed({ code: 'CONNECTION_CLOSED', message: 'Connection closed' });      // true (v2)
 * isConnectionClosed({ code: -32000, message: 'MCP error -32000: Connection closed' }); // true (v1)
 * isConnectionClosed({ code: -32000, message: 'the upstream connection closed' });       // false
 * ```
 */
export function isConnectionClosed(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (code === 'CONNECTION_CLOSED') return true;
  // v1's _onclose rejects with exactly this; a peer's -32000 error with other text is not our link closing.
  return code === -32000 && typeof message === 'string' && withoutMcpPrefix(message) === 'Connection closed';
}

/**
 * Turns what an SDK call rejected with into something a caller can tell apart: a closed connection becomes
 * `closedAs` (DISCONNECTED for a host's own link, UPSTREAM_CLOSED for a proxy's upstream), and a JSON-RPC
 * error that carries one of our causes in `data.cause` (sent by an mcp-inflight proxy or server) becomes that
 * InflightError. Any other error (a tool error, a protocol error) is returned unchanged.
 *
 * @example
 * ```ts
 * import { inflightErrorFromSdk } from '@mcp-inflight/sdk';
 * const fromProxy = { code: -32001, message: 'MCP error -32001: idle limit…', data: { cause: 'IDLE_TIMEOUT' } };
 * (inflightErrorFromSdk(fromProxy, 'DISCONNECTED') as { code: string }).code; // 'IDLE_TIMEOUT'
 * ```
 */
export function inflightErrorFromSdk(error: unknown, closedAs: 'DISCONNECTED' | 'UPSTREAM_CLOSED'): unknown {
  if (error instanceof InflightError) return error;
  if (typeof error === 'object' && error !== null) {
    // A cause the peer named comes first: a proxy's UPSTREAM_CLOSED is not our own link closing.
    const { code, message, data } = error as { code?: unknown; message?: unknown; data?: unknown };
    if (typeof code === 'number' && typeof message === 'string') {
      const mapped = inflightErrorFromJsonRpc({ code, message: withoutMcpPrefix(message), data });
      if (mapped) return mapped;
    }
  }
  if (isConnectionClosed(error)) return new InflightError(closedAs, undefined, {}, { cause: error });
  return error;
}

/**
 * An Error both SDK servers serialize verbatim into a JSON-RPC error response (they read `code`, `message`
 * and `data` off whatever a handler throws). Thrown by {@link relayRequest} so the host sees
 * `{code: -32001, data: {cause: 'CEILING', …}}` rather than a generic -32603.
 *
 * @example
 * ```ts
 * import { InflightError } from '@mcp-inflight/core';
 * import { WireError } from '@mcp-inflight/sdk';
 * const error = WireError.of(InflightError.ceiling(500));
 * error.code;        // -32001
 * error.data.cause;  // 'CEILING'
 * ```
 */
export class WireError extends Error {
  /** Always `'WireError'`. */
  override readonly name = 'WireError';
  /** The JSON-RPC error code. */
  readonly code: number;
  /** The error's `data`; ours carries `cause` (the `CancelCode`) and the details. */
  readonly data: {
    /** Why the call ended early, when an `InflightError` is behind it. */
    cause?: CancelCode;
    [key: string]: unknown;
  };

  constructor(error: JsonRpcErrorObject, options?: { cause?: unknown }) {
    super(error.message, options);
    this.code = error.code;
    this.data = (error.data ?? {}) as WireError['data'];
  }

  /** The wire form of an InflightError, keeping it as the `cause`. */
  static of(error: InflightError): WireError {
    return new WireError(error.toJsonRpc(), { cause: error });
  }
}
