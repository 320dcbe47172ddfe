import type { Endpoint } from '@mcp-inflight/core';
import { JsonRpcError, JsonRpcErrorCode } from '@mcp-inflight/core';
import { isEmptyFilter, LISTEN_METHOD, type ListenFilter, type Nap, nap } from '@mcp-inflight/core/adapter';

/** The first pause before a new stream after one ended; doubled per failure in a row, up to the cap. */
const FIRST_PAUSE_MS = 1_000;
const MAX_PAUSE_MS = 30_000;

/** What a {@link ListenLoop} needs from its client. */
export interface ListenLoopOptions {
  endpoint: Endpoint;
  /** The filter to ask for now; an empty one means no stream. */
  filter: () => ListenFilter;
  /** The server's own advice for the pause before a new stream (an SSE `retry`), if it gave one. */
  retryMs?: (() => number | undefined) | undefined;
}

/**
 * Keeps one 2026-07-28 `subscriptions/listen` stream open for a client, for as long as it asks for
 * something: the request has no idle limit and no ceiling (it is meant to stay open [L12]); a server's end,
 * by the listen response [L11] or by `notifications/cancelled` [CN3], and a dropped stream are followed by
 * a new `listen` after a pause (the server's `retry` if it gave one, else 1 s doubling to 30 s while they
 * fail), since a server keeps no subscription across connections [LS4 LS5]. A new filter replaces the stream;
 * `stop()` cancels it era-correctly (its stream closed on HTTP, `notifications/cancelled` on stdio [CN27]).
 */
export class ListenLoop {
  #options: ListenLoopOptions;
  #running = false;
  #stopped = false;
  #unsupported = false;
  #current: AbortController | undefined;
  #nap: Nap | undefined;
  /** Listen requests sent so far. */
  opened = 0;

  constructor(options: ListenLoopOptions) {
    this.#options = options;
  }

  /** The filter may have changed (or the client just connected): (re)open the stream now. */
  refresh(): void {
    if (this.#stopped || this.#unsupported) return;
    if (!this.#running) {
      this.#running = true;
      void this.#run();
      return;
    }
    this.#current?.abort(new Error('the listen filter changed'));
    this.#wake();
  }

  /** Ends the stream for good. */
  stop(): void {
    this.#stopped = true;
    this.#current?.abort(new Error('the client stopped listening'));
    this.#wake();
  }

  async #run(): Promise<void> {
    const { endpoint } = this.#options;
    let failures = 0;
    try {
      while (!this.#stopped && !endpoint.closed) {
        const filter = this.#options.filter();
        if (isEmptyFilter(filter)) return;
        const stop = new AbortController();
        this.#current = stop;
        this.opened++;
        try {
          await endpoint.request(
            LISTEN_METHOD,
            { notifications: filter },
            {
              idleMs: Number.POSITIVE_INFINITY,
              ceilingMs: Number.POSITIVE_INFINITY,
              progress: false,
              signal: stop.signal,
            },
          );
          failures = 0; // the server ended it on purpose: a new one after the first pause
        } catch (error) {
          if (stop.signal.aborted) continue; // stopped, or a new filter: no pause
          if (endpoint.closed) return; // the connection is gone: no timer may outlive it
          if (error instanceof JsonRpcError && error.code === JsonRpcErrorCode.MethodNotFound) {
            this.#unsupported = true; // this server has no listen streams [H43]
            return;
          }
          failures++;
        } finally {
          this.#current = undefined;
        }
        const backoffMs = Math.min(FIRST_PAUSE_MS * 2 ** Math.max(0, failures - 1), MAX_PAUSE_MS);
        await this.#sleep(this.#options.retryMs?.() ?? backoffMs);
      }
    } finally {
      this.#running = false;
    }
  }

  #sleep(ms: number): Promise<void> {
    this.#nap = nap(ms, this.#options.endpoint.clock);
    return this.#nap.slept;
  }

  #wake(): void {
    this.#nap?.wake();
  }
}
