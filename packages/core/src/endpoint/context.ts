import type { DeadlineController } from '../deadline/deadline-controller.js';
import type { Revision } from '../revisions/revisions.js';
import type { ProgressToken, RequestId } from '../schemas/types.js';

/**
 * What a request handler gets besides its params: the request's identity and revision, a signal that
 * aborts when the peer cancels, the connection goes, or the handler's own deadline fires (the reason is
 * an `InflightError` naming which), and a progress reporter.
 *
 * @example
 * ```ts
 * import type { RequestContext } from '@mcp-inflight/core';
 * async function work(steps: number, ctx: RequestContext): Promise<{ content: unknown[] }> {
 *   for (let step = 1; step <= steps; step++) {
 *     ctx.signal.throwIfAborted(); // cancel, disconnect or deadline: the reason is an InflightError
 *     ctx.progress(step, steps); // a no-op when the peer sent no progressToken
 *     await new Promise((resolve) => setTimeout(resolve, 100));
 *   }
 *   return { content: [{ type: 'text', text: `${steps} steps of ${ctx.method} under ${ctx.revision}` }] };
 * }
 * ```
 */
export interface RequestContext {
  /** The request's JSON-RPC id. */
  readonly id: RequestId;
  /** The request's method, e.g. `tools/call`. */
  readonly method: string;
  /** The revision this request is served under (its `_meta` version, else the session's). */
  readonly revision: Revision;
  /** Aborts on cancel, disconnect, shutdown or the handler deadline; `signal.reason.code` says which. */
  readonly signal: AbortSignal;
  /** The token the peer asked progress under, or `undefined` (then `progress()` is a no-op) [PG9]. */
  readonly progressToken: ProgressToken | undefined;
  /** The request's `params._meta`, if any. */
  readonly meta: Record<string, unknown> | undefined;
  /** The request's params (a 2026-07-28 retry's `inputResponses` and `requestState` are read here). */
  readonly params?: Record<string, unknown> | undefined;
  /**
   * Set when the work runs as a 2025-11-25 task: the requests it sends the requestor about the task carry
   * `_meta[RELATED_TASK_META_KEY] = { taskId }` [T5], and `onInputWait` is told when it starts (`true`) and
   * stops (`false`) waiting for the requestor's answer (an `elicitation/create` or `sampling/createMessage`),
   * so the task shows `input_required` meanwhile [T37]. The tool layer does both; a handler sending such
   * requests itself should too.
   */
  readonly task?: TaskContext | undefined;
  /** The handler's deadline: touch it to show liveness; its signal is `signal`. */
  readonly deadline: DeadlineController;
  /**
   * Reports progress: strictly increasing values only, coalesced, never blocking, never throwing, and
   * silent once the request has settled. Returns whether the value was accepted.
   */
  progress(progress: number, total?: number, message?: string): boolean;
  /**
   * A child scope for part of the work, with limits of its own inside the request's: its `signal` aborts
   * when its own limit fires or the request ends, its `progress` touches it (and every enclosing scope),
   * and a limit that fires in it reaches the caller as -32001 with `data.cause`, even when the work
   * throws a plain `AbortError`. Disposed when the request settles.
   */
  limit(limits: HandlerLimits): RequestContext;
  /**
   * Ends progress for a 2025-11-25 task-augmented request whose route outlived its response, once the task
   * reaches a terminal status [PG14 PG15]: a coalesced update still pending goes out first, then nothing.
   * A no-op otherwise.
   */
  endProgress(): void;
}

/**
 * The task a handler's work runs as (2025-11-25 `serveTasks`), see {@link RequestContext.task}.
 */
export interface TaskContext {
  /** The task's id, for the related-task key of the requests the work sends about it. */
  readonly taskId: string;
  /** Called with `true` when the work starts waiting on the requestor's answer, `false` when it stops. */
  onInputWait(waiting: boolean): void;
}

/**
 * Limits for one handler (`setRequestHandler(method, handler, limits)`) or one part of it (`ctx.limit()`):
 * an idle window that its progress resets, and a ceiling from its start. Unset means no limit of its own.
 *
 * @example
 * ```ts
 * import type { Endpoint, HandlerLimits } from '@mcp-inflight/core';
 * declare const endpoint: Endpoint;
 * const limits: HandlerLimits = { idleMs: 5_000, ceilingMs: 60_000 };
 * endpoint.setRequestHandler('tools/call', async (_params, ctx) => {
 *   const fetchStep = ctx.limit({ ceilingMs: 1_500 }); // this part gets 1.5 s, inside the call's 60 s
 *   await fetch('https://example.com', { signal: fetchStep.signal });
 *   fetchStep.progress(1, 2, 'fetched');
 *   return { content: [] };
 * }, limits);
 * ```
 */
export interface HandlerLimits {
  /** The idle window in ms: the longest stretch without accepted progress. */
  idleMs?: number;
  /** The hard ceiling in ms from the start, whatever the progress. */
  ceilingMs?: number;
}

/** {@link HandlerLimits}, and whether the handler skips the endpoint's admission (see `setRequestHandler`). */
export type HandlerOptions = HandlerLimits & { bypassesAdmission?: boolean };

/**
 * Serves one request method. Return the result, or throw (an `InflightError`, a `JsonRpcError`, anything).
 *
 * @example
 * ```ts
 * import { type Endpoint, JsonRpcError, JsonRpcErrorCode, type RequestHandler } from '@mcp-inflight/core';
 * declare const endpoint: Endpoint;
 * const echo: RequestHandler = (params) => {
 *   // What a handler throws becomes the error response; a JsonRpcError keeps its code.
 *   if (typeof params?.text !== 'string') {
 *     throw new JsonRpcError(JsonRpcErrorCode.InvalidParams, 'text must be a string');
 *   }
 *   return { text: params.text };
 * };
 * endpoint.setRequestHandler('demo/echo', echo);
 * ```
 */
export type RequestHandler = (params: Record<string, unknown> | undefined, ctx: RequestContext) => unknown;

/**
 * Receives one notification method.
 *
 * @example
 * ```ts
 * import type { Endpoint, NotificationHandler } from '@mcp-inflight/core';
 * declare const endpoint: Endpoint;
 * const onListChanged: NotificationHandler = (_params, revision) => {
 *   console.log(`tools changed (revision ${revision ?? 'not negotiated yet'})`);
 * };
 * endpoint.setNotificationHandler('notifications/tools/list_changed', onListChanged);
 * ```
 */
export type NotificationHandler = (
  params: Record<string, unknown> | undefined,
  revision: Revision | undefined,
) => void;
