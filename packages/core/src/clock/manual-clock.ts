import { TimerQueue } from '../timers/timer-queue.js';
import type { Clock, TimerHandle } from './clock.js';

interface ManualTimer {
  dueAt: number;
  seq: number;
  fn: () => void;
  live: boolean;
}

/**
 * A clock that moves only when told to. `advance(ms)` runs every timer that falls due, in due order
 * (ties in arming order), with `now()` reading each timer's own due instant while it runs, so timers
 * armed by timers fire in the same advance when they fall inside it. Before time moves it ends the touch
 * run of the deadlines on it, so a `DeadlineController.touch()` counts from exactly the instant it was made.
 *
 * @example
 * ```ts
 * import { ManualClock } from '@mcp-inflight/core/testing';
 * const clock = new ManualClock();
 * let fired = false;
 * clock.setTimer(() => { fired = true; }, 100);
 * clock.advance(99);  // fired === false
 * clock.advance(1);   // fired === true
 * ```
 */
export class ManualClock implements Clock {
  #now: number;
  #seq = 0;
  #timers: ManualTimer[] = [];
  /** See {@link Clock.timersEndWithRequest}: set it to test code for a runtime that cancels timers. */
  readonly timersEndWithRequest: boolean;

  /**
   * @param startMs the reading of `now()` before any advance. @default 0
   * @param options `timersEndWithRequest`: claim, as workerd's clock does, that timers may be cancelled
   *   with the request that set them (pair it with {@link ManualClock.dropTimers}). @default false
   */
  constructor(startMs = 0, options: { timersEndWithRequest?: boolean } = {}) {
    this.#now = startMs;
    this.timersEndWithRequest = options.timersEndWithRequest ?? false;
  }

  now(): number {
    return this.#now;
  }

  setTimer(fn: () => void, ms: number): TimerHandle {
    const timer: ManualTimer = { dueAt: this.#now + Math.max(0, ms), seq: this.#seq++, fn, live: true };
    this.#timers.push(timer);
    return {
      clear: () => {
        if (!timer.live) return;
        timer.live = false;
        this.#timers.splice(this.#timers.indexOf(timer), 1);
      },
    };
  }

  /** How many timers have been armed so far; a mark for {@link ManualClock.dropTimers}. */
  get timersArmed(): number {
    return this.#seq;
  }

  /**
   * Cancels, without firing them, the pending timers armed while {@link ManualClock.timersArmed} went from
   * `from` to `to`: what Cloudflare Workers does to a request's timers when that request ends. The code
   * that armed them is not told. Returns how many were dropped.
   */
  dropTimers(from = 0, to = Number.POSITIVE_INFINITY): number {
    const before = this.#timers.length;
    this.#timers = this.#timers.filter((t) => {
      if (t.seq < from || t.seq >= to) return true;
      t.live = false;
      return false;
    });
    return before - this.#timers.length;
  }

  /** Timers armed and not yet fired or cleared. */
  get pendingTimers(): number {
    return this.#timers.length;
  }

  /** Moves time forward by `ms`, firing every timer that falls due on the way. */
  advance(ms: number): void {
    if (!(ms >= 0)) throw new RangeError(`advance takes a non-negative number of ms, got ${ms}`);
    const target = this.#now + ms;
    for (let next = this.#nextDue(target); next; next = this.#nextDue(target)) {
      if (next.dueAt !== this.#now) TimerQueue.endTouchRun(this);
      this.#now = next.dueAt;
      next.live = false;
      this.#timers.splice(this.#timers.indexOf(next), 1);
      next.fn();
    }
    if (target !== this.#now) TimerQueue.endTouchRun(this);
    this.#now = target;
  }

  /** Fires whatever is due now without moving time. */
  runDue(): void {
    this.advance(0);
  }

  #nextDue(limit: number): ManualTimer | undefined {
    let best: ManualTimer | undefined;
    for (const t of this.#timers) {
      if (t.dueAt > limit) continue;
      if (!best || t.dueAt < best.dueAt || (t.dueAt === best.dueAt && t.seq < best.seq)) best = t;
    }
    return best;
  }
}
