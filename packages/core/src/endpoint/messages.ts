import { JsonRpcErrorCode } from '../errors/causes.js';
import type { JsonRpcErrorObject } from '../errors/inflight-error.js';
import { isTokenOrId } from '../schemas/guards.js';
import type { ProgressToken, RequestId } from '../schemas/types.js';

/**
 * A JSON-RPC message as it goes on the wire (an object; batches are arrays of these).
 */
export type JsonRpcMessage = Record<string, unknown>;

/** The members of a JSON-RPC message, named so code reads them by name (any of them may be absent or wrong). */
export interface MessageFields {
  jsonrpc?: unknown;
  id?: unknown;
  method?: unknown;
  params?: unknown;
  result?: unknown;
  error?: unknown;
}

/**
 * What an inbound JSON value turned out to be, as {@link classify} reads it.
 */
export type Classified =
  | {
      /** A request: it has an id and a method. */
      kind: 'request';
      /** Its id, a string or an integer. */
      id: RequestId;
      /** Its method. */
      method: string;
      /** Its params, when they are an object. */
      params: Record<string, unknown> | undefined;
    }
  | {
      /** A notification: a method and no id. */
      kind: 'notification';
      /** Its method. */
      method: string;
      /** Its params, when they are an object. */
      params: Record<string, unknown> | undefined;
    }
  | {
      /** A response: an id with a result or an error. */
      kind: 'response';
      /** The id of the request it answers. */
      id: RequestId;
      /** The result, for a success. */
      result: unknown;
      /** The error, for a failure. */
      error: JsonRpcErrorObject | undefined;
    }
  | {
      /** Not a valid JSON-RPC message. */
      kind: 'invalid';
      /** The id to answer under, when one could be read; else null [J6]. */
      id: RequestId | null;
      /** Why it is invalid, for the error response. */
      message: string;
      /** The JSON-RPC code the spec names: -32600, or -32602 for params that are not an object. */
      code: number;
      /** False for what tried to be a notification or a response: those are never answered [CN15]. */
      answerable: boolean;
    };

/**
 * Sorts one parsed JSON value into request, notification, response, or invalid (with the JSON-RPC
 * error the spec names: -32600 for a malformed envelope, -32602 for params that are not an object).
 */
export function classify(value: unknown): Classified {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return invalid(null, 'a JSON-RPC message is an object');
  }
  const m = value as MessageFields;
  // Something without a method that carries `result` or `error` meant to be a response; one with a method
  // and no id meant to be a notification. Neither gets an answer, whatever else is wrong with it.
  const answerable = m.method !== undefined ? m.id !== undefined : !('result' in m || 'error' in m);
  const rawId = m.id;
  const hasId = rawId !== undefined;
  const idOk = isTokenOrId(rawId);
  if (m.jsonrpc !== '2.0') return invalid(idOk ? rawId : null, 'jsonrpc must be "2.0"', answerable);
  const method = m.method;
  if (method !== undefined) {
    if (typeof method !== 'string')
      return invalid(idOk ? rawId : null, 'method must be a string', answerable);
    if (hasId && !idOk) return invalid(null, 'id must be a string or an integer', answerable); // never null [J2]
    const params = m.params;
    if (params !== undefined && (typeof params !== 'object' || params === null || Array.isArray(params))) {
      if (!hasId) return invalid(null, 'params must be an object', false);
      return {
        kind: 'invalid',
        id: rawId as RequestId,
        message: 'params must be an object',
        code: JsonRpcErrorCode.InvalidParams,
        answerable: true,
      };
    }
    const p = params as Record<string, unknown> | undefined;
    return hasId
      ? { kind: 'request', id: rawId as RequestId, method, params: p }
      : { kind: 'notification', method, params: p };
  }
  if (idOk && ('result' in m || isErrorObject(m.error))) {
    // JSON-RPC 2.0 §5: exactly one of `result` and `error`; a line with both is no answer to trust.
    if ('result' in m && 'error' in m) return invalid(rawId as RequestId, 'both result and error', false);
    return {
      kind: 'response',
      id: rawId as RequestId,
      result: m.result,
      error: m.error as JsonRpcErrorObject | undefined,
    };
  }
  return invalid(idOk ? rawId : null, 'not a request, notification or response', answerable);
}

function invalid(id: RequestId | null, message: string, answerable = true): Classified {
  return { kind: 'invalid', id, message, code: JsonRpcErrorCode.InvalidRequest, answerable };
}

function isErrorObject(value: unknown): boolean {
  return (
    typeof value === 'object' && value !== null && typeof (value as { code?: unknown }).code === 'number'
  );
}

/**
 * A JSON-RPC error response. `id` is null when the request's id could not be read [J6].
 */
export function errorResponse(
  id: RequestId | null,
  code: number,
  message: string,
  data?: unknown,
): JsonRpcMessage {
  const error: JsonRpcErrorObject = data === undefined ? { code, message } : { code, message, data };
  return { jsonrpc: '2.0', id, error };
}

/**
 * A JSON-RPC success response.
 */
export function resultResponse(id: RequestId, result: unknown): JsonRpcMessage {
  return { jsonrpc: '2.0', id, result };
}

/**
 * Reads `params._meta` when it is an object.
 */
export function metaOf(params: { _meta?: unknown } | undefined):
  | (Record<string, unknown> & {
      /** The request's progress token, unchecked. */
      progressToken?: unknown;
    })
  | undefined {
  const meta = params?._meta;
  return typeof meta === 'object' && meta !== null && !Array.isArray(meta)
    ? (meta as Record<string, unknown>)
    : undefined;
}

/**
 * An error a peer sent back for a request, kept whole (`code`, `message`, `data`) so a proxy can pass it on
 * unchanged.
 *
 * @example
 * ```ts
 * import { type Endpoint, JsonRpcError } from '@mcp-inflight/core';
 * declare const upstream: Endpoint;
 * try {
 *   await upstream.request('resources/read', { uri: 'file:///missing' });
 * } catch (error) {
 *   // A proxy answers its own caller with exactly what upstream said.
 *   if (error instanceof JsonRpcError) console.log(error.code, error.toJsonRpc());
 * }
 * ```
 */
export class JsonRpcError extends Error {
  /** Always `'JsonRpcError'`. */
  override readonly name = 'JsonRpcError';
  /** The JSON-RPC error code the peer sent. */
  readonly code: number;
  /** The error's `data`, if the peer sent any. */
  readonly data: unknown;

  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.code = code;
    this.data = data;
  }

  /** The error as a JSON-RPC error object, for a response. */
  toJsonRpc(): JsonRpcErrorObject {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

/**
 * `notifications/progress` params once `isProgressParams` passed them: the token and value are checked,
 * `total` and `message` are the route's to check for the revision.
 */
export interface ProgressFields {
  progressToken: ProgressToken;
  progress: number;
  total?: unknown;
  message?: unknown;
}

/**
 * Whether `value` carries a 2025-11-25 `task` object: request params that ask for a task, or the
 * `CreateTaskResult` that answers one [PG14]. The one test for "is this a task?".
 */
export function hasTask(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const task = (value as { task?: unknown }).task;
  return typeof task === 'object' && task !== null;
}

/** `_meta` keys under this prefix belong to one leg of a relay: its revision, its capabilities [M1 M2 MK1]. */
const RESERVED_META_PREFIX = 'io.modelcontextprotocol/';

/**
 * A host's request params as a relay sends them on to its upstream: minus the host's `progressToken` (the
 * upstream leg mints its own per call: hosts' tokens are only unique per host [PG4]) and minus the reserved
 * `io.modelcontextprotocol/*` keys, which describe the host's leg (the upstream leg writes its own envelope
 * [M1 M2]). Other `_meta` keys pass through.
 */
export function relayedParams(
  params: Record<string, unknown> | undefined,
): Record<string, unknown> | undefined {
  if (params === undefined) return undefined;
  const meta = metaOf(params);
  if (meta === undefined) return params;
  const kept: Record<string, unknown> = {};
  let any = false;
  for (const [key, value] of Object.entries(meta)) {
    if (key === 'progressToken' || key.startsWith(RESERVED_META_PREFIX)) continue;
    kept[key] = value;
    any = true;
  }
  // The rest copy gains the key itself: a spread copy that gains one gets a hidden class per call (copyWith).
  const { _meta: _dropped, ...rest } = params;
  if (any) rest['_meta'] = kept;
  return rest;
}
