import type { Admission, AdmissionTicket } from '../admission/admission.js';
import type { Clock } from '../clock/clock.js';
import { DeadlineController } from '../deadline/deadline-controller.js';
import { JsonRpcErrorCode } from '../errors/causes.js';
import { InflightError } from '../errors/inflight-error.js';
import type { Role, TransportKind } from '../policy/era-cancel-policy.js';
import { eraCancelPolicy } from '../policy/era-cancel-policy.js';
import type { ProgressRelay, ProgressRoute } from '../relay/progress-relay.js';
import { isLegacy, type Revision } from '../revisions/revisions.js';
import { isTokenOrId } from '../schemas/guards.js';
import type { ProgressToken, RequestId } from '../schemas/types.js';
import { BoundedSet } from '../util/bounded-set.js';
import { IdTable } from '../util/id-table.js';
import type { BatchCollector } from './batch.js';
import type { Channel, SendIntent } from './channel.js';
import type { HandlerLimits, HandlerOptions, RequestContext, RequestHandler } from './context.js';
import type { EventHub } from './events.js';
import { errorResponse, hasTask, type JsonRpcMessage, metaOf, resultResponse } from './messages.js';

/**
 * A request of the peer's in flight. It is its own deadline and its handler's context (a subclass, as an
 * outbound call is): one object per request, methods on the prototype, so a request costs no closures and
 * no per-request hidden class (an object literal with a getter made a map of its own for every request,
 * allocated in old space: most of what the server's GC did under load).
 */
class InboundCall extends DeadlineController implements RequestContext {
  // Declared, not initialised: `#run` sets every field, in one order, so every request has one shape.
  declare id: RequestId;
  declare method: string;
  declare revision: Revision;
  declare params: Record<string, unknown> | undefined;
  declare meta: Record<string, unknown> | undefined;
  declare progressToken: ProgressToken | undefined;
  /** @internal */
  declare owner: InboundRequests;
  /** @internal */
  declare handler: RequestHandler;
  /** @internal */
  declare batch: BatchCollector | undefined;
  /** @internal */
  declare onResult: ((result: unknown) => void) | undefined;
  /** Open while the peer may hear its progress (it sent a token); none otherwise. @internal */
  declare route: ProgressRoute | undefined;
  /** The last progress a handler reported without a route (for its own idle limit). @internal */
  declare lastProgress: number;
  /** Ended by the peer (cancel, disconnect): no response may follow [CN9 CN25]. @internal */
  declare suppress: boolean;
  /** @internal */
  declare done: boolean;
  /** A 2025-11-25 request that asked for a task: its route may stay open past the response [PG14]. @internal */
  declare taskAugmented: boolean;
  /** Child deadlines the handler opened with `ctx.limit()`, innermost last; disposed with the request. @internal */
  declare scopes: DeadlineController[] | undefined;
  /** Its slot in the endpoint's admission, released when the handler ends. @internal */
  declare ticket: AdmissionTicket | undefined;

  /** Its handler's deadline: the request itself (a `ctx.limit()` scope's context has its own). */
  declare deadline: DeadlineController;
  /** The request a context belongs to: itself, or (for a scope's context, which inherits it) its request. @internal */
  declare call: InboundCall;

  progress(progress: number, total?: number, message?: string): boolean {
    const call = this.call;
    const scope = this.deadline;
    const route = call.route;
    if (route) {
      if (route.closed) return false;
      const accepted = route.push(progress, total, message);
      if (accepted) scope.touch();
      const events = call.owner.settings.hub.events;
      if (events === undefined) return accepted;
      if (accepted)
        events.emit('progress-accepted', 'inbound', route.token, progress as number, total, message);
      else events.emit('progress-dropped', 'inbound', route.token, progress, route.refused ?? 'closed');
      return accepted;
    }
    // Nobody asked for notifications, but the handler's own idle limit still sees its liveness.
    if (call.done || !(progress > call.lastProgress) || !Number.isFinite(progress)) return false;
    call.lastProgress = progress;
    scope.touch();
    return false;
  }

  /** A child scope whose progress touches it (and, through it, every enclosing deadline). */
  limit(limits: HandlerLimits): RequestContext {
    const call = this.call;
    const child = new DeadlineController({
      ...limits, // a limit left unset is none of its own (the controller's default)
      parent: this.deadline,
      updates: 'parent', // the handler's updates are the request's: its message counts those
    });
    if (call.done) child.dispose();
    else if (call.scopes) call.scopes.push(child);
    else call.scopes = [child];
    // The request's context with this scope's deadline and signal: its methods report on `child`.
    return Object.create(call, { deadline: { value: child }, signal: { get: () => child.signal } });
  }

  /** What was reported before the end still goes out, then nothing [PG15]. */
  endProgress(): void {
    const route = this.call.route;
    if (route) {
      route.finish();
      this.call.owner.taskRoutes.delete(route);
    }
  }

  /** @internal */
  openRoute(): void {
    const s = this.owner.settings;
    const id = this.id;
    const intent: SendIntent = { kind: 'progress', id }; // one per request, none per notification
    this.route = s.progressRelay.open({
      token: this.progressToken as ProgressToken,
      revision: this.revision,
      send: (p) =>
        s.channel.write({ jsonrpc: '2.0', method: 'notifications/progress', params: p }, id, intent),
    });
  }
}

/** A request waiting for admission: it has no deadline, route or handler yet. */
interface QueuedEntry {
  readonly method: string;
  readonly batch: BatchCollector | undefined;
  readonly ticket: AdmissionTicket;
}

/** Shared settings for {@link InboundRequests}. */
export interface InboundSettings {
  role: Role;
  transport: TransportKind;
  channel: Channel;
  clock: Clock;
  progressRelay: ProgressRelay;
  handlerIdleMs: number;
  handlerCeilingMs: number;
  onError: (error: unknown, context: string) => void;
  hub: EventHub;
  /** Asked before each handler runs; none: every request runs at once. */
  admission: Admission | undefined;
  /** Whose requests these are, for the admission's shares (the endpoint). */
  owner: object;
}

/**
 * Requests the peer sent us, in flight: dispatch off the read loop, inbound cancellation, responses
 * suppressed after a cancel, and every entry removed when its request settles (rule 8).
 */
export class InboundRequests {
  #entries = new IdTable<InboundCall>(); // not a Map: see IdTable
  /** Requests dispatched whose handlers start on the next microtask, in order. */
  #ready: InboundCall[] = [];
  /** Every request's deadline reports here: one function for all of them. */
  #onDeadline = (_reason: unknown, deadline: DeadlineController): void =>
    this.#onAbort(deadline as InboundCall);
  /** Requests waiting for admission, by id (a cancel takes one out at once [CN9]). */
  #queued = new Map<RequestId, QueuedEntry>();
  /** Cancels that came before their request (rule 3) and ids that just finished (to ignore late cancels). */
  #earlyCancels = new BoundedSet<RequestId>(128);
  #recentlyDone = new BoundedSet<RequestId>(256);
  /** Routes of 2025-11-25 tasks that outlived their response; closed by endProgress or on close. @internal */
  readonly taskRoutes = new Set<ProgressRoute>();
  /** Handler results or errors that came after their request had ended (absorbed). */
  lateResults = 0;
  /** Cancels that matched no request in flight when they arrived [CN11]. */
  ignoredCancels = 0;
  /** Cancels that arrived before their request and still won (rule 3). */
  earlyCancelsApplied = 0;

  readonly settings: InboundSettings;

  constructor(settings: InboundSettings) {
    this.settings = settings;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** Requests waiting for admission. */
  get queued(): number {
    return this.#queued.size;
  }

  /** Starts a request's handler on a later microtask, so a cancel read in the same chunk still wins. */
  dispatch(
    id: RequestId,
    method: string,
    params: Record<string, unknown> | undefined,
    revision: Revision,
    handler: RequestHandler,
    batch: BatchCollector | undefined,
    onResult?: (result: unknown) => void,
    limits?: HandlerOptions,
    size?: string | number,
    parts = 1,
  ): void {
    const s = this.settings;
    if (this.#entries.has(id) || this.#queued.has(id)) {
      // Not related to `id`: on HTTP that would land on (and end) the first request's stream.
      const reply = errorResponse(
        id,
        JsonRpcErrorCode.InvalidRequest,
        `request id ${JSON.stringify(id)} is already in flight`,
      );
      if (batch) batch.add(reply);
      else s.channel.write(reply);
      return;
    }
    // `initialize` may not be cancelled [CN7], so an early cancel for its id does not apply.
    if (method !== 'initialize' && this.#earlyCancels.delete(id)) {
      this.earlyCancelsApplied++;
      batch?.add(undefined);
      this.#suppressed(id);
      return;
    }
    const admission = s.admission;
    const run = (slot?: AdmissionTicket): void =>
      this.#run(id, method, params, revision, handler, batch, onResult, limits, slot);
    if (admission === undefined || limits?.bypassesAdmission === true) return run();
    const ticket = admission.admit(s.owner, size, parts, () => {
      this.#queued.delete(id);
      run(ticket);
    });
    if (ticket.state === 'running') run(ticket);
    else if (ticket.state === 'queued') this.#queued.set(id, { method, batch, ticket });
    else this.#reply(batch, id, admission.refusal(id));
  }

  #run(
    id: RequestId,
    method: string,
    params: Record<string, unknown> | undefined,
    revision: Revision,
    handler: RequestHandler,
    batch: BatchCollector | undefined,
    onResult: ((result: unknown) => void) | undefined,
    limits: HandlerOptions | undefined,
    ticket: AdmissionTicket | undefined,
  ): void {
    const s = this.settings;
    const call = new InboundCall({
      idleMs: limits?.idleMs ?? s.handlerIdleMs,
      ceilingMs: limits?.ceilingMs ?? s.handlerCeilingMs,
      clock: s.clock,
      onAbort: this.#onDeadline, // one function for every request, none per request
    });
    call.id = id;
    call.method = method;
    call.revision = revision;
    call.params = params;
    const meta = metaOf(params);
    call.meta = meta;
    const token = meta?.progressToken;
    const mayProgress =
      isTokenOrId(token) && eraCancelPolicy(revision, s.transport).maySendProgress(s.role).value;
    call.progressToken = mayProgress ? token : undefined;
    call.owner = this;
    call.handler = handler;
    call.batch = batch;
    call.onResult = onResult;
    call.route = undefined;
    call.lastProgress = Number.NEGATIVE_INFINITY;
    call.suppress = false;
    call.done = false;
    // Only a 2025-11-25 request that asked for a task keeps its route past the response [PG14].
    call.taskAugmented = revision === '2025-11-25' && hasTask(params);
    call.scopes = undefined;
    call.ticket = ticket;
    call.deadline = call;
    call.call = call;
    if (mayProgress) call.openRoute();
    this.#entries.set(id, call);
    s.hub.events?.emit('request-started', 'inbound', id, method, revision);
    // The handler starts on a later microtask, so a cancel read in the same chunk still wins (rule 3) and
    // the read loop goes on (rule 7): one microtask for every request dispatched before it runs.
    if (this.#ready.push(call) > 1) return;
    queueMicrotask(this.#startReady);
  }

  #startReady = (): void => {
    const ready = this.#ready;
    this.#ready = [];
    for (const call of ready) this.#start(call);
  };

  #start(call: InboundCall): void {
    if (call.done) return; // ended before it started: there is no late result to count
    let result: unknown;
    try {
      result = call.handler(call.params, call);
    } catch (error) {
      return this.#end(call, false, error);
    }
    if (typeof (result as PromiseLike<unknown> | null)?.then !== 'function')
      return this.#end(call, true, result);
    Promise.resolve(result).then(
      (value) => this.#end(call, true, value),
      (error: unknown) => this.#end(call, false, error),
    );
  }

  /** The handler returned (`ok`) or threw: answer, unless the request ended first. Never throws. */
  #end(call: InboundCall, ok: boolean, value: unknown): void {
    // A handler that rejects after its request ended is honouring the cancel (a relayed call ends with
    // its parent's reason): only a result after the end is a late result.
    const id = call.id;
    if (call.done) return ok ? this.#noteLate(id) : undefined;
    try {
      this.#finish(call);
      this.settings.hub.events?.emit(
        'request-ended',
        'inbound',
        id,
        call.method,
        ok ? 'result' : 'error',
        ok ? undefined : value,
      );
      const route = call.route;
      if (!ok) {
        route?.close();
        return this.#reply(call.batch, id, errorResponseFor(id, limitBehind(call, value)));
      }
      call.onResult?.(value);
      // Flush pending progress before the result; a task's route stays open until it ends [PG14].
      if (route && call.taskAugmented) {
        if (!route.settle(value)) this.taskRoutes.add(route);
      } else route?.finish();
      const task = call.taskAugmented && hasTask(value);
      this.#reply(call.batch, id, resultResponse(id, withResultType(value, call.revision)), task);
    } catch (error) {
      this.settings.onError(error, `settling request ${JSON.stringify(id)}`);
    }
  }

  /** A peer's `notifications/cancelled` for `id`. Unknown or finished ids are ignored quietly [CN11]. */
  cancel(id: RequestId, reason: string | undefined): void {
    // Waiting for admission: taken out at once, never run, never answered [CN9].
    const queued = this.#queued.get(id);
    const entry = queued ?? this.#entries.get(id);
    if (entry) {
      if (entry.method === 'initialize') return void this.ignoredCancels++; // may not be cancelled [CN7]
      this.settings.hub.events?.emit('cancel-received', id, entry.method, reason);
      if (queued) return this.#dropQueued(id, queued, undefined, true);
      const running = entry as InboundCall;
      running.suppress = true;
      running.deadline.cancel(InflightError.cancelled(reason, { requestId: id, method: entry.method }));
      return;
    }
    this.ignoredCancels++;
    // Remember it briefly in case its request is still on the way (rule 3), unless it just finished.
    if (!this.#recentlyDone.has(id)) this.#earlyCancels.add(id);
  }

  /**
   * Ends one request for a local reason: a dropped stream (`suppress`: no response can reach anyone), or
   * shutdown (an error response names the cause).
   */
  abort(id: RequestId, cause: InflightError, suppress: boolean): boolean {
    const queued = this.#queued.get(id);
    if (queued) {
      this.#dropQueued(id, queued, suppress ? undefined : cause, false);
      return true;
    }
    const entry = this.#entries.get(id);
    if (!entry) return false;
    entry.suppress = suppress;
    entry.deadline.cancel(cause);
    return true;
  }

  /** Ends every request in flight (connection closed, shutdown), and the progress of open tasks. */
  abortAll(cause: InflightError | (() => InflightError), suppress: boolean): void {
    // Waiting requests first: a running one that ends frees its slot, which must not start them. The
    // cause is built only when something is in flight to receive it.
    let reason: InflightError | undefined;
    const why = (): InflightError => (reason ??= typeof cause === 'function' ? cause() : cause);
    for (const id of [...this.#queued.keys()]) this.abort(id, why(), suppress);
    for (const entry of this.#entries.list()) this.abort(entry.id, why(), suppress);
    for (const route of this.taskRoutes) route.close();
    this.taskRoutes.clear();
  }

  #onAbort(entry: InboundCall): void {
    if (entry.done) return;
    this.#finish(entry);
    entry.route?.close(); // nothing after a cancel [PG12 CN25]
    const cause = InflightError.from(entry.deadline.reason);
    const events = this.settings.hub.events;
    if (events) {
      if (cause.isTimeout) events.emit('deadline-fired', 'inbound', entry.id, entry.method, cause);
      events.emit('request-ended', 'inbound', entry.id, entry.method, 'aborted', cause);
    }
    if (entry.suppress) {
      entry.batch?.add(undefined);
      this.#suppressed(entry.id);
    } else this.#reply(entry.batch, entry.id, errorResponse(entry.id, ...jsonRpcArgs(cause)));
  }

  /** A waiting request that will never run: answered with `cause`, or ended with no response. */
  #dropQueued(
    id: RequestId,
    queued: QueuedEntry,
    cause: InflightError | undefined,
    cancelled: boolean,
  ): void {
    this.settings.admission!.withdraw(queued.ticket, cancelled);
    this.#queued.delete(id);
    this.#recentlyDone.add(id);
    if (cause) return this.#reply(queued.batch, id, errorResponse(id, ...jsonRpcArgs(cause)));
    queued.batch?.add(undefined);
    this.#suppressed(id);
  }

  #finish(entry: InboundCall): void {
    entry.done = true;
    this.#entries.delete(entry.id);
    this.#recentlyDone.add(entry.id);
    entry.deadline.dispose();
    if (entry.scopes) for (const scope of entry.scopes) scope.dispose();
    // The slot is freed with the entry, whatever comes after (a next request only starts its handler on a
    // later microtask, so this request's answer still goes out first).
    if (entry.ticket) this.settings.admission?.release(entry.ticket);
  }

  /** Tells the channel no response will come for `id`; a channel that throws must not stop us. */
  #suppressed(id: RequestId): void {
    try {
      this.settings.channel.suppressed?.(id);
    } catch (error) {
      this.settings.onError(error, `ending request ${JSON.stringify(id)} with no response`);
    }
  }

  #noteLate(id: RequestId): void {
    this.lateResults++;
    this.settings.hub.events?.emit('late', 'result', id);
  }

  #reply(batch: BatchCollector | undefined, id: RequestId, message: JsonRpcMessage, task = false): void {
    if (batch) return batch.add(message);
    const channel = this.settings.channel;
    const intent: SendIntent = { kind: 'response', id, task };
    try {
      channel.write(message, id, intent);
    } catch (error) {
      // A result the channel cannot write (a BigInt, a cycle) still gets an answer [rule 10].
      this.settings.onError(error, `writing the response to request ${JSON.stringify(id)}`);
      if (!('result' in message)) return;
      try {
        channel.write(
          errorResponse(id, JsonRpcErrorCode.InternalError, 'the result could not be sent'),
          id,
          intent,
        );
      } catch (second) {
        this.settings.onError(second, `writing an error for request ${JSON.stringify(id)}`);
      }
    }
  }
}

/**
 * What a handler's failure means to the caller. An abort thrown by a timer or fetch on an aborted signal
 * hides the limit behind it: the innermost aborted scope's reason (or the abort's own `cause`) is the
 * answer, so a handler's own ceiling reaches the client as -32001 with `data.cause`, never -32603.
 */
function limitBehind(entry: InboundCall, error: unknown): unknown {
  if (InflightError.is(error) || !isAbortError(error)) return error;
  if (InflightError.is(error.cause)) return error.cause;
  const scopes = entry.scopes ?? [];
  for (let i = scopes.length - 1; i >= 0; i--) {
    const scope = scopes[i];
    if (scope?.aborted) return InflightError.from(scope.reason);
  }
  return entry.deadline.aborted ? InflightError.from(entry.deadline.reason) : error;
}

function isAbortError(error: unknown): error is { name: 'AbortError'; cause?: unknown } {
  return typeof error === 'object' && error !== null && (error as { name?: unknown }).name === 'AbortError';
}

/** 2026-07-28 results carry `resultType`; a plain result is `"complete"` [L7]. */
function withResultType(result: unknown, revision: Revision): unknown {
  const value = result ?? {};
  if (isLegacy(revision) || typeof value !== 'object' || Array.isArray(value) || 'resultType' in value)
    return value;
  return { resultType: 'complete', ...value };
}

function jsonRpcArgs(error: {
  toJsonRpc(): { code: number; message: string; data?: unknown };
}): [number, string, unknown] {
  const e = error.toJsonRpc();
  return [e.code, e.message, e.data];
}

/**
 * The JSON-RPC error for whatever a handler threw; never throws itself (-32603 when all else fails).
 */
export function errorResponseFor(id: RequestId, error: unknown): JsonRpcMessage {
  try {
    return describeError(id, error);
  } catch {
    return errorResponse(id, JsonRpcErrorCode.InternalError, 'Internal error');
  }
}

function describeError(id: RequestId, error: unknown): JsonRpcMessage {
  if (error instanceof InflightError) return errorResponse(id, ...jsonRpcArgs(error));
  if (typeof error === 'object' && error !== null) {
    const e = error as { code?: unknown; message?: unknown; data?: unknown; toJsonRpc?: unknown };
    if (typeof e.toJsonRpc === 'function') return errorResponse(id, ...jsonRpcArgs(e as never));
    if (typeof e.code === 'number' && Number.isInteger(e.code) && typeof e.message === 'string') {
      return errorResponse(id, e.code, e.message, e.data);
    }
  }
  const message = error instanceof Error ? error.message : String(error);
  return errorResponse(id, JsonRpcErrorCode.InternalError, message);
}
