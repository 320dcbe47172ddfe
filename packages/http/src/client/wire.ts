import { JsonRpcErrorCode, type Revision } from '@mcp-inflight/core';
import {
  type JsonRpcErrorObject,
  type JsonRpcMessage,
  MODERN_REVISION,
  metaVersionOf,
} from '@mcp-inflight/core/adapter';
import { HTTP_ERROR_CODES } from '../shared/error-codes.js';
import { encodeHeaderValue, NAME_FIELD_BY_METHOD } from '../shared/header-value.js';
import type { ParamHeaderTable } from './param-headers.js';
import type { WireResponse } from './requester.js';

/**
 * The JSON-RPC code of a call answered with an HTTP error that carries no JSON-RPC body; `data.httpStatus`
 * says which. (A broken exchange, a network failure or a stream that could not be resumed, fails its call
 * with an `InflightError` `UPSTREAM_CLOSED` instead.)
 * The spec names no code for these: it is `HTTP_ERROR_CODES.TransportFailure`, a lost exchange.
 *
 * @example
 * ```ts
 * import { JsonRpcError } from '@mcp-inflight/core';
 * import { HttpClient, TRANSPORT_FAILURE_CODE } from '@mcp-inflight/http';
 * const client = new HttpClient({ url: 'http://127.0.0.1:3000/mcp' });
 * try {
 *   await client.request('tools/list');
 * } catch (error) {
 *   if (error instanceof JsonRpcError && error.code === TRANSPORT_FAILURE_CODE) console.log('transport failed', error.data);
 * }
 * ```
 */
export const TRANSPORT_FAILURE_CODE: -32000 = HTTP_ERROR_CODES.TransportFailure;

/**
 * The headers of one client request: a 2026-07-28 message carries the mirrored `MCP-Protocol-Version`,
 * `Mcp-Method` and `Mcp-Name` (Base64 when needed) and no session [H30 H39 H44 H45], and a listed tool's
 * call its `Mcp-Param-*` headers (SEP-2243); a legacy one carries the session id and the negotiated
 * revision [H36].
 */
export function requestHeaders(
  base: Record<string, string>,
  message: JsonRpcMessage | JsonRpcMessage[],
  accept: string,
  session: { sessionId?: string | undefined; protocolVersion?: Revision | undefined },
  params?: ParamHeaderTable,
): Record<string, string> {
  const headers: Record<string, string> = { ...base, accept };
  const single = Array.isArray(message) ? undefined : message;
  if (single && metaVersionOf(single) === MODERN_REVISION) {
    headers['mcp-protocol-version'] = MODERN_REVISION;
    if (typeof single['method'] === 'string') headers['mcp-method'] = single['method'];
    const field = NAME_FIELD_BY_METHOD[String(single['method'])];
    const name = field ? (single['params'] as Record<string, unknown> | undefined)?.[field] : undefined;
    if (typeof name === 'string') headers['mcp-name'] = encodeHeaderValue(name);
    if (single['method'] === 'tools/call' && typeof name === 'string')
      params?.mirror(headers, name, single['params']);
    return headers;
  }
  if (session.sessionId) headers['mcp-session-id'] = session.sessionId;
  if (session.protocolVersion) headers['mcp-protocol-version'] = session.protocolVersion;
  return headers;
}

/**
 * The error for a non-2xx answer to a request: the server's JSON-RPC error when the body carries one
 * (with `data.httpStatus` added where `data` is an object), else {@link TRANSPORT_FAILURE_CODE} with the
 * status and the start of the body. A `404` (one that named a session was retried in a new session
 * before it got here) means nothing serves MCP at `url`, a wrong path or an admin port: its message says
 * so and what to check, unless it is a 2026-07-28 server's `-32601` for an unknown method.
 */
export async function refusalError(response: WireResponse, url: string): Promise<JsonRpcErrorObject> {
  const text = await response.text().catch(() => '');
  let error: { code?: unknown; message?: unknown; data?: unknown } | undefined;
  try {
    error = (JSON.parse(text) as { error?: typeof error }).error;
  } catch {
    error = undefined;
  }
  const httpStatus = response.status;
  const rpc = error && typeof error.code === 'number' && typeof error.message === 'string';
  let message = rpc ? (error?.message as string) : `HTTP ${httpStatus}: ${text.slice(0, 200)}`;
  if (httpStatus === 404 && error?.code !== JsonRpcErrorCode.MethodNotFound) {
    // What happened and what to fix; the URL without its query (it may hold a key).
    const { origin, pathname } = new URL(url);
    message = `HTTP 404 from ${origin}${pathname} (${JSON.stringify(rpc ? message : text.trim().slice(0, 200))}): no MCP endpoint there; check the URL's port and path (the server's MCP endpoint, often /mcp, not an admin or health port)`;
  }
  if (!rpc) return { code: TRANSPORT_FAILURE_CODE, message, data: { httpStatus } };
  const data = error?.data;
  const plain = data === undefined || (typeof data === 'object' && data !== null && !Array.isArray(data));
  return { code: error?.code as number, message, data: plain ? { ...(data as object), httpStatus } : data };
}
