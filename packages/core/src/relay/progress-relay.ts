import { EventEmitter } from 'eventemitter3';
import { type Clock, systemClock } from '../clock/clock.js';
import { isKept } from '../endpoint/kept-brand.js';
import { hasTask } from '../endpoint/messages.js';
import { hasProgressMessage, type Revision } from '../revisions/revisions.js';
import type { ProgressParams, ProgressToken } from '../schemas/types.js';
import { type QueuedTimer, TimerQueue } from '../timers/timer-queue.js';

/**
 * Default coalescing interval per route. 50 ms is 20 updates a second: faster than a progress bar can be
 * read, far faster than any idle limit needs (seconds), and it turns a flood of thousands a second into a
 * trickle a host can draw. The trailing edge is always kept, so the latest value is never lost.
 */
export const DEFAULT_MIN_INTERVAL_MS = 50;

/**
 * Why the relay refused an update.
 */
export type DropReason = 'not-finite' | 'not-increasing' | 'bad-total' | 'bad-message';

/**
 * Events a {@link ProgressRelay} emits. Listening is optional; the counters in `stats` are always kept.
 */
export interface ProgressRelayEvents {
  /** An update refused, with the reason. */
  dropped: (reason: DropReason, token: ProgressToken, progress: unknown) => void;
  /** A pending update replaced by a newer one inside the interval. */
  coalesced: (token: ProgressToken, progress: number) => void;
  /** An update for a route that has closed. */
  late: (token: ProgressToken, progress: unknown) => void;
  /** The route's `send` threw; the relay carries on. */
  sendError: (error: unknown, token: ProgressToken) => void;
}

/**
 * Counters a {@link ProgressRelay} keeps across all its routes.
 */
export interface ProgressRelayStats {
  /** Updates sent on. */
  passed: number;
  /** Updates refused (not finite, not increasing, malformed). */
  dropped: number;
  /** Updates replaced by a later one inside the interval (the latest is sent). */
  coalesced: number;
  /** Updates that arrived after their route closed, absorbed. */
  late: number;
  /** Routes open now. */
  openRoutes: number;
}

/**
 * Options for one route.
 */
export interface RouteOptions {
  /** The token to write downstream (the receiver's own token, not the one the update came in under). */
  token: ProgressToken;
  /** The revision of the downstream leg: `message` goes only where it exists [PS6]. */
  revision: Revision;
  /** Writes one notification's params downstream. Must not block; exceptions are caught and reported. */
  send: (params: ProgressParams) => void;
  /** Coalescing interval for this route; 0 sends every accepted update. @default relay's interval */
  minIntervalMs?: number;
}

/**
 * One route per in-flight request: passes on strictly increasing, finite progress, at most one per
 * interval (the latest value always wins), and nothing once closed. See {@link ProgressRelay}.
 */
export class ProgressRoute {
  /** The progress token this route serves. */
  readonly token: ProgressToken;
  /** The revision it sends under (2024-11-05 strips `message`). */
  readonly revision: Revision;
  #relay: ProgressRelay;
  #send: (params: ProgressParams) => void;
  #minIntervalMs: number;
  #withMessage: boolean;
  #closed = false;
  #last = Number.NEGATIVE_INFINITY;
  #lastSentAt = Number.NEGATIVE_INFINITY;
  #hasPending = false;
  #pendingProgress = 0;
  #pendingTotal: number | undefined;
  #pendingMessage: string | undefined;
  #flushTimer: QueuedTimer | undefined;
  /** Why the last refused update was refused (`closed`: it came after the route closed). */
  refused: DropReason | 'closed' | undefined = undefined;

  /** @internal use {@link ProgressRelay.open} */
  constructor(relay: ProgressRelay, options: RouteOptions, minIntervalMs: number) {
    this.#relay = relay;
    this.token = options.token;
    this.revision = options.revision;
    this.#send = options.send;
    this.#minIntervalMs = options.minIntervalMs ?? minIntervalMs;
    this.#withMessage = hasProgressMessage(options.revision);
  }

  /** Whether the route has closed; a closed route passes nothing. */
  get closed(): boolean {
    return this.#closed;
  }

  /** The highest progress accepted so far (`-Infinity` before the first). */
  get lastProgress(): number {
    return this.#last;
  }

  /**
   * Offers one update. Returns whether it was accepted (it may still be coalesced into a later one).
   * Positional arguments keep the hot path free of allocations.
   */
  push(progress: unknown, total?: unknown, message?: unknown): boolean {
    const relay = this.#relay;
    if (this.#closed) {
      this.refused = 'closed';
      relay.noteLate(this.token, progress);
      return false;
    }
    if (typeof progress !== 'number' || !Number.isFinite(progress)) return this.#drop('not-finite', progress);
    if (progress <= this.#last) return this.#drop('not-increasing', progress);
    if (total !== undefined && (typeof total !== 'number' || !Number.isFinite(total))) {
      return this.#drop('bad-total', progress);
    }
    // `message` matters only where the downstream revision has it; elsewhere it is stripped, not fatal.
    const text = this.#withMessage ? message : undefined;
    // A relay's long message may be a KeptString (see keepStrings): the string it stands for, passed on as is.
    if (text !== undefined && typeof text !== 'string' && !isKept(text))
      return this.#drop('bad-message', progress);
    this.#last = progress;
    // Without coalescing nothing is ever pending and no clock is read: straight out (the hot path of an
    // in-process delivery and of a relay with coalescing off).
    if (this.#minIntervalMs === 0) {
      this.#emit(progress, total as number | undefined, text as string | undefined);
      return true;
    }
    if (this.#hasPending) relay.noteCoalesced(this.token, this.#pendingProgress);
    this.#hasPending = true;
    this.#pendingProgress = progress;
    this.#pendingTotal = total;
    this.#pendingMessage = text as string | undefined; // a KeptString stands for its string
    const now = relay.clock.now();
    if (now - this.#lastSentAt >= this.#minIntervalMs) {
      this.#sendPending(now);
    } else if (!this.#flushTimer) {
      this.#flushTimer = relay.queue.schedule(this.#lastSentAt + this.#minIntervalMs, this.#onFlushTimer);
    }
    return true;
  }

  #drop(reason: DropReason, progress: unknown): false {
    this.refused = reason;
    return this.#relay.noteDropped(reason, this.token, progress);
  }

  /** Sends the pending (coalesced) value now, if any. Call before the request's result goes out. */
  flush(): void {
    if (this.#closed || !this.#hasPending) return;
    this.#sendPending(this.#relay.clock.now());
  }

  /** Closes without sending what is pending (cancel, error, deadline): nothing passes after this. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#hasPending = false;
    this.#cancelFlushTimer();
    this.#relay.noteClosed(this);
  }

  /** Flushes, then closes: for a request whose result is about to be sent. */
  finish(): void {
    this.flush();
    this.close();
  }

  /**
   * Flushes before `result` goes out and closes the route, except for a 2025-11-25 task-augmented
   * request (a `CreateTaskResult`), whose token stays live until the task's terminal status [PG14].
   * Returns whether the route closed.
   */
  settle(result: unknown): boolean {
    this.flush();
    if (this.revision === '2025-11-25' && hasTask(result)) return false;
    this.close();
    return true;
  }

  #onFlushTimer = (): void => {
    this.#flushTimer = undefined;
    if (!this.#closed && this.#hasPending) this.#sendPending(this.#relay.clock.now());
  };

  #cancelFlushTimer(): void {
    if (!this.#flushTimer) return;
    this.#relay.queue.cancel(this.#flushTimer);
    this.#flushTimer = undefined;
  }

  #sendPending(now: number): void {
    this.#hasPending = false;
    this.#lastSentAt = now;
    if (this.#flushTimer) this.#cancelFlushTimer();
    this.#emit(this.#pendingProgress, this.#pendingTotal, this.#pendingMessage);
  }

  #emit(progress: number, total: number | undefined, message: string | undefined): void {
    // One object literal per shape, so every update of a route has the same hidden class.
    const token = this.token;
    const params: ProgressParams =
      message === undefined
        ? total === undefined
          ? { progressToken: token, progress }
          : { progressToken: token, progress, total }
        : total === undefined
          ? { progressToken: token, progress, message }
          : { progressToken: token, progress, total, message };
    this.#relay.notePassed();
    try {
      this.#send(params);
    } catch (error) {
      // Sending never throws into the work that reported progress.
      this.#relay.emit('sendError', error, this.token);
    }
  }
}

/**
 * Passes progress from where it is produced (a handler, an upstream) to where it is wanted (a host),
 * one route per in-flight request. Drops non-finite and non-increasing values [PG6]; coalesces bursts to at
 * most one per interval per route, keeping the latest (trailing edge); flushes before the result; passes
 * nothing after close [PG12]; strips `message` for 2024-11-05. Counts what it dropped, coalesced and
 * absorbed late, and emits the same as events.
 *
 * @example
 * ```ts
 * import { ProgressRelay } from '@mcp-inflight/core';
 * const relay = new ProgressRelay({ minIntervalMs: 50 });
 * const route = relay.open({
 *   token: 'host-token-7',
 *   revision: '2025-06-18',
 *   send: (params) => console.log(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params })),
 * });
 * route.push(1, 10, 'first');
 * route.push(0.5);   // dropped: not increasing
 * route.finish();    // flush what is pending, then nothing more
 * route.push(2);     // absorbed late
 * relay.stats;       // { passed: 1, dropped: 1, coalesced: 0, late: 1, openRoutes: 0 }
 * ```
 */
export class ProgressRelay extends EventEmitter<ProgressRelayEvents> {
  /** The clock intervals are measured on. */
  readonly clock: Clock;
  /** @internal */
  readonly queue: TimerQueue;
  /** The least time between two updates sent on one route; newer ones inside it are coalesced. */
  readonly minIntervalMs: number;
  #passed = 0;
  #dropped = 0;
  #coalesced = 0;
  #late = 0;
  #open = 0;

  constructor(options: { clock?: Clock; minIntervalMs?: number } = {}) {
    super();
    this.clock = options.clock ?? systemClock;
    this.queue = TimerQueue.for(this.clock);
    this.minIntervalMs = options.minIntervalMs ?? DEFAULT_MIN_INTERVAL_MS;
    if (!(this.minIntervalMs >= 0))
      throw new RangeError(`minIntervalMs must be >= 0, got ${this.minIntervalMs}`);
  }

  /** Opens a route for one in-flight request. */
  open(options: RouteOptions): ProgressRoute {
    this.#open++;
    return new ProgressRoute(this, options, this.minIntervalMs);
  }

  /** A snapshot of the relay's counters. */
  get stats(): ProgressRelayStats {
    return {
      passed: this.#passed,
      dropped: this.#dropped,
      coalesced: this.#coalesced,
      late: this.#late,
      openRoutes: this.#open,
    };
  }

  /** Counts an update for a request that is no longer routed (e.g. an unknown token), absorbed. */
  noteLate(token: ProgressToken, progress: unknown): void {
    this.#late++;
    this.emit('late', token, progress);
  }

  /** @internal */
  noteDropped(reason: DropReason, token: ProgressToken, progress: unknown): false {
    this.#dropped++;
    this.emit('dropped', reason, token, progress);
    return false;
  }

  /** @internal */
  noteCoalesced(token: ProgressToken, progress: number): void {
    this.#coalesced++;
    this.emit('coalesced', token, progress);
  }

  /** @internal */
  notePassed(): void {
    this.#passed++;
  }

  /** @internal */
  noteClosed(_route: ProgressRoute): void {
    this.#open--;
  }
}
