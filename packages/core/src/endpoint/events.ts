import { EventEmitter } from 'eventemitter3';
import type { InflightError } from '../errors/inflight-error.js';
import type { DropReason } from '../relay/progress-relay.js';
import type { Revision } from '../revisions/revisions.js';
import type { ProgressToken, RequestId } from '../schemas/types.js';

/**
 * Which way a request goes: `outbound` is one we sent (we wait for its result), `inbound` one the peer sent
 * (our handler runs it).
 */
export type Direction = 'inbound' | 'outbound';

/**
 * How a request ended: `result`, `error` (an error response, ours or the peer's) or `aborted` (a cancel,
 * a deadline, a disconnect or a shutdown; the cause is an {@link InflightError}).
 */
export type Outcome = 'result' | 'error' | 'aborted';

/**
 * The typed event stream of an {@link Endpoint}, for logs, reports and stats. Arguments are positional so
 * that emitting allocates nothing; an endpoint nobody listens to emits nothing at all.
 *
 * - `request-started`: a request went out, or a peer's request is about to be dispatched.
 * - `request-ended`: it settled; `error` is the rejection or error response (undefined for a result).
 * - `progress-accepted`: an update passed on, to our caller (`outbound`) or to the peer (`inbound`).
 * - `progress-dropped`: an update refused (not finite, not increasing, malformed, or after the end).
 * - `cancel-sent`: we cancelled one of our requests on the wire (`how`: the notification, or closing its
 *   HTTP stream).
 * - `cancel-received`: the peer's `notifications/cancelled` ended one of its requests in flight.
 * - `deadline-fired`: an idle limit or ceiling ended a request (`cause.code` says which).
 * - `late`: a response, a handler's result or a progress update that came after its request ended,
 *   absorbed (rule 4).
 * - `error`: a failure that did not stop the endpoint (a notification handler threw, a write failed).
 *
 * @example
 * ```ts
 * import { Endpoint, type EndpointEvents } from '@mcp-inflight/core';
 * declare const client: Endpoint;
 * const onCancel: EndpointEvents['cancel-sent'] = (id, method, cause) =>
 *   console.log(`cancelled ${method} #${id}: ${cause.wireReason()}`);
 * client.events.on('cancel-sent', onCancel);
 * client.events.on('deadline-fired', (direction, id, _method, cause) => console.log(direction, id, cause.code));
 * ```
 */
export interface EndpointEvents {
  /** A request went out, or a peer's request is about to be dispatched. */
  'request-started': (direction: Direction, id: RequestId, method: string, revision: Revision) => void;
  /** A request settled; `error` is the rejection or error response (undefined for a result). */
  'request-ended': (
    direction: Direction,
    id: RequestId,
    method: string,
    outcome: Outcome,
    error: unknown,
  ) => void;
  /** An update passed on, to our caller (`outbound`) or to the peer (`inbound`). */
  'progress-accepted': (
    direction: Direction,
    token: ProgressToken,
    progress: number,
    total: unknown,
    message: unknown,
  ) => void;
  /** An update refused (not finite, not increasing, malformed, or after the end). */
  'progress-dropped': (
    direction: Direction,
    token: ProgressToken,
    progress: unknown,
    reason: DropReason | 'closed',
  ) => void;
  /** We cancelled one of our requests on the wire (`how`: the notification, or closing its HTTP stream). */
  'cancel-sent': (
    id: RequestId,
    method: string,
    cause: InflightError,
    how: 'notification' | 'close-stream',
  ) => void;
  /** The peer's `notifications/cancelled` ended one of its requests in flight. */
  'cancel-received': (id: RequestId, method: string, reason: string | undefined) => void;
  /** An idle limit or ceiling ended a request (`cause.code` says which). */
  'deadline-fired': (direction: Direction, id: RequestId, method: string, cause: InflightError) => void;
  /** A response, a handler's result or a progress update came after its request ended, absorbed (rule 4). */
  late: (kind: 'response' | 'result' | 'progress', key: RequestId | ProgressToken) => void;
  /** A failure that did not stop the endpoint (a notification handler threw, a write failed). */
  error: (error: unknown, context: string) => void;
}

/**
 * Holds an endpoint's emitter once someone asks for it; until then, emitting is one `undefined` check.
 * @internal
 */
export interface EventHub {
  events: EventEmitter<EndpointEvents> | undefined;
}

/** @internal */
export function createEmitter(): EventEmitter<EndpointEvents> {
  return new EventEmitter<EndpointEvents>();
}
