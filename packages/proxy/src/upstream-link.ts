import {
  type Clock,
  type Endpoint,
  InflightError,
  type RequestOptions,
  type Revision,
  type ServerIdentity,
  systemClock,
} from '@mcp-inflight/core';
import { capabilitiesForHosts } from './relayed-methods.js';

/**
 * One live connection to the upstream server, whatever carries it. The proxy only needs to send
 * requests on it, read who the upstream is, and learn when it is gone.
 *
 * @example
 * ```ts
 * import type { UpstreamConnection } from './upstream-link.js';
 * declare const upstream: UpstreamConnection;
 * const tools = await upstream.request('tools/list', {}, { idleMs: 5_000 });
 * ```
 */
export interface UpstreamConnection {
  /** The client endpoint facing the upstream: `closed` turns true when the upstream is gone. */
  readonly endpoint: Endpoint;
  /** What the upstream said about itself at connect (initialize or server/discover). */
  readonly identity: ServerIdentity;
  /** The revision this leg speaks, when known (its session revision or its pinned one). */
  readonly revision: Revision | undefined;
  /** Why the handshake fell back to a legacy revision, when it did. */
  readonly fallback?: string;
  /** Sends one request upstream; rejects with `InflightError` (our limits, closed) or `JsonRpcError`. */
  request(
    method: string,
    params: Record<string, unknown> | undefined,
    options: RequestOptions,
  ): Promise<unknown>;
  /**
   * Settles when the connection is gone for every call (the process exited). Not when one call's
   * exchange broke: that call alone fails with UPSTREAM_CLOSED, and the connection stays in use.
   */
  readonly closed: Promise<void>;
  /** Ends the connection (kills a child process, ends an HTTP session). */
  close(): Promise<void>;
}

/** Opens a fresh upstream connection (spawn the process and initialize, or connect over HTTP). */
export type UpstreamConnector = () => Promise<UpstreamConnection>;

/** What an {@link UpstreamLink} reports about the upstream's life. */
export type UpstreamEvent =
  | {
      /** A connection is up. */
      type: 'upstream-started';
      /** Which start (1 for the first). */
      start: number;
      /** The revision it speaks. */
      revision: Revision | undefined;
      /** Who the upstream says it is. */
      serverInfo: ServerIdentity['serverInfo'];
      /** Why the handshake fell back to a legacy revision, when it did. */
      fallback?: string;
    }
  | {
      /** The connection went away (a stdio child exited). */
      type: 'upstream-closed';
      /** Which start. */
      start: number;
    }
  | {
      /** A start failed. */
      type: 'upstream-failed';
      /** Which start. */
      start: number;
      /** Why. */
      message: string;
      /** The backoff before the next start, after repeated failures. */
      retryInMs?: number;
    };

/** Options for an {@link UpstreamLink}. */
export interface UpstreamLinkOptions {
  /** Told the upstream's life: started, closed, failed. */
  onEvent?: (event: UpstreamEvent) => void;
  /**
   * The longest a call waits for a (re)start in progress before it fails with `UPSTREAM_UNAVAILABLE`
   * (the start goes on). A call's own bound may be shorter (`get(waitMs)`). @default 30_000
   */
  connectTimeoutMs?: number;
  /**
   * After two failed starts in a row, the next waits `backoffMs * 2^(failures - 2)`, at most
   * `maxBackoffMs`; meanwhile calls fail at once with `UPSTREAM_UNAVAILABLE`. @default 500
   */
  backoffMs?: number;
  /** @default 30_000 */
  maxBackoffMs?: number;
  /** @default systemClock */
  clock?: Clock;
}

/**
 * The proxy's one upstream, shared by every host. It connects on first use, keeps the connection while
 * it lives, and after the connection is gone (`closed`: a stdio child exited) hands the *next* call a
 * fresh one (in-flight calls on the dead one have already failed with UPSTREAM_CLOSED). A single call
 * failing is never taken as the connection dying. Concurrent callers share one connect attempt; a
 * failed attempt fails those callers with UPSTREAM_CLOSED naming why, and the next call tries again.
 *
 * @example
 * ```ts
 * import { UpstreamLink } from './upstream-link.js';
 * import { clientUpstream } from './upstream-client.js';
 * const link = new UpstreamLink(
 *   clientUpstream({ kind: 'stdio', commandLine: 'node examples/server/dist/index.js', revision: 'auto' }),
 * );
 * const upstream = await link.get();
 * await upstream.request('tools/list', {}, {});
 * ```
 */
export class UpstreamLink {
  /**
   * Who the upstream is as hosts see it (capabilities trimmed by `capabilitiesForHosts`), kept in one object that every host-facing lifecycle handler reads, so a fresh
   * upstream's identity reaches the next host that initializes.
   */
  readonly identity: ServerIdentity = {
    serverInfo: { name: 'mcp-inflight-proxy', version: '0.1.0' },
    capabilities: {},
  };
  /** How many upstream connections have been opened. */
  starts = 0;
  #connector: UpstreamConnector;
  #current: UpstreamConnection | undefined;
  #connecting: Promise<UpstreamConnection> | undefined;
  #closed = false;
  #onEvent: (event: UpstreamEvent) => void;
  /** The longest a call waits for a start in progress (ms). */
  readonly connectTimeoutMs: number;
  readonly #backoffMs: number;
  readonly #maxBackoffMs: number;
  readonly #clock: Clock;
  /** Failed starts in a row, the last one's message, and when the next start may begin. */
  #failures = 0;
  #lastFailure = '';
  #retryAt = 0;

  constructor(
    connector: UpstreamConnector,
    options: UpstreamLinkOptions | ((event: UpstreamEvent) => void) = {},
  ) {
    const o = typeof options === 'function' ? { onEvent: options } : options;
    this.#connector = connector;
    this.#onEvent = o.onEvent ?? (() => {});
    this.connectTimeoutMs = o.connectTimeoutMs ?? 30_000;
    this.#backoffMs = o.backoffMs ?? 500;
    this.#maxBackoffMs = o.maxBackoffMs ?? 30_000;
    this.#clock = o.clock ?? systemClock;
  }

  /** Why the upstream cannot take calls now, or `undefined` when it is connected. */
  get unready(): string | undefined {
    if (this.#closed) return 'the proxy is shutting down';
    if (this.current) return undefined;
    if (this.#connecting) return `the upstream is starting (start #${this.starts})`;
    if (this.#failures > 0)
      return `the upstream failed to start ${this.#failures} time(s): ${this.#lastFailure}`;
    return 'the upstream is not connected';
  }

  /** The live connection, if there is one right now. */
  get current(): UpstreamConnection | undefined {
    const c = this.#current;
    return c && !c.endpoint.closed ? c : undefined;
  }

  /**
   * The live connection, opening a fresh one when there is none: one start at a time, shared by every
   * caller. A caller waits at most `waitMs` (and never past {@link UpstreamLink.connectTimeoutMs}), then
   * fails with `UPSTREAM_UNAVAILABLE` while the start goes on; after repeated failed starts, calls fail at
   * once until the backoff has passed.
   */
  get(waitMs: number = Number.POSITIVE_INFINITY): Promise<UpstreamConnection> {
    if (this.#closed) return Promise.reject(new InflightError('SHUTDOWN', 'the proxy is shutting down'));
    const live = this.current;
    if (live) return Promise.resolve(live);
    this.#current = undefined;
    if (!this.#connecting) {
      const wait = this.#retryAt - this.#clock.now();
      if (wait > 0) {
        return Promise.reject(
          new InflightError(
            'UPSTREAM_UNAVAILABLE',
            `the upstream failed to start ${this.#failures} times in a row (last: ${this.#lastFailure}); next start in ${Math.ceil(wait)} ms`,
          ),
        );
      }
      this.#connecting = this.#open().finally(() => {
        this.#connecting = undefined;
      });
    }
    const connecting = this.#connecting;
    const boundMs = Math.min(waitMs, this.connectTimeoutMs);
    if (!Number.isFinite(boundMs)) return connecting;
    const start = this.starts;
    return new Promise<UpstreamConnection>((resolve, reject) => {
      const timer = this.#clock.setTimer(
        () =>
          reject(
            new InflightError(
              'UPSTREAM_UNAVAILABLE',
              `the upstream is not ready: start #${start} still connecting after ${boundMs} ms`,
            ),
          ),
        boundMs,
      );
      connecting.then(
        (c) => {
          timer.clear();
          resolve(c);
        },
        (e: unknown) => {
          timer.clear();
          reject(e);
        },
      );
    });
  }

  /** Closes the current connection and refuses new ones. */
  async close(): Promise<void> {
    this.#closed = true;
    const c = this.#current;
    this.#current = undefined;
    await this.#connecting?.catch(() => undefined);
    await c?.close().catch(() => {});
  }

  async #open(): Promise<UpstreamConnection> {
    const start = ++this.starts;
    let connection: UpstreamConnection;
    try {
      connection = await this.#connector();
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.#failures++;
      this.#lastFailure = message;
      const retryInMs =
        this.#failures < 2 ? 0 : Math.min(this.#maxBackoffMs, this.#backoffMs * 2 ** (this.#failures - 2));
      this.#retryAt = this.#clock.now() + retryInMs;
      this.#onEvent({ type: 'upstream-failed', start, message, ...(retryInMs > 0 ? { retryInMs } : {}) });
      throw new InflightError('UPSTREAM_UNAVAILABLE', `could not start the upstream: ${message}`);
    }
    this.#failures = 0;
    if (this.#closed) {
      await connection.close().catch(() => {});
      throw new InflightError('SHUTDOWN', 'the proxy is shutting down');
    }
    const { serverInfo, capabilities, instructions } = connection.identity;
    this.identity.serverInfo = serverInfo;
    this.identity.capabilities = capabilitiesForHosts(capabilities);
    if (instructions === undefined) delete this.identity.instructions;
    else this.identity.instructions = instructions;
    this.#current = connection;
    this.#onEvent({
      type: 'upstream-started',
      start,
      revision: connection.revision,
      serverInfo: connection.identity.serverInfo,
      ...(connection.fallback === undefined ? {} : { fallback: connection.fallback }),
    });
    // Only the connection itself going away (a stdio child exiting) makes it dead. One call failing with
    // UPSTREAM_CLOSED is not enough: over HTTP that is one broken exchange, and the other calls on the
    // same upstream are fine, so closing it would fail them all (and cancel them upstream on 2026-07-28).
    void connection.closed.then(() => {
      if (this.#current === connection) this.#current = undefined;
      // Reaps what is left: a child that closed its output but has not exited yet is stopped.
      void connection.close().catch(() => {});
      if (!this.#closed) this.#onEvent({ type: 'upstream-closed', start });
    });
    return connection;
  }
}
