import type { DeadlineController } from '../deadline/deadline-controller.js';
import { linkSignal } from '../deadline/link-signal.js';
import { InflightError, inflightErrorFromJsonRpc } from '../errors/inflight-error.js';
import { eraCancelPolicy } from '../policy/era-cancel-policy.js';
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  isLegacy,
  PROTOCOL_VERSION_META_KEY,
  type Revision,
} from '../revisions/revisions.js';
import type { ProgressToken, RequestId } from '../schemas/types.js';
import { TokenRegistry } from '../tokens/token-registry.js';
import { copyWith } from '../util/copy-with.js';
import { IdTable } from '../util/id-table.js';
import type { EndpointSettings } from './endpoint-options.js';
import type { Outcome } from './events.js';
import { hasTask, JsonRpcError, type JsonRpcMessage, metaOf, type ProgressFields } from './messages.js';
import { Pending, type RequestOptions, type TaskRouteHooks } from './outbound-call.js';

export type { RequestOptions, TaskRouteHooks } from './outbound-call.js';

/** At most this many ended calls wait for a late result to hand to their task hooks. */
const LATE_TASK_HOOKS = 64;

/** The outbound table's settings: the endpoint's. */
export type OutboundSettings = EndpointSettings;

/**
 * Requests we sent, in flight: a minted progress token on every one (so idle reset works without a
 * callback), progress routed by exact token, deadlines that cancel era-correctly with an honest reason,
 * and late responses absorbed and counted (rule 4).
 */
export class OutboundRequests {
  #byId = new IdTable<Pending>(); // not a Map: see IdTable
  /** The token side of the table: every outbound progress token is minted, looked up and released here. */
  #tokens = new TokenRegistry<Pending>(new IdTable()); // minted and released per call: see IdTable
  #nextId = 0;
  /** Every call's deadline reports here: one function for all of them, none per call. */
  #onDeadline = (_reason: unknown, deadline: DeadlineController): void => {
    const pending = deadline as Pending;
    if (pending.resolve !== undefined) this.#onAbort(pending, true); // not while it is being built
  };
  /** Task hooks of calls that ended locally, waiting for a result that may still come (bounded). */
  #lateTaskHooks = new Map<RequestId, TaskRouteHooks>();
  /** Calls answered with a 2025-11-25 `CreateTaskResult` whose token stays routed until the task ends. */
  #held = new Map<RequestId, Pending>();
  /** Responses that came for no request in flight (after our cancel, or unknown), absorbed. */
  lateResponses = 0;
  closed = false;

  readonly settings: OutboundSettings;

  constructor(settings: OutboundSettings) {
    this.settings = settings;
  }

  get size(): number {
    return this.#byId.size;
  }

  /** Whether request `id` of ours is waiting for its answer. */
  has(id: RequestId | null): boolean {
    return this.#byId.has(id as RequestId);
  }

  /** Progress tokens still routed: one per request in flight and per task not yet ended (or a leak). */
  get tokens(): number {
    return this.#tokens.size;
  }

  send(
    method: string,
    params: Record<string, unknown> | undefined,
    revision: Revision,
    options: RequestOptions,
  ): Promise<unknown> {
    if (this.closed) return Promise.reject(new InflightError('UPSTREAM_CLOSED', undefined, { method }));
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      // Built inside the executor, so bad limits reject the call rather than throw from it.
      const pending = this.#pending(id, method, revision, options);
      pending.resolve = resolve;
      pending.reject = reject;
      if (options.progress !== false && !this.#takeToken(pending, options.progressToken)) return;
      this.#byId.set(id, pending);
      this.settings.hub.events?.emit('request-started', 'outbound', id, method, revision);
      if (pending.deadline.aborted) return this.#onAbort(pending, false); // aborted before it was sent
      const message: JsonRpcMessage = {
        jsonrpc: '2.0',
        id,
        method,
        params: requestParams(params, pending.token, revision, this.settings),
      };
      this.#write(pending, message, options.related);
    });
  }

  /** A call's object, its deadline started; its promise's ends are set next. */
  #pending(id: RequestId, method: string, revision: Revision, options: RequestOptions): Pending {
    const s = this.settings;
    const pending = new Pending({
      idleMs: options.idleMs ?? s.idleMs,
      ceilingMs: options.ceilingMs ?? s.ceilingMs,
      clock: s.clock,
      parent: options.parent ?? options.signal,
      // A callback, not a signal listener: no AbortController is made for a call nobody aborts.
      onAbort: this.#onDeadline,
    });
    pending.id = id;
    pending.method = method;
    pending.revision = revision;
    pending.route = undefined;
    pending.onprogress = options.onprogress;
    pending.taskRoute = options.taskRoute;
    pending.done = false;
    pending.token = undefined;
    // With both a parent deadline and a caller's signal, the signal is linked by hand (and unlinked on settle).
    pending.unlink = options.parent && options.signal ? linkSignal(options.signal, pending) : noop;
    return pending;
  }

  /** Mints the call's token, or registers the caller's own; a duplicate active one rejects the call [PG4]. */
  #takeToken(pending: Pending, own: ProgressToken | undefined): boolean {
    if (own === undefined) {
      pending.token = this.#tokens.mint(pending);
      return true;
    }
    try {
      this.#tokens.register(own, pending);
    } catch (error) {
      this.#settle(pending);
      pending.reject(error);
      return false;
    }
    pending.token = own;
    return true;
  }

  /** Writes the request; one the channel cannot take ends its call, and no entry stays. */
  #write(pending: Pending, message: JsonRpcMessage, related: RequestId | undefined): void {
    const { id, method, revision } = pending;
    let text: string | undefined;
    try {
      text = JSON.stringify(message);
      this.settings.channel.write(message, related, { kind: 'request', id, method, revision, text });
    } catch (error) {
      // Too deep, a cycle, a BigInt: the caller learns now, and nothing was written. Otherwise the
      // channel refused the write: the call can never be answered.
      this.#reject(
        pending,
        text
          ? new InflightError(
              'UPSTREAM_CLOSED',
              'the request could not be written',
              { method },
              { cause: error },
            )
          : new InflightError('UNSERIALIZABLE', undefined, { method }, { cause: error }),
      );
    }
  }

  /** A `notifications/progress` from the peer: touch the deadline only for accepted (increasing) values. */
  progress(params: ProgressFields): void {
    // Exact match (`"1"` never finds `1`); a held task's token stays registered until its task ends [PG14].
    const pending = this.#tokens.resolve(params.progressToken);
    const s = this.settings;
    const relay = s.progressRelay;
    if (!pending) {
      s.hub.events?.emit('late', 'progress', params.progressToken);
      return relay.noteLate(params.progressToken, params.progress);
    }
    // Delivery to the caller: strictly increasing, nothing after the end; no coalescing in-process.
    pending.route ??= relay.open({
      token: params.progressToken,
      revision: pending.revision,
      minIntervalMs: 0,
      send: pending.onprogress ?? noop,
    });
    const route = pending.route;
    const accepted = route.push(params.progress, params.total, params.message);
    if (accepted) pending.touch();
    // One undefined check when nobody asked for events; positional arguments allocate nothing.
    const events = s.hub.events;
    if (events === undefined) return;
    if (accepted)
      events.emit(
        'progress-accepted',
        'outbound',
        route.token,
        params.progress,
        params.total,
        params.message,
      );
    else events.emit('progress-dropped', 'outbound', route.token, params.progress, route.refused ?? 'closed');
  }

  /** A response from the peer. */
  response(
    id: RequestId,
    result: unknown,
    error: { code: number; message: string; data?: unknown } | undefined,
  ): void {
    const pending = this.#byId.get(id);
    if (!pending) {
      this.lateResponses++;
      this.settings.hub.events?.emit('late', 'response', id);
      if (this.#lateTaskHooks.size === 0) return;
      const hooks = this.#lateTaskHooks.get(id);
      this.#lateTaskHooks.delete(id);
      if (hooks && !error) hooks.onLateResult(result);
      return;
    }
    if (pending.taskRoute !== undefined && !error && hasTask(result)) return this.#hold(pending, result);
    if (!error) return this.#resolve(pending, result);
    this.#settle(pending);
    // A limit the peer (or a proxy beyond it) enforced reads as the same InflightError a local one
    // does, `origin: 'remote'` (rule 11); any other error stays a JsonRpcError.
    const failure =
      inflightErrorFromJsonRpc(error) ?? new JsonRpcError(error.code, error.message, error.data);
    this.#ended(pending, 'error', failure);
    pending.reject(failure);
  }

  /**
   * A server's `notifications/cancelled` for one of our requests: it may end only a
   * `subscriptions/listen` stream [CN3 CN6], and that end is graceful, as the listen response is [L11]:
   * the listen resolves. Returns whether it ended one.
   */
  endedByPeer(id: RequestId): boolean {
    const pending = this.#byId.get(id);
    if (pending?.method !== 'subscriptions/listen') return false;
    this.#resolve(pending, { resultType: 'complete' });
    return true;
  }

  /** Fails one request with `cause`, sending nothing: its exchange broke and no answer can come. */
  fail(id: RequestId, cause: InflightError): boolean {
    const pending = this.#byId.get(id);
    if (!pending) return false;
    this.#reject(pending, cause);
    return true;
  }

  /**
   * Fails every request in flight with `cause`, sending nothing (the channel is gone). `cause` may be a
   * function, called only when something is in flight: building an error captures a stack, and a stateless
   * 2026-07-28 request closes its endpoint every time.
   */
  failAll(cause: InflightError | (() => InflightError)): void {
    this.closed = true;
    this.#lateTaskHooks.clear();
    for (const pending of this.#held.values()) this.#settle(pending);
    this.#held.clear();
    if (this.#byId.size === 0) return;
    if (typeof cause === 'function') cause = cause();
    for (const pending of this.#byId.list()) this.#reject(pending, cause);
  }

  /** Cancels every request in flight with `cause`, era-correctly on the wire (shutdown). */
  cancelAll(cause: InflightError): void {
    for (const pending of this.#byId.list()) pending.deadline.cancel(cause);
  }

  #onAbort(pending: Pending, sendCancel: boolean): void {
    if (pending.done) return;
    this.#settle(pending);
    const cause = InflightError.from(pending.deadline.reason);
    const s = this.settings;
    const events = s.hub.events;
    if (events && cause.isTimeout)
      events.emit('deadline-fired', 'outbound', pending.id, pending.method, cause);
    this.#ended(pending, 'aborted', cause);
    // The caller learns first: a channel that throws below must not leave the call hanging.
    pending.reject(cause);
    if (!sendCancel || this.closed) return;
    if (pending.taskRoute) {
      // Its answer may still start a task: the task driver hears of it and cancels that with tasks/cancel.
      if (this.#lateTaskHooks.size >= LATE_TASK_HOOKS) {
        const oldest = this.#lateTaskHooks.keys().next().value as RequestId;
        this.#lateTaskHooks.delete(oldest);
      }
      this.#lateTaskHooks.set(pending.id, pending.taskRoute);
    }
    // Era-correct cancel: the notification, or closing that request's stream, or nothing [CN7 CN24 CN25].
    // A call that has no answer yet has no task id either, so even one that asked for a task is still a
    // request and is cancelled as one; its task, if one comes, is cancelled with tasks/cancel [CN16].
    const how = eraCancelPolicy(pending.revision, s.transport).outboundCancel(s.role, {
      method: pending.method,
    });
    if (how.value !== 'notification' && how.value !== 'close-stream') return;
    const notification =
      how.value === 'notification'
        ? {
            jsonrpc: '2.0',
            method: 'notifications/cancelled',
            params: { requestId: pending.id, reason: cause.wireReason() },
          }
        : undefined;
    try {
      if (s.channel.cancelRequest) s.channel.cancelRequest(pending.id, notification);
      else if (notification) s.channel.write(notification);
      events?.emit('cancel-sent', pending.id, pending.method, cause, how.value);
    } catch (error) {
      s.onError(error, `cancelling request ${JSON.stringify(pending.id)}`);
    }
  }

  #ended(pending: Pending, outcome: Outcome, error: unknown): void {
    this.settings.hub.events?.emit('request-ended', 'outbound', pending.id, pending.method, outcome, error);
  }

  /**
   * A 2025-11-25 `CreateTaskResult`: the request is answered, but its token stays routed until the task
   * driver releases it at the task's terminal status [PG14 PG15].
   */
  #hold(pending: Pending, result: unknown): void {
    pending.done = true;
    if (this.#byId.delete(pending.id)) this.settings.channel.settled?.(pending.id);
    this.#ended(pending, 'result', undefined);
    this.#held.set(pending.id, pending);
    pending.taskRoute?.onCreated(() => this.#release(pending));
    pending.resolve(result);
  }

  /** Ends a held task's route (its terminal status); safe to call twice, and after the connection closed. */
  #release(pending: Pending): void {
    if (this.#held.delete(pending.id)) this.#settle(pending);
  }

  #resolve(pending: Pending, result: unknown): void {
    this.#settle(pending);
    this.#ended(pending, 'result', undefined);
    pending.resolve(result);
  }

  /** Ends a call with `cause`, sending nothing. */
  #reject(pending: Pending, cause: InflightError): void {
    this.#settle(pending);
    this.#ended(pending, 'aborted', cause);
    pending.reject(cause);
  }

  /** Removes a call (or a held task) from the tables and releases its route, deadline and signal link. */
  #settle(pending: Pending): void {
    pending.done = true;
    if (this.#byId.delete(pending.id)) this.settings.channel.settled?.(pending.id);
    if (pending.token !== undefined) this.#tokens.release(pending.token);
    pending.route?.close();
    pending.deadline.dispose();
    pending.unlink();
  }
}

/**
 * The params a request goes out with: the caller's, with its token and the revision's envelope in `_meta`
 * (a relayed 2026-07-28 envelope removed for a legacy peer; on 2026-07-28 a request's own keys win).
 */
function requestParams(
  params: Record<string, unknown> | undefined,
  token: ProgressToken | undefined,
  revision: Revision,
  s: OutboundSettings,
): Record<string, unknown> {
  // A rest copy, not a spread: a spread copy that gains keys gets a hidden class per call (copyWith).
  const { ...meta }: Record<string, unknown> = metaOf(params) ?? {};
  if (token !== undefined) meta['progressToken'] = token;
  if (isLegacy(revision)) {
    // A relayed 2026-07-28 envelope must not make a legacy peer read the request as modern.
    delete meta[PROTOCOL_VERSION_META_KEY];
    delete meta[CLIENT_CAPABILITIES_META_KEY];
    delete meta[CLIENT_INFO_META_KEY];
  } else {
    // The envelope every 2026-07-28 request carries [M1 M2 M4].
    meta[PROTOCOL_VERSION_META_KEY] = revision;
    meta[CLIENT_CAPABILITIES_META_KEY] ??= s.clientCapabilities;
    if (s.clientInfo) meta[CLIENT_INFO_META_KEY] ??= s.clientInfo;
  }
  return copyWith(params, { _meta: meta });
}

function noop(): void {}
