/**
 * A handle to an armed timer; `clear()` disarms it and is safe to call more than once.
 *
 * @example
 * ```ts
 * import { systemClock, type TimerHandle } from '@mcp-inflight/core';
 * const handle: TimerHandle = systemClock.setTimer(() => console.log('never runs'), 1_000);
 * handle.clear();
 * handle.clear(); // a second clear is a no-op
 * ```
 */
export interface TimerHandle {
  /** Cancels the timer; a no-op once it has fired or been cleared. */
  clear(): void;
  /**
   * Optional: the timer stops keeping the process alive (Node's `Timeout.unref`). A clock whose timers
   * have it lets the deadline queue leave its one timer set when the queue empties, so the next
   * deadline costs no timer work; without it the queue clears the timer instead.
   */
  unref?(): void;
  /** Optional, with `unref`: the timer keeps the process alive again. */
  ref?(): void;
}

/**
 * The source of time for everything in mcp-inflight. Inject a {@link @mcp-inflight/core/testing!ManualClock}
 * in tests so that nothing sleeps, or a custom clock to run deadlines on a runtime's own timers.
 *
 * @example
 * ```ts
 * import { systemClock } from '@mcp-inflight/core';
 * const startedAt = systemClock.now();
 * const timer = systemClock.setTimer(() => console.log('fired'), 1_000);
 * timer.clear();
 * ```
 */
export interface Clock {
  /** Milliseconds on a monotonic-enough scale; only differences are meaningful. */
  now(): number;
  /** Runs `fn` once, `ms` milliseconds from now. */
  setTimer(fn: () => void, ms: number): TimerHandle;
  /**
   * Optional: a timer may be cancelled, without firing, when the request that set it ends (Cloudflare
   * Workers). The deadline queue then also gives each entry it queues a wake-up of its own, set by the code
   * that queued it, instead of trusting one timer another request set; such a clock's `setTimer` gets the
   * delay as it is (clamp it as {@link systemClock} does). {@link systemClock} sets it on workerd.
   */
  readonly timersEndWithRequest?: boolean;
}

/**
 * Timers longer than this overflow in every JavaScript runtime; longer delays re-arm in steps.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The real clock: `performance.now()` (monotonic; every runtime the packages run on has it) and `setTimeout`.
 *
 * @example
 * ```ts
 * import { DeadlineController, systemClock } from '@mcp-inflight/core';
 * const deadline = new DeadlineController({ idleMs: 60_000, clock: systemClock });
 * deadline.dispose();
 * ```
 */
export const systemClock: Clock = {
  now: () => performance.now(),
  setTimer(fn, ms) {
    const id = setTimeout(fn, Math.min(Math.max(0, ms), MAX_TIMER_MS)) as ReturnType<typeof setTimeout> &
      Partial<TimerHandle>;
    // Node's timers can stop holding the process; a browser's are numbers and hold nothing anyway.
    return { clear: () => clearTimeout(id), ref: () => id.ref?.(), unref: () => id.unref?.() };
  },
  // workerd (its Workers-only WebSocketPair global tells it apart): its timers die with their request.
  timersEndWithRequest: 'WebSocketPair' in globalThis,
};

/**
 * Adapts a {@link Clock} to the `customTimers` shape that p-timeout takes, so promise bounds run on
 * the injected clock too.
 */
export function timersOf(clock: Clock): {
  /** Arms a timer on the clock. */
  setTimeout: (fn: () => void, ms: number) => TimerHandle;
  /** Clears a timer; `undefined` is a no-op. */
  clearTimeout: (handle: TimerHandle | undefined) => void;
} {
  return {
    setTimeout: (fn, ms) => clock.setTimer(fn, ms),
    clearTimeout: (handle) => handle?.clear(),
  };
}
