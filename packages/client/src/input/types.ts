import { JsonRpcError, JsonRpcErrorCode } from '@mcp-inflight/core';

/**
 * The methods a server may embed in an input request on 2026-07-28 [MR3]: elicitation, sampling, roots.
 *
 * @example
 * ```ts
 * import type { InputMethod } from '@mcp-inflight/client/input';
 * const method: InputMethod = 'elicitation/create';
 * ```
 */
export type InputMethod = 'elicitation/create' | 'sampling/createMessage' | 'roots/list';

/**
 * The methods an {@link InputRequest} may carry, in the order the spec lists them [MR3].
 *
 * @example
 * ```ts
 * import { INPUT_METHODS } from '@mcp-inflight/client/input';
 * INPUT_METHODS.includes('roots/list'); // true
 * ```
 */
export const INPUT_METHODS: readonly InputMethod[] = [
  'elicitation/create',
  'sampling/createMessage',
  'roots/list',
];

/**
 * One embedded server-to-client request: the method and params a legacy server would have sent as a
 * request of its own.
 *
 * @example
 * ```ts
 * import type { InputRequest } from '@mcp-inflight/client/input';
 * const ask: InputRequest = {
 *   method: 'elicitation/create',
 *   params: { mode: 'form', message: 'Proceed?', requestedSchema: { type: 'object', properties: {} } },
 * };
 * ```
 */
export interface InputRequest {
  /** Which request: elicitation, sampling or roots. */
  method: InputMethod;
  /** Its params, as the method defines them. */
  params?: Record<string, unknown>;
}

/**
 * Input requests by server-assigned key (unique within the request [MR4]).
 *
 * @example
 * ```ts
 * import type { InputRequests } from '@mcp-inflight/client/input';
 * const asks: InputRequests = { roots: { method: 'roots/list' } };
 * ```
 */
export type InputRequests = Record<string, InputRequest>;

/**
 * The client's answers by the same keys: each value is the method's result (an `ElicitResult`, a
 * `CreateMessageResult`, a `ListRootsResult`).
 *
 * @example
 * ```ts
 * import type { InputResponses } from '@mcp-inflight/client/input';
 * const answers: InputResponses = { confirm: { action: 'accept', content: { confirm: true } } };
 * ```
 */
export type InputResponses = Record<string, Record<string, unknown>>;

/**
 * The interim result of a multi round-trip request: `resultType: "input_required"` with at least one of
 * `inputRequests` and `requestState` [MR1 MR6].
 *
 * @example
 * ```ts
 * import type { InputRequiredResult } from '@mcp-inflight/client/input';
 * const interim: InputRequiredResult = { resultType: 'input_required', requestState: 'opaque' };
 * ```
 */
export interface InputRequiredResult {
  /** The discriminator. */
  resultType: 'input_required';
  /** What the client must gather before retrying. */
  inputRequests?: InputRequests;
  /** Opaque to the client; echoed back exactly on the retry [MR7]. */
  requestState?: string;
  /** The result's `_meta`. */
  _meta?: Record<string, unknown>;
}

/**
 * The client requests a server may answer with `input_required`; no other [MR2].
 *
 * @example
 * ```ts
 * import { INPUT_REQUIRED_METHODS } from '@mcp-inflight/client/input';
 * INPUT_REQUIRED_METHODS.has('tools/list'); // false
 * ```
 */
export const INPUT_REQUIRED_METHODS: ReadonlySet<string> = /* @__PURE__ */ new Set([
  'tools/call',
  'prompts/get',
  'resources/read',
]);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Whether a result is an `input_required` interim result (by its discriminator only; see
 * {@link checkInputRequired} for the shape).
 *
 * @example
 * ```ts
 * import { isInputRequired } from '@mcp-inflight/client/input';
 * isInputRequired({ resultType: 'input_required', requestState: 's' }); // true
 * isInputRequired({ content: [] }); // false: a result without resultType is complete [L7]
 * ```
 */
export function isInputRequired(result: unknown): result is InputRequiredResult {
  return isObject(result) && (result as { resultType?: unknown }).resultType === 'input_required';
}

/**
 * Checks an `input_required` result a server sent for `method`, and returns it typed. A malformed one
 * (on a method that may not carry it [MR2], neither `inputRequests` nor `requestState` [MR6], an entry
 * that is not an elicitation, sampling or roots request [MR3], a `requestState` that is not a string)
 * is the server's fault: a `JsonRpcError` with -32603 (internal error), the code a server answers when
 * its own handler produced such a result.
 *
 * @example
 * ```ts
 * import { checkInputRequired } from '@mcp-inflight/client/input';
 * const interim = checkInputRequired('tools/call', {
 *   resultType: 'input_required',
 *   inputRequests: { roots: { method: 'roots/list' } },
 * });
 * Object.keys(interim.inputRequests ?? {}); // ['roots']
 * ```
 */
export function checkInputRequired(method: string, result: unknown): InputRequiredResult {
  const bad = (why: string): JsonRpcError =>
    new JsonRpcError(
      JsonRpcErrorCode.InternalError,
      `malformed input_required result for ${method}: ${why}`,
      {
        result,
      },
    );
  if (!isInputRequired(result)) throw bad('resultType is not "input_required"');
  if (!INPUT_REQUIRED_METHODS.has(method)) throw bad(`${method} may not answer input_required`);
  const { inputRequests, requestState } = result as unknown as Record<string, unknown>;
  if (requestState !== undefined && typeof requestState !== 'string')
    throw bad('requestState is not a string');
  if (inputRequests !== undefined) {
    if (!isObject(inputRequests)) throw bad('inputRequests is not an object');
    for (const [key, entry] of Object.entries(inputRequests)) {
      const { method: kind, params } = (isObject(entry) ? entry : {}) as {
        method?: unknown;
        params?: unknown;
      };
      if (!isObject(entry) || !INPUT_METHODS.includes(kind as InputMethod))
        throw bad(`inputRequests["${key}"] is not an elicitation, sampling or roots request`);
      if (params !== undefined && !isObject(params))
        throw bad(`inputRequests["${key}"].params is not an object`);
    }
  }
  const asks = inputRequests === undefined ? 0 : Object.keys(inputRequests).length;
  if (asks === 0 && requestState === undefined) throw bad('it has neither inputRequests nor requestState');
  return result;
}
