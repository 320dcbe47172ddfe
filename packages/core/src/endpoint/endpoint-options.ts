import type { Admission } from '../admission/admission.js';
import type { Clock } from '../clock/clock.js';
import type { Role, TransportKind } from '../policy/era-cancel-policy.js';
import type { ProgressRelay } from '../relay/progress-relay.js';
import type { Revision } from '../revisions/revisions.js';
import type { Channel } from './channel.js';
import type { EventHub } from './events.js';

/**
 * Options for an `Endpoint`.
 *
 * @example
 * ```ts
 * import { Endpoint, type EndpointOptions } from '@mcp-inflight/core';
 * const options: EndpointOptions = {
 *   role: 'client',
 *   transport: 'stdio',
 *   channel: { write: (message) => console.log(JSON.stringify(message)) },
 *   idleMs: 10_000, // outbound calls end after 10 s without progress…
 *   ceilingMs: 120_000, // …and after 2 min, whatever progress says
 *   onError: (error, context) => console.error(context, error),
 * };
 * const client = new Endpoint(options);
 * ```
 */
export interface EndpointOptions {
  /** Which side we are: decides who may send progress and cancels (2026-07-28 narrows both). */
  role: Role;
  /** Which transport carries us: decides how a cancel is signalled. */
  transport: TransportKind;
  /** Where messages are written. */
  channel: Channel;
  /** @default systemClock */
  clock?: Clock;
  /** Share one relay (and its counters) among endpoints. @default a new relay on `clock` */
  progressRelay?: ProgressRelay;
  /** The session's revision when known up front (an HTTP header, a pinned client). Set by `initialize`. */
  revision?: Revision;
  /** Who we are, stamped on every 2026-07-28 request we send unless the request names itself [M4]. */
  clientInfo?: {
    /** The implementation's name. */
    name: string;
    /** Its version. */
    version: string;
    [key: string]: unknown;
  };
  /** What we offer, stamped on every 2026-07-28 request we send [M2]. @default {} */
  clientCapabilities?: Record<string, unknown>;
  /** Default idle limit for outbound requests. @default 60_000 */
  idleMs?: number | undefined;
  /** Default hard ceiling for outbound requests. @default 600_000 */
  ceilingMs?: number | undefined;
  /** Idle limit for inbound handlers (reset by their own progress). @default Infinity */
  handlerIdleMs?: number | undefined;
  /** Hard ceiling for inbound handlers. @default Infinity */
  handlerCeilingMs?: number | undefined;
  /**
   * Told about failures that must not stop the endpoint: a notification handler that threw, a response
   * the channel could not write. The endpoint keeps serving either way. @default ignore (counted in stats)
   */
  onError?: (error: unknown, context: string) => void;
  /**
   * The most elements a 2025-03-26 batch may have; a larger one is refused whole with one `-32600`
   * (`id: null`) naming the limit, since every element's answer would go out in one message (a 2 MB body
   * of a million invalid elements asked for a 113 MB answer). @default 1_000 (`DEFAULT_MAX_BATCH_ELEMENTS`)
   */
  maxBatchElements?: number | undefined;
  /**
   * Asked before each inbound handler runs: at most its `maxInFlight` handlers at once over every endpoint
   * that shares it, a bounded queue, `-32010` beyond it, a cancel that takes a waiting request out at once.
   * Transports give one to each server endpoint (stdio: one per connection; HTTP: one per server).
   * @default none: every request runs at once
   */
  admission?: Admission;
}

/**
 * The default bound on a 2025-03-26 batch's elements ({@link EndpointOptions.maxBatchElements}).
 */
export const DEFAULT_MAX_BATCH_ELEMENTS = 1_000;

/**
 * Counters for one endpoint.
 *
 * @example
 * ```ts
 * import type { Endpoint, EndpointStats } from '@mcp-inflight/core';
 * declare const endpoint: Endpoint;
 * const stats: EndpointStats = endpoint.stats; // a snapshot: read `stats` again for new numbers
 * if (stats.lateResponses + stats.lateResults > 0) console.warn('answers came after the calls ended', stats);
 * ```
 */
export interface EndpointStats {
  /** Requests from the peer being handled now. */
  inboundInFlight: number;
  /** Requests from the peer waiting for admission (`EndpointOptions.admission`): not started yet. */
  inboundQueued: number;
  /** Our requests waiting for their answer. */
  outboundInFlight: number;
  /** Progress tokens held by outbound requests (minted per request, released when it settles). */
  outboundTokens: number;
  /** Responses that came after their request had ended (absorbed). */
  lateResponses: number;
  /** Handler results or errors that came after their request had ended (absorbed). */
  lateResults: number;
  /** Cancels that matched no request in flight when they arrived, or named `initialize` [CN7 CN11]. */
  ignoredCancels: number;
  /** Cancels that arrived before their request and still won (rule 3). */
  earlyCancelsApplied: number;
  /** Notifications ignored: malformed, or for a method nobody handles [CN15]. */
  ignoredNotifications: number;
  /** Input that was not JSON, when we are the client (a client does not answer it). */
  badInput: number;
  /** Errors passed to `onError` (thrown by callbacks or by the channel, invalid answers to our calls). */
  errors: number;
}

/** What an endpoint's request tables share: one literal per endpoint, built by its constructor. @internal */
export interface EndpointSettings {
  role: Role;
  transport: TransportKind;
  channel: Channel;
  clock: Clock;
  progressRelay: ProgressRelay;
  onError: (error: unknown, context: string) => void;
  hub: EventHub;
  /** Idle limit and ceiling of inbound handlers, unless a handler has its own. */
  handlerIdleMs: number;
  handlerCeilingMs: number;
  /** Asked before each handler runs; none: every request runs at once. */
  admission: Admission | undefined;
  /** Whose requests these are, for the admission's shares (the endpoint). */
  owner: object;
  /** Default idle limit and ceiling of outbound requests. */
  idleMs: number;
  ceilingMs: number;
  clientInfo: Record<string, unknown> | undefined;
  clientCapabilities: Record<string, unknown>;
}
