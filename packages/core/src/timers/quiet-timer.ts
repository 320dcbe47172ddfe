import type { Clock } from '../clock/clock.js';
import { type QueueEntry, TimerQueue } from './timer-queue.js';

/**
 * Calls back once a stretch of `quietMs` has passed with no `touch()`: a session with no contact from its
 * client, a stream with nothing written (time for a keep-alive). A touch costs no timer work: the window's
 * one entry, when it comes up early, re-queues itself for the rest [rule 8: released by `stop()`]. The entry
 * waits in a {@link TimerQueue}: its own by default, or one shared by many windows (an HTTP server's
 * streams), so a window opened per request costs a heap entry, not a runtime timer armed and cleared.
 */
export class QuietTimer {
  /** The clock the window is measured on. */
  readonly clock: Clock;
  /** How long without a touch counts as quiet, in ms. */
  readonly quietMs: number;
  #onQuiet: (quietMs: number) => void;
  #lastAt: number;
  #queue: TimerQueue | undefined;
  /** The window's entry in the queue (`index` -1 when not queued), made at the first start. */
  #entry: QueueEntry | undefined;

  /**
   * `queue` holds the window's entry; pass one queue on `clock` for many windows (not `TimerQueue.for`,
   * whose size the stats report as deadlines). @default a queue of its own, made at the first start
   */
  constructor(clock: Clock, quietMs: number, onQuiet: (quietMs: number) => void, queue?: TimerQueue) {
    this.clock = clock;
    this.quietMs = quietMs;
    this.#onQuiet = onQuiet;
    this.#lastAt = clock.now();
    this.#queue = queue;
  }

  /** Activity: the quiet stretch starts again from now. */
  touch(): void {
    this.#lastAt = this.clock.now();
  }

  /** Arms the timer for what is left of the window, unless it is armed already. */
  start(): void {
    if (this.#entry && this.#entry.index >= 0) return;
    if (!(this.quietMs > 0) || this.quietMs === Number.POSITIVE_INFINITY) return;
    this.#entry ??= { dueAt: 0, index: -1, fire: () => this.#due() };
    this.#entry.dueAt = Math.max(this.clock.now(), this.#lastAt + this.quietMs);
    this.#queue ??= new TimerQueue(this.clock);
    this.#queue.enqueue(this.#entry);
  }

  /** Disarms the timer; `start()` arms it again. */
  stop(): void {
    if (this.#entry) this.#queue?.cancel(this.#entry);
  }

  #due(): void {
    const quietMs = this.clock.now() - this.#lastAt;
    if (quietMs < this.quietMs) return this.start(); // touched since it was armed
    this.#onQuiet(quietMs); // the callback may touch() and start() again to keep watching
  }
}
