import type { JsonRpcMessage, TimerQueue } from '@mcp-inflight/core/adapter';
import type { LiveTable } from '../shared/live-table.js';
import type { StreamEventIds } from './event-log.js';
import type { Reply } from './exchange.js';
import type { DisconnectWhy, SseSinkLimits } from './sse-sink.js';

/** What the handler's stats read of each live response stream. */
export interface LiveStream {
  /** Bytes waiting for the client: queued in the response body, or held as progress (latest per token). */
  readonly bufferedBytes: number;
  /** Bytes kept for a `Last-Event-ID` replay (legacy). */
  readonly replayBytes: number;
}

/**
 * Options for one `ResponseStream`. Its byte budget (`budgetBytes`, `stallMs`: {@link SseSinkLimits}) is
 * its connection's: progress past a small backlog is held back (latest value per token) rather than
 * queued; anything else is queued, and a backlog over the budget that does not shrink for `stallMs` ends the
 * connection (rules 8 and 13).
 */
export interface ResponseStreamOptions extends SseSinkLimits {
  /** An SSE comment after this long with nothing written; 0 turns keep-alives off. */
  keepAliveMs: number;
  /** Where the keep-alive window waits: the server's one queue for all its streams. @default its own */
  windows?: TimerQueue;
  /** What the request's `Accept` allows. */
  acceptsJson: boolean;
  acceptsSse: boolean;
  /** Extra headers for the response (session id, CORS). */
  headers: Record<string, string>;
  /** Takes the reply as soon as it exists, before `response` settles (the request's own `respond`). */
  respond?: ((reply: Reply) => void) | undefined;
  /** Handed a promise that settles when the stream ends: the runtime keeps the request's work alive till then. */
  waitUntil?: ((work: Promise<unknown>) => void) | undefined;
  /** Present for legacy streams, which are resumable with `Last-Event-ID`; absent for 2026-07-28 [H25]. */
  eventIds?: StreamEventIds;
  /** HTTP status for a final message sent as JSON. @default 200 */
  statusOf?: (final: JsonRpcMessage | JsonRpcMessage[]) => number;
  /**
   * The largest message written: a response over it is replaced by an error for its request, any other
   * message over it is dropped (counted in `oversizeMessages`).
   */
  maxMessageBytes: number;
  /** The handler's counters, for `oversizeMessages`. */
  stats?: { oversizeMessages: number };
  /** Bytes waiting for the client past which progress is held, not queued. @default HOLD_PROGRESS_AFTER_BYTES */
  holdProgressAfterBytes?: number;
  /** Every live stream of the handler, for its stats; the stream adds and removes itself. */
  live?: LiveTable<LiveStream>;
  /** The client went away before the final message, or stopped reading past the budget (`slow`). */
  onDisconnect: (why: DisconnectWhy) => void;
  /** The final is written but its connection is gone: the stream now waits for a resume (or expiry). */
  onParked?: () => void;
  /** The stream is over: `delivered` (final reached the client), `closed` (no final), `dropped` (final lost). */
  onEnd?: (outcome: StreamOutcome) => void;
}

/** How a stream ended. */
export type StreamOutcome = 'delivered' | 'closed' | 'dropped';
