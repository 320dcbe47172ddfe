import { type Clock, systemClock } from '@mcp-inflight/core';

/**
 * The system clock read in whole milliseconds, shared by the relay and both upstream legs so every deadline
 * of a relayed call lives on one clock (and one timer queue). Limits are reported from clock readings
 * (`ceilingAt - startedAt`), and fractional `performance.now()` readings would name a ceiling of
 * "1999.9999999999998 ms"; whole readings keep the limits the user set exact in every reason and error.
 *
 * @example
 * ```ts
 * import { DeadlineController } from '@mcp-inflight/core';
 * import { wholeMsClock } from './clock.js';
 * const deadline = new DeadlineController({ ceilingMs: 3_000, clock: wholeMsClock });
 * deadline.dispose();
 * ```
 */
export const wholeMsClock: Clock = {
  now: () => Math.floor(systemClock.now()),
  setTimer: (fn, ms) => systemClock.setTimer(fn, ms),
};
