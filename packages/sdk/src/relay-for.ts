import { type Clock, ProgressRelay, systemClock } from '@mcp-inflight/core';

const relays = new WeakMap<Clock, ProgressRelay>();

/**
 * Options shared by every helper that relays progress.
 *
 * @example
 * ```ts
 * import { ProgressRelay } from '@mcp-inflight/core';
 * import { type RelayOptions, sharedRelay } from '@mcp-inflight/sdk';
 * const relay = new ProgressRelay(); // this server's own relay, so its counters are its own
 * const options: RelayOptions = { progressRelay: relay };
 * sharedRelay(options) === relay; // true: a relay you pass is the one used
 * setInterval(() => console.error(relay.stats), 60_000).unref();
 * ```
 */
export interface RelayOptions {
  /**
   * The relay whose routes carry this request's progress; pass one to read its `stats` (passed, dropped,
   * coalesced, late). @default one shared relay per clock
   */
  progressRelay?: ProgressRelay;
  /** The time source for coalescing and deadlines. @default systemClock */
  clock?: Clock;
}

/**
 * The relay a helper uses: the caller's, else one shared per clock, so the counters of all calls add up in
 * one place and coalescing timers share the clock's one timer queue.
 *
 * @example
 * ```ts
 * import { sharedRelay } from '@mcp-inflight/sdk';
 * sharedRelay().stats; // { passed, dropped, coalesced, late, openRoutes }
 * ```
 */
export function sharedRelay(options: RelayOptions = {}): ProgressRelay {
  if (options.progressRelay) return options.progressRelay;
  const clock = options.clock ?? systemClock;
  let relay = relays.get(clock);
  if (!relay) {
    relay = new ProgressRelay({ clock });
    relays.set(clock, relay);
  }
  return relay;
}
