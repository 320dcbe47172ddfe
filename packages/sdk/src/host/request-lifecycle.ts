import { DeadlineController, InflightError } from '@mcp-inflight/core';
import { MAX_TIMER_MS, type ProgressRoute } from '@mcp-inflight/core/adapter';
import { inflightErrorFromSdk } from '../errors.js';
import type { SdkRequestOptions } from '../shapes.js';

/**
 * Default idle window: the SDK's own 60 s default, except that here progress pushes it forward.
 *
 * @example
 * ```ts
 * import { DEFAULT_CEILING_MS, DEFAULT_IDLE_MS } from '@mcp-inflight/sdk';
 * const limits = { idleMs: DEFAULT_IDLE_MS / 2, ceilingMs: DEFAULT_CEILING_MS }; // 30 s idle, 10 min in all
 * ```
 */
export const DEFAULT_IDLE_MS = 60_000;
/**
 * Default hard ceiling: ten minutes, whatever progress says [TO8]. See {@link DEFAULT_IDLE_MS}.
 *
 * @example
 * ```ts
 * import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
 * import { callWithDeadline, DEFAULT_CEILING_MS } from '@mcp-inflight/sdk';
 * declare const client: Client;
 * // A reindex may take up to an hour: six times the default, and still bounded.
 * const request = { method: 'tools/call' as const, params: { name: 'reindex' } };
 * await callWithDeadline(client, request, { ceilingMs: 6 * DEFAULT_CEILING_MS });
 * ```
 */
export const DEFAULT_CEILING_MS = 600_000;

/** The deadline half of the options (shared by hosts and proxies). @internal */
export interface DeadlineLimits {
  idleMs?: number | undefined;
  ceilingMs?: number | undefined;
  clock?: DeadlineController['clock'] | undefined;
  deadline?: DeadlineController | undefined;
}

/** How one leg reads its inputs and names its outputs. @internal */
export interface Leg {
  /**
   * Opens the route accepted progress goes through; called on the first progress only (many calls never see
   * one, and a route costs a few hundred bytes). Closed when the call ends, flushed first when it succeeds.
   */
  openRoute: () => ProgressRoute;
  /** Aborting it cancels the call; its reason is read with `fromAbort`. */
  signal: AbortSignal | undefined;
  fromAbort: (reason: unknown) => InflightError;
  /** What a closed SDK connection means on this leg: our own link, or a proxy's upstream. */
  closedAs: 'DISCONNECTED' | 'UPSTREAM_CLOSED';
}

/**
 * The one request lifecycle under both the host helper and the proxy relay: a deadline, an SDK-facing
 * signal aborted with the wire reason, progress as activity, and errors read into causes. @internal
 */
export async function runRequestLifecycle<T>(
  run: (sdk: SdkRequestOptions) => PromiseLike<T>,
  limits: DeadlineLimits,
  leg: Leg,
): Promise<T> {
  // The SDK sees its own signal, aborted with our honest wire reason: both SDKs send `String(reason)` as
  // the `reason` of notifications/cancelled [TO4a], so the server learns which limit fired.
  const sdkAbort = new AbortController();
  let endCall: ((error: InflightError) => void) | undefined;
  const deadline = new DeadlineController({
    idleMs: limits.idleMs ?? DEFAULT_IDLE_MS,
    ceilingMs: limits.ceilingMs ?? DEFAULT_CEILING_MS,
    ...(limits.clock ? { clock: limits.clock } : {}),
    ...(limits.deadline ? { parent: limits.deadline } : {}),
    // A hook, not a signal listener: the deadline then never builds an AbortController of its own.
    onAbort: (reason) => {
      const error = InflightError.from(reason);
      sdkAbort.abort(error.wireReason());
      endCall?.(error);
    },
  });
  const signal = leg.signal;
  // A caller's stop is never reported as a timeout (SDK #2165): it keeps its own cause.
  const onCallerAbort = (): void => deadline.cancel(leg.fromAbort(signal!.reason));
  if (signal?.aborted) onCallerAbort();
  else signal?.addEventListener('abort', onCallerAbort, { once: true });
  let route: ProgressRoute | undefined;
  let settled = false;
  try {
    // Nothing goes on the wire for a call that is over before it starts (v1 would reject with the raw reason).
    if (deadline.aborted) throw InflightError.from(deadline.reason);
    const sdk: SdkRequestOptions = {
      signal: sdkAbort.signal,
      timeout: MAX_TIMER_MS, // effectively infinite: our ceiling fires first, on its own timer (SDK #2695)
      resetTimeoutOnProgress: false,
      onprogress: (progress) => {
        if (settled) return; // the SDK unregisters on settle; this only guards against opening a new route
        route ??= leg.openRoute();
        // Only accepted progress is activity: a repeated or falling value does not keep a call alive.
        if (route.push(progress.progress, progress.total, progress.message)) deadline.touch();
      },
    };
    const result = await new Promise<T>((resolve, reject) => {
      endCall = reject; // the deadline ends the call at once; the SDK's own rejection comes later, ignored
      Promise.resolve(run(sdk)).then(resolve, reject);
    });
    route?.flush(); // the last coalesced value goes out before the result does
    return result;
  } catch (error) {
    // Whatever the SDK said (v1: -32001 "Request timed out" for a user's abort), our reason is the truth.
    if (deadline.aborted) throw InflightError.from(deadline.reason);
    throw inflightErrorFromSdk(error, leg.closedAs);
  } finally {
    settled = true;
    route?.close();
    signal?.removeEventListener('abort', onCallerAbort);
    deadline.dispose();
  }
}
