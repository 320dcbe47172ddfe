import type { Clock, TimerHandle } from '../clock/clock.js';

/**
 * Calls back once a stretch of `quietMs` has passed with no `touch()`: a session with no contact from its
 * client, a stream with nothing written (time for a keep-alive). A touch costs no timer work: the one
 * armed timer, when it fires early, re-arms itself for the rest of the window [rule 8: one timer, released
 * by `stop()`].
 */
export class QuietTimer {
  /** The clock the window is measured on. */
  readonly clock: Clock;
  /** How long without a touch counts as quiet, in ms. */
  readonly quietMs: number;
  #onQuiet: (quietMs: number) => void;
  #lastAt: number;
  #timer: TimerHandle | undefined;

  constructor(clock: Clock, quietMs: number, onQuiet: (quietMs: number) => void) {
    this.clock = clock;
    this.quietMs = quietMs;
    this.#onQuiet = onQuiet;
    this.#lastAt = clock.now();
  }

  /** Activity: the quiet stretch starts again from now. */
  touch(): void {
    this.#lastAt = this.clock.now();
  }

  /** Arms the timer for what is left of the window, unless it is armed already. */
  start(): void {
    if (this.#timer || !(this.quietMs > 0) || this.quietMs === Number.POSITIVE_INFINITY) return;
    const waitMs = Math.max(0, this.#lastAt + this.quietMs - this.clock.now());
    this.#timer = this.clock.setTimer(() => this.#due(), waitMs);
  }

  /** Disarms the timer; `start()` arms it again. */
  stop(): void {
    this.#timer?.clear();
    this.#timer = undefined;
  }

  #due(): void {
    this.#timer = undefined;
    const quietMs = this.clock.now() - this.#lastAt;
    if (quietMs < this.quietMs) return this.start(); // touched since it was armed
    this.#onQuiet(quietMs); // the callback may touch() and start() again to keep watching
  }
}
