import type { RequestId } from '@mcp-inflight/core';
import { errorResponse } from '@mcp-inflight/core/adapter';
import { HTTP_ERROR_CODES } from '../shared/error-codes.js';
import { Reply } from './exchange.js';

/** A JSON body with a status. */
export function jsonReply(status: number, body: unknown, headers: Record<string, string> = {}): Reply {
  return new Reply(status, { 'content-type': 'application/json', ...headers }, JSON.stringify(body));
}

/** An HTTP error whose body is a JSON-RPC error response (`id` null when it could not be read [J6]). */
export function errorReply(
  status: number,
  code: number,
  message: string,
  options: { id?: RequestId | null | undefined; data?: unknown; headers?: Record<string, string> } = {},
): Reply {
  return jsonReply(status, errorResponse(options.id ?? null, code, message, options.data), options.headers);
}

/** `202 Accepted` with no body: the answer to notifications and responses [H7 H8]. */
export function accepted(headers: Record<string, string> = {}): Reply {
  return new Reply(202, headers);
}

/** `405` with the methods this endpoint does allow. */
export function methodNotAllowed(allow: string, headers: Record<string, string> = {}): Reply {
  return errorReply(405, HTTP_ERROR_CODES.MethodNotAllowed, 'Method not allowed', {
    headers: { allow, ...headers },
  });
}
