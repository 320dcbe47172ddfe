import type {
  CallToolResult,
  Endpoint,
  RequestContext,
  RequestHandler,
  RequestOptions,
} from '@mcp-inflight/core';
import { DeadlineController, InflightError, JsonRpcError, JsonRpcErrorCode } from '@mcp-inflight/core';
import type { ProgressParams } from '@mcp-inflight/core/adapter';
import { linkSignal, MODERN_REVISION } from '@mcp-inflight/core/adapter';
import { checkInputRequired, type InputRequests, type InputResponses, isInputRequired } from './types.js';

/**
 * What the input handler is told besides the requests.
 *
 * @example
 * ```ts
 * import type { InputRound } from '@mcp-inflight/client/input';
 * const describe = (round: InputRound) => `round ${round.round} of ${round.method}`;
 * ```
 */
export interface InputRound {
  /** The request being retried (`tools/call`…). */
  method: string;
  /** Which round asked (1 for the first request's answer). */
  round: number;
  /**
   * Aborts when the call ends while input is being gathered: the caller's abort, or the call's ceiling
   * (the reason is an `InflightError` naming which). Pass it to whatever asks the user.
   */
  signal: AbortSignal;
}

/**
 * Gathers the answers to one round's input requests. Return one result per key (an `ElicitResult` with
 * `action: 'decline'` is an answer too); throw to end the call with that error.
 *
 * @example
 * ```ts
 * import type { InputHandler } from '@mcp-inflight/client/input';
 * const acceptAll: InputHandler = (requests) =>
 *   Object.fromEntries(Object.keys(requests).map((key) => [key, { action: 'accept', content: {} }]));
 * ```
 */
export type InputHandler = (
  requests: InputRequests,
  round: InputRound,
) => InputResponses | Promise<InputResponses>;

/**
 * Options for {@link requestWithInput}: a request's options, for the whole call across its rounds, plus
 * how input is gathered.
 *
 * @example
 * ```ts
 * import type { InputRequestOptions } from '@mcp-inflight/client/input';
 * const options: InputRequestOptions = {
 *   ceilingMs: 120_000, // from the first round, across all of them
 *   idleMs: 10_000, // within each round; not while the user is answering
 *   maxRounds: 4,
 *   onprogress: (p, round) => console.log(`round ${round}: ${p.progress}/${p.total ?? '?'}`),
 * };
 * ```
 */
export interface InputRequestOptions extends Omit<RequestOptions, 'onprogress'> {
  /**
   * Gathers one round's answers. @default the client's own handlers for each method
   * (`client.onRequest('elicitation/create', …)`), so one host handler serves a legacy server's request
   * and a 2026-07-28 input request alike
   */
  onInputRequired?: InputHandler;
  /** The most requests sent for the call, the first included. @default 8 */
  maxRounds?: number;
  /**
   * Each accepted progress update, with the round it belongs to. Strictly increasing within a round;
   * every round has a fresh token, so values may start again in the next round.
   */
  onprogress?: (progress: ProgressParams, round: number) => void;
}

/**
 * The part of a client {@link requestWithInput} needs: `McpClient` fits, and so does an `Endpoint`'s
 * `request` with the endpoint beside it.
 *
 * @example
 * ```ts
 * import type { Endpoint } from '@mcp-inflight/core';
 * import type { InputCapableClient } from '@mcp-inflight/client/input';
 * declare const endpoint: Endpoint;
 * const client: InputCapableClient = { endpoint, request: (m, p, o) => endpoint.request(m, p, o) };
 * ```
 */
export interface InputCapableClient {
  /** Its endpoint: default limits, clock and the handlers registered with `onRequest`. */
  readonly endpoint: Endpoint;
  /** Sends one request within its deadline. */
  request(method: string, params?: Record<string, unknown>, options?: RequestOptions): Promise<unknown>;
}

/**
 * JSON-RPC code for a multi round-trip call that hit `maxRounds` (ours, from -32002..-32019).
 *
 * @example
 * ```ts
 * import { JsonRpcError } from '@mcp-inflight/core';
 * import { INPUT_ROUNDS_EXCEEDED } from '@mcp-inflight/client/input';
 * declare const error: unknown;
 * if (error instanceof JsonRpcError && error.code === INPUT_ROUNDS_EXCEEDED) console.log(error.data);
 * ```
 */
export const INPUT_ROUNDS_EXCEEDED: number = JsonRpcErrorCode.InputRoundsExceeded;

const DEFAULT_MAX_ROUNDS = 8;

/** Request params with the retry fields a multi round-trip request adds [MR1]. */
type RetryFields = Record<string, unknown> & { inputResponses?: unknown; requestState?: string };

/**
 * Sends a request that the server may answer with `input_required` (2026-07-28 multi round-trip
 * requests [MR1]), gathers the input and retries, until a complete result: one call for the caller.
 *
 * - One deadline across rounds: the ceiling counts from the first request and nothing extends it; the
 *   idle window runs within each round (progress resets it) and not while input is being gathered.
 * - The caller's `signal` ends the call in any round; a round in flight is cancelled on the wire as its
 *   revision and transport want; while input is gathered nothing is in flight, so nothing is sent.
 * - Each retry is a new request with a new id [MR9] and the same params, plus `inputResponses` when the
 *   server asked for input, and `requestState` exactly as the server sent it, only when it sent one [MR7].
 * - A malformed `input_required` result rejects with -32603; more than `maxRounds` requests with
 *   {@link INPUT_ROUNDS_EXCEEDED} (`data.rounds`, `data.lastResult`); an input request nobody handles
 *   with -32601.
 *
 * On a legacy session the server cannot answer `input_required`; it sends its own requests, served by
 * the same `onRequest` handlers, and the call is one round.
 *
 * @example
 * ```ts
 * import type { McpClient } from '@mcp-inflight/client';
 * import { requestWithInput } from '@mcp-inflight/client/input';
 * declare const client: McpClient;
 * client.onRequest('elicitation/create', () => ({ action: 'accept', content: { confirm: true } }));
 * const result = await requestWithInput(client, 'tools/call', { name: 'deploy', arguments: {} }, {
 *   ceilingMs: 60_000,
 * });
 * ```
 */
export async function requestWithInput<T = unknown>(
  client: InputCapableClient,
  method: string,
  params: Record<string, unknown> | undefined,
  options: InputRequestOptions = {},
): Promise<T> {
  const endpoint = client.endpoint;
  const limits = endpoint.requestLimits;
  const maxRounds = options.maxRounds ?? DEFAULT_MAX_ROUNDS;
  if (!(Number.isInteger(maxRounds) && maxRounds >= 1))
    throw new RangeError(`maxRounds must be a positive integer, got ${maxRounds}`);
  const {
    onInputRequired,
    maxRounds: _max,
    onprogress,
    signal,
    parent,
    idleMs,
    ceilingMs,
    ...rest
  } = options;
  // The call's own deadline: the ceiling from now, no idle window (input gathering is not idleness).
  const call = new DeadlineController({
    ceilingMs: ceilingMs ?? limits.ceilingMs,
    clock: endpoint.clock,
    parent: parent ?? signal,
  });
  const unlink = parent && signal ? linkSignal(signal, call) : noop;
  // A retry's own fields never carry over from the caller's params: each round sets its own [MR7b].
  const { inputResponses: _i, requestState: _r, ...base } = (params ?? {}) as RetryFields;
  const ask = onInputRequired ?? registeredHandlers(endpoint);
  try {
    let retry: RetryFields = base;
    for (let round = 1; ; round++) {
      const result = await client.request(method, retry, {
        ...rest,
        // A child of the call: the ceiling is the call's, the idle window this round's own.
        parent: call,
        idleMs: idleMs ?? limits.idleMs,
        ceilingMs: Number.POSITIVE_INFINITY,
        ...(onprogress ? { onprogress: (p: ProgressParams) => onprogress(p, round) } : {}),
      });
      if (!isInputRequired(result)) return result as T;
      const interim = checkInputRequired(method, result);
      if (round >= maxRounds)
        throw new JsonRpcError(
          INPUT_ROUNDS_EXCEEDED,
          `${method} still asked for input after ${maxRounds} rounds (maxRounds)`,
          { rounds: maxRounds, lastResult: interim },
        );
      retry = { ...base };
      if (interim.inputRequests !== undefined) {
        const info: InputRound = { method, round, signal: call.signal };
        // The call's deadline bounds the gathering: the caller's abort and the ceiling end it, and the
        // cause reads as it would have in a round (an InflightError).
        retry.inputResponses = await call
          .race(Promise.resolve(ask(interim.inputRequests, info)))
          .catch((error: unknown) => {
            throw call.aborted ? InflightError.from(call.reason) : error;
          });
      }
      // Echoed exactly, and only when the server sent one [MR7 MR7b].
      if (interim.requestState !== undefined) retry.requestState = interim.requestState;
      if (call.aborted) throw InflightError.from(call.reason);
    }
  } finally {
    unlink();
    call.dispose();
  }
}

/**
 * {@link requestWithInput} for `tools/call`, with a typed result.
 *
 * @example
 * ```ts
 * import type { McpClient } from '@mcp-inflight/client';
 * import { callToolWithInput } from '@mcp-inflight/client/input';
 * declare const client: McpClient;
 * const result = await callToolWithInput(client, 'confirm', { action: 'deploy' }, {
 *   onInputRequired: () => ({ confirm: { action: 'accept', content: { confirm: true } } }),
 * });
 * ```
 */
export function callToolWithInput(
  client: InputCapableClient,
  name: string,
  args?: Record<string, unknown>,
  options?: InputRequestOptions,
): Promise<CallToolResult> {
  return requestWithInput<CallToolResult>(client, 'tools/call', { name, arguments: args ?? {} }, options);
}

/**
 * The default input handler: each request goes to the handler the host registered for its method
 * (`client.onRequest`), all of them at once; a method with no handler ends the call with -32601.
 */
export function registeredHandlers(endpoint: Endpoint): InputHandler {
  return async (requests, round) => {
    const entries = Object.entries(requests);
    const missing = entries.find(([, request]) => !endpoint.requestHandler(request.method));
    if (missing)
      throw new JsonRpcError(
        JsonRpcErrorCode.MethodNotFound,
        `no handler for input request "${missing[0]}" (${missing[1].method}): register one with onRequest or pass onInputRequired`,
      );
    const answers = await Promise.all(
      entries.map(async ([key, request]) => {
        const handler = endpoint.requestHandler(request.method) as RequestHandler;
        const scope = new DeadlineController({ parent: round.signal, clock: endpoint.clock });
        try {
          const answer = await handler(request.params, inputContext(key, request.method, scope));
          return [key, answer as Record<string, unknown>] as const;
        } finally {
          scope.dispose();
        }
      }),
    );
    return Object.fromEntries(answers);
  };
}

/** A request context for a host handler answering an embedded input request (no wire request behind it). */
function inputContext(key: string, method: string, scope: DeadlineController): RequestContext {
  const ctx: RequestContext = {
    id: key,
    method,
    revision: MODERN_REVISION,
    get signal() {
      return scope.signal;
    },
    progressToken: undefined,
    meta: undefined,
    deadline: scope,
    progress: () => false,
    limit: () => ctx,
    endProgress: noop,
  };
  return ctx;
}

function noop(): void {}
