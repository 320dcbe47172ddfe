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

/** A top-level `"id"` with its value, at the start of a line or right before its closing brace. */
const HEAD_ID =
  /^\s*\{(?:\s*"(?:jsonrpc|id)"\s*:\s*(?:"2\.0"|-?\d+|"(?:[^"\\]|\\.)*")\s*,)*?\s*"(result|error)"/;
const ID_VALUE = /"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")/;
const TOP_LEVEL_METHOD = /^\s*\{[^{[]*"method"\s*:/;
const TAIL_ID = /"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")\s*(?:,\s*"jsonrpc"\s*:\s*"2\.0"\s*)?\}\s*\r?$/;

/**
 * The id of the response an overlong line carried, read from its edges, or undefined. Only a line that
 * shows itself a response counts: `result` or `error` among its first keys with the id before it, or the
 * id as its last key (`{"result":…,"jsonrpc":"2.0","id":7}`) and no `method` among its first keys. An id
 * nested inside the result never matches: it is followed by more than the one closing brace.
 */
export function overlongResponseId(head: string, tail: string): string | number | undefined {
  const lead = HEAD_ID.exec(head);
  const fromHead = lead ? ID_VALUE.exec(lead[0]) : null;
  // Without `result` or `error` up front, the tail may name the id, unless the line is a request.
  const found = fromHead ?? (TOP_LEVEL_METHOD.test(head) ? null : TAIL_ID.exec(tail));
  if (!found) return undefined;
  return found[1]!.startsWith('"') ? (JSON.parse(found[1]!) as string) : Number(found[1]);
}

/**
 * The error a caller gets for its request whose response was too long to read: the line was skipped, so
 * without this the call would wait for its deadline. -32603, naming the size and the limit to raise.
 */
export function overlongResponse(
  id: string | number,
  lineBytes: number,
  maxLineBytes: number,
): JsonRpcMessage {
  return errorResponse(
    id,
    JsonRpcErrorCode.InternalError,
    `the response was a line of ${lineBytes} bytes, over the limit of ${maxLineBytes} bytes (maxLineBytes), and was skipped: ask for less, or raise maxLineBytes`,
    { lineBytes, maxLineBytes },
  );
}
