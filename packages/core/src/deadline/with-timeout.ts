import pTimeout from 'p-timeout';
import { type Clock, systemClock, timersOf } from '../clock/clock.js';
import { InflightError } from '../errors/inflight-error.js';

/**
 * Options for {@link withTimeout}.
 *
 * @example
 * ```ts
 * import { type WithTimeoutOptions, withTimeout } from '@mcp-inflight/core';
 * const stop = new AbortController();
 * const options: WithTimeoutOptions = { signal: stop.signal };
 * const never = new Promise<never>(() => {});
 * const outcome = withTimeout(never, 10_000, options).catch((error: unknown) => error);
 * stop.abort('user pressed stop'); // `outcome` rejects at once with 'user pressed stop', not with a CEILING
 * ```
 */
export interface WithTimeoutOptions {
  /** The time source whose timers bound the promise. @default systemClock */
  clock?: Clock | undefined;
  /** Rejects early with this signal's reason when it aborts. */
  signal?: AbortSignal | undefined;
}

/**
 * Bounds a promise by a fixed time on the injected clock, rejecting with a CEILING {@link InflightError}
 * when it passes (or with `signal.reason` if the signal aborts first). For a deadline that progress can
 * push back, use {@link DeadlineController.race} instead.
 *
 * @example
 * ```ts
 * import { withTimeout } from '@mcp-inflight/core';
 * const answer = await withTimeout(fetch('http://127.0.0.1:1/'), 5_000).catch((error) => error.code);
 * ```
 */
export function withTimeout<T>(
  work: PromiseLike<T>,
  ms: number,
  options: WithTimeoutOptions = {},
): Promise<T> {
  const clock = options.clock ?? systemClock;
  const bounded: Promise<T> = pTimeout(Promise.resolve(work), {
    milliseconds: ms,
    customTimers: timersOf(clock) as never,
    message: InflightError.ceiling(ms),
    // An absent signal stays absent: p-timeout's options do not take `signal: undefined` under strict settings.
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  return bounded;
}
