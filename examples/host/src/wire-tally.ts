import type { CancelCode, Endpoint } from '@mcp-inflight/core';

/**
 * What the host's client endpoint did and absorbed on the wire, tallied from its typed event stream
 * (`endpoint.events` of core): the part of a call's story the outcome alone does not tell.
 */
export interface WireTally {
  /** Calls started on the wire. */
  requests: number;
  /** Cancels the host signalled, by how the revision and transport required it. */
  cancelsSent: { notification: number; 'close-stream': number };
  /** The host's own limits that ended calls, by cause (`IDLE_TIMEOUT`, `CEILING`). */
  deadlines: Partial<Record<CancelCode, number>>;
  /** Progress updates passed to the bars, and those refused (not increasing, malformed, after the end). */
  progressAccepted: number;
  progressDropped: number;
  /** Answers and progress that came after their call had ended, absorbed (never raised). */
  late: number;
  /** Failures that did not stop the host (a write that failed, a listener that threw). */
  errors: number;
}

/**
 * Starts tallying an endpoint's events; read the returned object at any time.
 *
 * @example
 * ```ts
 * import type { Endpoint } from '@mcp-inflight/core';
 * import { tallyWire } from './wire-tally.js';
 * declare const endpoint: Endpoint;
 * const tally = tallyWire(endpoint);
 * // … calls run …
 * console.log(tally.cancelsSent.notification, tally.deadlines.IDLE_TIMEOUT ?? 0);
 * ```
 */
export function tallyWire(endpoint: Endpoint): WireTally {
  const tally: WireTally = {
    requests: 0,
    cancelsSent: { notification: 0, 'close-stream': 0 },
    deadlines: {},
    progressAccepted: 0,
    progressDropped: 0,
    late: 0,
    errors: 0,
  };
  endpoint.events
    .on('request-started', (direction) => {
      if (direction === 'outbound') tally.requests++;
    })
    .on('cancel-sent', (_id, _method, _cause, how) => {
      tally.cancelsSent[how]++;
    })
    .on('deadline-fired', (direction, _id, _method, cause) => {
      if (direction === 'outbound') tally.deadlines[cause.code] = (tally.deadlines[cause.code] ?? 0) + 1;
    })
    .on('progress-accepted', () => {
      tally.progressAccepted++;
    })
    .on('progress-dropped', () => {
      tally.progressDropped++;
    })
    .on('late', () => {
      tally.late++;
    })
    .on('error', () => {
      tally.errors++;
    });
  return tally;
}
