import { JsonRpcErrorCode } from '@mcp-inflight/core';
import { errorResponse, type JsonRpcMessage } from '@mcp-inflight/core/adapter';

/**
 * What was wrong with a line the peer wrote.
 *
 * @example
 * ```ts
 * import type { Socket } from 'node:net';
 * import { type BadInputKind, connectStdio } from '@mcp-inflight/stdio';
 * declare const socket: Socket;
 * const seen: Record<BadInputKind, number> = {
 *   'parse-error': 0,
 *   'not-a-message': 0,
 *   'overlong-line': 0,
 *   'truncated-at-end': 0,
 * };
 * const onBadInput = (event: { kind: BadInputKind }) => void seen[event.kind]++;
 * connectStdio({ input: socket, output: socket, role: 'client', onBadInput });
 * ```
 */
export type BadInputKind = 'parse-error' | 'not-a-message' | 'overlong-line' | 'truncated-at-end';

/**
 * One piece of bad input, as reported to `onBadInput`.
 *
 * @example
 * ```ts
 * import { type BadInput, serveStdio } from '@mcp-inflight/stdio';
 * const server = serveStdio(() => {}, {
 *   // stdout carries only MCP messages, so report on stderr.
 *   onBadInput: (event: BadInput) =>
 *     console.error(`bad input (${event.kind}): ${event.detail}${event.answered ? ' (answered)' : ''}`),
 * });
 * ```
 */
export interface BadInput {
  /** What was wrong with the input. */
  readonly kind: BadInputKind;
  /** A readable account, e.g. "line of 2000000 bytes passed maxLineBytes (1048576)". */
  readonly detail: string;
  /** The size of the offending line (or the unfinished tail), in bytes, when known. */
  readonly bytes?: number;
  /** Whether an error response went back to the peer. */
  readonly answered: boolean;
}

/**
 * Whether a parsed line is something a JSON-RPC peer sent as a message: a batch array, or an object with
 * a `method` (a request or notification, however malformed) or a `result` or `error` (a response). What
 * is not (`null`, `42`, a JSON log record) a client reports as bad input and never answers.
 */
export function isMessageShaped(value: unknown): boolean {
  if (Array.isArray(value)) return true;
  if (typeof value !== 'object' || value === null) return false;
  return 'method' in value || 'result' in value || 'error' in value;
}

/** The -32700 a server sends for a line that is not JSON; the id is unreadable, so null [J6]. */
export function parseErrorResponse(lineBytes: number): JsonRpcMessage {
  return errorResponse(null, JsonRpcErrorCode.ParseError, 'Parse error: the line is not valid JSON', {
    lineBytes,
  });
}

/**
 * The error a server sends for a line over the limit. It was never parsed (that is the point of the
 * limit), so it is a parse error with an unreadable id, and `data` says why.
 */
export function overlongLineResponse(lineBytes: number, maxLineBytes: number): JsonRpcMessage {
  return errorResponse(
    null,
    JsonRpcErrorCode.ParseError,
    `Parse error: a line of ${lineBytes} bytes passed the limit of ${maxLineBytes} bytes and was skipped`,
    { lineBytes, maxLineBytes },
  );
}

/** The response for a result that cannot be written as JSON (a cycle, a BigInt): an internal error. */
export function unserializableResponse(id: unknown, error: unknown): JsonRpcMessage {
  const why = error instanceof Error ? error.message : String(error);
  const safeId = typeof id === 'string' || typeof id === 'number' ? id : null;
  return errorResponse(
    safeId,
    JsonRpcErrorCode.InternalError,
    `Internal error: the response could not be serialized (${why})`,
  );
}
