import type { ProgressToken, Revision } from '@mcp-inflight/core';
import type { ProgressRoute } from '@mcp-inflight/core/adapter';
import { type RelayOptions, sharedRelay } from '../relay-for.js';
import type { HandlerContext } from '../shapes.js';
import { readInbound } from './inbound.js';

/**
 * Options for {@link progressReporter} and {@link withProgress}.
 *
 * @example
 * ```ts
 * import { type HandlerContext, type ProgressReporterOptions, progressReporter } from '@mcp-inflight/sdk';
 * declare const extra: HandlerContext;
 * const options: ProgressReporterOptions = {
 *   minIntervalMs: 0, // a slow tool with few updates: send every accepted value
 *   onSendError: (error) => console.error('progress not sent', error), // the tool never sees this
 * };
 * using progress = progressReporter(extra, options);
 * ```
 */
export interface ProgressReporterOptions extends RelayOptions {
  /** Coalescing interval: at most one notification per this many ms, the latest kept. @default 50 */
  minIntervalMs?: number;
  /** The host's revision, when the SDK does not say (v1 over stdio): `2024-11-05` drops `message`. */
  revision?: Revision;
  /** Called with whatever sending a notification threw or rejected with; never reaches the tool. */
  onSendError?: (error: unknown) => void;
}

/**
 * Progress for one request, safe to call from any tool code: a no-op without a token, strictly increasing
 * values only, bursts coalesced, never blocks or throws, and silent once the request has settled or been
 * cancelled. Get one with {@link progressReporter} or {@link withProgress}.
 *
 * @example
 * ```ts
 * import type { ProgressReporter } from '@mcp-inflight/sdk';
 * function copyFiles(files: string[], progress: ProgressReporter): void {
 *   files.forEach((file, i) => progress.report(i + 1, files.length, `copied ${file}`));
 *   if (!progress.active) console.log('nobody is listening (no token, or the request ended)');
 * }
 * ```
 */
export interface ProgressReporter {
  /** The host's token; `undefined` when it asked for no progress (then every report is a no-op). */
  readonly token: ProgressToken | undefined;
  /** Whether a report can still go out: a token was given and the request is neither settled nor cancelled. */
  readonly active: boolean;
  /**
   * Offers one update. Returns whether it was accepted (it may still be merged into a later one inside the
   * coalescing interval). Refused: no token, not finite, not above the last value [PG6], after the end [PG12].
   */
  report(progress: number, total?: number, message?: string): boolean;
  /** Sends what is pending, then stops: call just before the result goes out. Idempotent. */
  finish(): void;
  /** Stops without sending what is pending (the request failed or was cancelled). Idempotent. */
  close(): void;
  /** Same as {@link ProgressReporter.finish}, so `using progress = progressReporter(extra)` ends with the scope. */
  [Symbol.dispose](): void;
}

class RouteReporter implements ProgressReporter {
  readonly token: ProgressToken;
  #route: ProgressRoute;
  #signal: AbortSignal;

  constructor(token: ProgressToken, route: ProgressRoute, signal: AbortSignal) {
    this.token = token;
    this.#route = route;
    this.#signal = signal;
    // A cancelled request gets no more progress [CN9 PG12]; v2's notify does not check this itself.
    signal.addEventListener('abort', this.#onAbort, { once: true });
  }

  get active(): boolean {
    return !this.#route.closed;
  }

  report(progress: number, total?: number, message?: string): boolean {
    return this.#route.push(progress, total, message);
  }

  finish(): void {
    this.#signal.removeEventListener('abort', this.#onAbort);
    this.#route.finish();
  }

  close(): void {
    this.#signal.removeEventListener('abort', this.#onAbort);
    this.#route.close();
  }

  [Symbol.dispose](): void {
    this.finish();
  }

  #onAbort = (): void => this.close();
}

const INACTIVE: ProgressReporter = Object.freeze({
  token: undefined,
  active: false,
  report: () => false,
  finish: () => {},
  close: () => {},
  [Symbol.dispose]: () => {},
});

/**
 * A progress reporter for the request an SDK handler is serving, from its `extra` (v1) or `ctx` (v2).
 * Progress goes to the host's token through a {@link @mcp-inflight/core!ProgressRelay} route, related to the
 * request so that on HTTP it travels on that request's own stream. Call `finish()` before returning (or
 * declare it with `using`), or let {@link withProgress} do it.
 *
 * @example
 * ```ts
 * import { progressReporter } from '@mcp-inflight/sdk';
 * // inside a v1 tool: async ({ steps }, extra) => { ... }
 * // inside a v2 tool: async ({ steps }, ctx) => { ... }  (pass ctx instead of extra)
 * async function work(steps: number, extra: Parameters<typeof progressReporter>[0]) {
 *   using progress = progressReporter(extra);
 *   for (let i = 1; i <= steps; i++) progress.report(i, steps, `step ${i}`);
 *   return { content: [{ type: 'text' as const, text: 'done' }] };
 * }
 * ```
 */
export function progressReporter(
  context: HandlerContext,
  options: ProgressReporterOptions = {},
): ProgressReporter {
  const inbound = readInbound(context, options.revision);
  // No token, no progress [PS3]; an already-cancelled request gets none either.
  if (inbound.token === undefined || inbound.signal.aborted) return INACTIVE;
  const onSendError = options.onSendError;
  const route = sharedRelay(options).open({
    token: inbound.token,
    revision: inbound.revision,
    ...(options.minIntervalMs === undefined ? {} : { minIntervalMs: options.minIntervalMs }),
    send: (params) => {
      // Never throws into the tool: a sync throw or a rejection (closed transport) goes to onSendError.
      try {
        inbound
          .notify({ method: 'notifications/progress', params })
          .catch((error: unknown) => onSendError?.(error));
      } catch (error) {
        onSendError?.(error);
      }
    },
  });
  return new RouteReporter(inbound.token, route, inbound.signal);
}
