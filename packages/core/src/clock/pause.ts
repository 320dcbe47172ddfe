import type { Clock } from './clock.js';

/**
 * Waits `ms` on `clock` (so `ManualClock` drives it in tests), or rejects with the signal's reason as soon
 * as `signal` aborts; the timer is cleared either way.
 */
export function pause(ms: number, signal: AbortSignal, clock: Clock): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = (): void => {
      timer.clear();
      reject(signal.reason);
    };
    const timer = clock.setTimer(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Settles when `work` does, or after `ms` on `clock`, whichever comes first; never rejects. For a close
 * that waits for what is in flight, but not for ever.
 */
export function settleWithin(work: Promise<unknown>, ms: number, clock: Clock): Promise<void> {
  return new Promise((resolve) => {
    const timer = clock.setTimer(resolve, ms);
    const settle = (): void => {
      timer.clear();
      resolve();
    };
    void work.then(settle, settle);
  });
}

/** A wait on a clock that its owner can end early: `wake()` resolves `slept` at once. */
export interface Nap {
  /** Resolves when the time is up or `wake()` was called. */
  readonly slept: Promise<void>;
  /** Ends the wait now (a no-op once it has ended). */
  wake(): void;
}

/** Starts a {@link Nap} of `ms` on `clock`: a poll or retry loop's wait that news can cut short. */
export function nap(ms: number, clock: Clock): Nap {
  let wake: () => void = noop;
  const slept = new Promise<void>((resolve) => {
    const timer = clock.setTimer(() => wake(), ms);
    wake = () => {
      timer.clear();
      wake = noop;
      resolve();
    };
  });
  return { slept, wake: () => wake() };
}

function noop(): void {}
