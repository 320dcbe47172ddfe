import type { AdmissionTicket } from '../admission/admission.js';
import type { DeadlineController } from '../deadline/deadline-controller.js';
import { JsonRpcErrorCode } from '../errors/causes.js';
import { InflightError, type JsonRpcErrorObject } from '../errors/inflight-error.js';
import type { ProgressRoute } from '../relay/progress-relay.js';
import { isLegacy, type Revision } from '../revisions/revisions.js';
import type { RequestId } from '../schemas/types.js';
import { BoundedSet } from '../util/bounded-set.js';
import { IdTable } from '../util/id-table.js';
import type { BatchCollector } from './batch.js';
import type { SendIntent } from './channel.js';
import { type CallTable, InboundCall, type InboundRequest, type InboundSettings } from './inbound-call.js';
import { errorResponse, hasTask, type JsonRpcMessage, resultResponse } from './messages.js';

export type { InboundRequest, InboundSettings } from './inbound-call.js';

/** A request waiting for admission: it has no deadline, route or handler yet. */
interface QueuedEntry {
  readonly method: string;
  readonly batch: BatchCollector | undefined;
  readonly ticket: AdmissionTicket;
}

/**
 * Requests the peer sent us, in flight: dispatch off the read loop, inbound cancellation, responses
 * suppressed after a cancel, and every entry removed when its request settles (rule 8).
 */
export class InboundRequests implements CallTable {
  #entries = new IdTable<InboundCall>(); // not a Map: see IdTable
  /** Requests dispatched whose handlers start on the next microtask, in order. */
  #ready: InboundCall[] = [];
  /** Every request's deadline reports here: one function for all of them. @internal */
  readonly onDeadline = (_reason: unknown, deadline: DeadlineController): void =>
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
  dispatch(request: InboundRequest): void {
    const s = this.settings;
    const { id, method, batch } = request;
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
    if (admission === undefined) return this.#run(request, undefined);
    const ticket = admission.admit(s.owner, request, () => {
      this.#queued.delete(id);
      this.#run(request, ticket);
    });
    if (ticket.state === 'running') this.#run(request, ticket);
    else if (ticket.state === 'queued') this.#queued.set(id, { method, batch, ticket });
    else this.#reply(batch, id, admission.refusal(id));
  }

  #run(request: InboundRequest, ticket: AdmissionTicket | undefined): void {
    const call = new InboundCall(request, this, ticket);
    this.#entries.set(call.id, call);
    this.settings.hub.events?.emit('request-started', 'inbound', call.id, call.method, call.revision);
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
    } else this.#reply(entry.batch, entry.id, errorResponseFor(entry.id, cause));
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
    if (cause) return this.#reply(queued.batch, id, errorResponseFor(id, cause));
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
  if (typeof error === 'object' && error !== null) {
    // An InflightError (of any copy of this package) and anything else that says how it goes on the wire.
    const e = error as {
      code?: unknown;
      message?: unknown;
      data?: unknown;
      toJsonRpc?: () => JsonRpcErrorObject;
    };
    if (typeof e.toJsonRpc === 'function') {
      const { code, message, data } = e.toJsonRpc();
      return errorResponse(id, code, message, data);
    }
    if (typeof e.code === 'number' && Number.isInteger(e.code) && typeof e.message === 'string') {
      return errorResponse(id, e.code, e.message, e.data);
    }
  }
  const message = error instanceof Error ? error.message : String(error);
  return errorResponse(id, JsonRpcErrorCode.InternalError, message);
}
