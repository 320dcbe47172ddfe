// The call relay's one record of a call in flight, and the event it ends as.
import { type Endpoint, InflightError, type RequestContext, type Revision } from '@mcp-inflight/core';
import type { IdTable } from '@mcp-inflight/core/adapter';
import { argumentsForLog, type CallEvent, type CallOutcome, emptyStats, type ProxyStats } from './events.js';
import type { InputFlow } from './input-flow.js';

/**
 * One relayed call in flight: the relay's one record of it, from the host's request to its end. Shutdown
 * walks these, stats and metrics count them, the input broker finds the call an upstream's request
 * belongs to through them (`flow`), and the record is the flow's round (where its progress goes).
 */
export class RelayedCall {
  /** The host's label (`stdio`, `http session …`, `http request`). */
  readonly host: string;
  /** The revision the host's request was served under. */
  readonly revision: Revision;
  /** When the host asked, on the relay's clock. */
  startedAt = 0;
  /** The upstream call's input flow, once it has one (a task call has none). */
  flow: InputFlow | undefined = undefined;
  /** Upstream progress accepted for this call, and how much of it reached the host. */
  progressIn = 0;
  progressOut = 0;

  constructor(
    /** The relay's key for the call (host ids repeat across hosts). */
    readonly key: number,
    /** The host-facing endpoint the request came in on. */
    readonly endpoint: Endpoint,
    host: string,
    /** The host's request. */
    readonly ctx: RequestContext,
    /** Its params, as given to the relay step. */
    readonly params: Record<string, unknown> | undefined,
  ) {
    this.host = host;
    this.revision = ctx.revision;
  }

  /** The event the call ends as: how, why, how much progress passed, how long it took. */
  endEvent(
    outcome: CallOutcome,
    error: InflightError | Error | undefined,
    now: number,
    logArguments: boolean,
  ) {
    const { ctx, params } = this;
    const event: CallEvent = {
      type: 'call',
      host: this.host,
      hostRevision: ctx.revision,
      id: ctx.id,
      method: ctx.method,
      outcome,
      progressIn: this.progressIn,
      progressOut: this.progressOut,
      ms: now - this.startedAt,
    };
    const name = nameOf(params);
    if (name !== undefined) event.name = name;
    if (logArguments && ctx.method === 'tools/call' && params?.arguments !== undefined)
      event.arguments = argumentsForLog(params.arguments);
    if (error instanceof InflightError) event.cause = error.code;
    if (error)
      event.message =
        error instanceof InflightError && outcome === 'cancelled' ? error.wireReason() : error.message;
    return event;
  }
}

/** The relay's totals, whose `inFlight` is the call table's size (one record of each call, not two). */
export function totalsOver(calls: IdTable<RelayedCall>): ProxyStats {
  const stats = emptyStats();
  Object.defineProperty(stats, 'inFlight', { get: () => calls.size, enumerable: true });
  return stats;
}

function nameOf(params: Record<string, unknown> | undefined): string | undefined {
  const name = params?.name ?? params?.uri;
  return typeof name === 'string' ? name : undefined;
}
