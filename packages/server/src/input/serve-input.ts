import type {
  InputRequest,
  InputRequests,
  InputRequiredResult,
  InputResponses,
} from '@mcp-inflight/client/input';
import { JsonRpcError, JsonRpcErrorCode } from '@mcp-inflight/core';
import { CLIENT_CAPABILITIES_META_KEY } from '@mcp-inflight/core/adapter';

/**
 * What a retried request brought back: the client's answers and the `requestState` it echoed, if any.
 *
 * @example
 * ```ts
 * import type { InputRetry } from '@mcp-inflight/server/input';
 * const first: InputRetry = { inputResponses: undefined, requestState: undefined }; // the first round
 * ```
 */
export interface InputRetry {
  /** The answers by key, or `undefined` on a first request. */
  inputResponses: InputResponses | undefined;
  /** The state as echoed (untrusted until opened with a `RequestStateSigner`) [MR4b]. */
  requestState: string | undefined;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Reads the retry fields of a request's params, checking their shape: `inputResponses` must be an object
 * of objects and `requestState` a string, else -32602 (invalid params) [MR10].
 *
 * @example
 * ```ts
 * import { inputRetryOf } from '@mcp-inflight/server/input';
 * const { inputResponses } = inputRetryOf({ name: 'deploy', inputResponses: { ok: { action: 'accept' } } });
 * inputResponses?.ok; // { action: 'accept' }
 * ```
 */
export function inputRetryOf(params: Record<string, unknown> | undefined): InputRetry {
  const { inputResponses, requestState } = (params ?? {}) as {
    inputResponses?: unknown;
    requestState?: unknown;
  };
  if (inputResponses !== undefined) {
    if (!isObject(inputResponses) || !Object.values(inputResponses).every(isObject))
      throw new JsonRpcError(
        JsonRpcErrorCode.InvalidParams,
        'inputResponses must map keys to result objects',
      );
  }
  if (requestState !== undefined && typeof requestState !== 'string')
    throw new JsonRpcError(JsonRpcErrorCode.InvalidParams, 'requestState must be a string', {
      reason: 'invalid_request_state',
    });
  return { inputResponses: inputResponses as InputResponses | undefined, requestState };
}

/**
 * Builds the `input_required` result a handler returns to ask for input on 2026-07-28 [MR1]. At least one
 * of `inputRequests` (non-empty) and `requestState` is required [MR6]; only elicitation, sampling and
 * roots requests may be embedded [MR3], and only those the client declared [MR8] (the caller's check).
 *
 * @example
 * ```ts
 * import { elicit, inputRequired } from '@mcp-inflight/server/input';
 * const ask = inputRequired({
 *   inputRequests: { confirm: elicit('Deploy to prod?', { confirm: { type: 'boolean' } }) },
 *   requestState: 'sealed-state',
 * });
 * ```
 */
export function inputRequired(spec: {
  inputRequests?: InputRequests;
  requestState?: string;
}): InputRequiredResult {
  const asks = spec.inputRequests === undefined ? 0 : Object.keys(spec.inputRequests).length;
  if (asks === 0 && spec.requestState === undefined)
    throw new TypeError(
      'inputRequired needs inputRequests or a requestState (MRTR: at least one of the two)',
    );
  return {
    resultType: 'input_required',
    ...(asks === 0 ? {} : { inputRequests: spec.inputRequests }),
    ...(spec.requestState === undefined ? {} : { requestState: spec.requestState }),
  };
}

/**
 * An embedded form elicitation: a message and the flat properties of the object it asks for.
 *
 * @example
 * ```ts
 * import { elicit } from '@mcp-inflight/server/input';
 * elicit('Your GitHub login?', { name: { type: 'string' } }, ['name']);
 * ```
 */
export function elicit(
  message: string,
  properties: Record<string, Record<string, unknown>>,
  required?: string[],
): InputRequest {
  return {
    method: 'elicitation/create',
    params: {
      mode: 'form',
      message,
      requestedSchema: { type: 'object', properties, ...(required ? { required } : {}) },
    },
  };
}

/** The capability a client declares for each embedded method. */
const CAPABILITY_OF: Readonly<Record<InputRequest['method'], string>> = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
};

/**
 * Whether the client of a 2026-07-28 request declared the capability an input request needs (a server
 * MUST NOT embed others [MR8]); `undefined` on a legacy request, whose capabilities came with
 * `initialize` and are not in the request.
 *
 * @example
 * ```ts
 * import type { RequestContext } from '@mcp-inflight/core';
 * import { clientSupports } from '@mcp-inflight/server/input';
 * declare const ctx: RequestContext;
 * if (clientSupports(ctx.meta, 'elicitation/create') === false) {
 *   // answer without asking: this client cannot be asked
 * }
 * ```
 */
export function clientSupports(
  meta: Record<string, unknown> | undefined,
  method: InputRequest['method'],
): boolean | undefined {
  const capabilities = meta?.[CLIENT_CAPABILITIES_META_KEY];
  if (!isObject(capabilities)) return undefined;
  return capabilities[CAPABILITY_OF[method]] !== undefined;
}
