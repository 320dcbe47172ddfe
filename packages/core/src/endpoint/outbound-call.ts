import { DeadlineController } from '../deadline/deadline-controller.js';
import type { ProgressRoute } from '../relay/progress-relay.js';
import type { Revision } from '../revisions/revisions.js';
import type { ProgressParams, ProgressToken, RequestId } from '../schemas/types.js';

/**
 * Options for one outbound request.
 *
 * @example
 * ```ts
 * import type { Endpoint, RequestOptions } from '@mcp-inflight/core';
 * declare const endpoint: Endpoint;
 * const stop = new AbortController();
 * const options: RequestOptions = {
 *   onprogress: ({ progress, total, message }) => console.log(progress, total, message),
 *   idleMs: 5_000, // each accepted progress starts this window again
 *   ceilingMs: 60_000, // nothing extends this
 *   signal: stop.signal, // stop.abort() cancels on the wire, as the revision wants
 * };
 * const result = await endpoint.request('tools/call', { name: 'work', arguments: {} }, options);
 * ```
 */
export interface RequestOptions {
  /** Called with each accepted progress update (strictly increasing; none after the request ends). */
  onprogress?: (progress: ProgressParams) => void;
  /** Idle window that each accepted progress resets. @default the endpoint's `idleMs` (60 000) */
  idleMs?: number;
  /** Hard ceiling from the start. @default the endpoint's `ceilingMs` (600 000) */
  ceilingMs?: number;
  /** The caller's cancel; its reason travels as the cause. */
  signal?: AbortSignal;
  /** An enclosing deadline this request's deadline is a child of. */
  parent?: DeadlineController;
  /**
   * The progress token to send, when the caller has one of its own (unique among this endpoint's calls in
   * flight: a duplicate rejects with `DuplicateTokenError` [PG4]). @default one minted for the call
   */
  progressToken?: ProgressToken;
  /** The revision to send under. @default the session's */
  revision?: Revision;
  /** The inbound request this one belongs to (legacy server-to-client requests on HTTP). */
  related?: RequestId;
  /**
   * `false` sends no `progressToken` (a handshake: nobody listens for its progress); the call still has
   * its deadline. @default true
   */
  progress?: boolean;
  /**
   * Hooks for a call that may start a task (client's `callTask` and the proxy's task legs set them): a
   * 2025-11-25 `CreateTaskResult` keeps the progress token routed past the response [PG14], and a result
   * that comes after the call ended locally is handed over, so a task it created can still be cancelled.
   */
  taskRoute?: TaskRouteHooks;
}

/**
 * What a task driver hears from an outbound call ({@link RequestOptions.taskRoute}). Both hooks run
 * before the call's promise settles or instead of it.
 */
export interface TaskRouteHooks {
  /**
   * The result is a 2025-11-25 `CreateTaskResult` (it carries `task`): the token stays routed, progress
   * keeps reaching `onprogress` and touching the call's deadline and its `parent`, until `release()`.
   */
  onCreated(release: () => void): void;
  /** A result that came after the call had ended locally (its cancel crossed the answer). */
  onLateResult(result: unknown): void;
}

/**
 * A request in flight: its own deadline (a subclass), one object per call and no closure (bench B, Node
 * 20: 1,438 -> 784 B per call in flight). Its token is minted in the endpoint's `TokenRegistry`. @internal
 */
export class Pending extends DeadlineController {
  id!: RequestId;
  method!: string;
  revision!: Revision;
  /** Opened on the first progress, so a call that gets none costs no route. */
  route: ProgressRoute | undefined;
  onprogress: ((progress: ProgressParams) => void) | undefined;
  resolve!: (value: unknown) => void;
  reject!: (error: unknown) => void;
  unlink!: () => void;
  /** Set by the tasks entry: how a task this call starts is kept (see {@link TaskRouteHooks}). */
  taskRoute: TaskRouteHooks | undefined;
  done!: boolean;
  /** Its progress token in the registry; `undefined` for a call sent without one. */
  token!: ProgressToken | undefined;

  get deadline(): DeadlineController {
    return this;
  }
}
