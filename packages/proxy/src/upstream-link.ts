import {
  type Endpoint,
  InflightError,
  type RequestOptions,
  type Revision,
  type ServerIdentity,
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
      type: 'upstream-started';
      start: number;
      revision: Revision | undefined;
      serverInfo: ServerIdentity['serverInfo'];
      fallback?: string;
    }
  | { type: 'upstream-closed'; start: number }
  | { type: 'upstream-failed'; start: number; message: string };

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

  constructor(connector: UpstreamConnector, onEvent: (event: UpstreamEvent) => void = () => {}) {
    this.#connector = connector;
    this.#onEvent = onEvent;
  }

  /** The live connection, if there is one right now. */
  get current(): UpstreamConnection | undefined {
    const c = this.#current;
    return c && !c.endpoint.closed ? c : undefined;
  }

  /** The live connection, opening a fresh one when there is none. */
  get(): Promise<UpstreamConnection> {
    if (this.#closed) return Promise.reject(new InflightError('SHUTDOWN', 'the proxy is shutting down'));
    const live = this.current;
    if (live) return Promise.resolve(live);
    this.#current = undefined;
    this.#connecting ??= this.#open().finally(() => {
      this.#connecting = undefined;
    });
    return this.#connecting;
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
      this.#onEvent({ type: 'upstream-failed', start, message });
      throw new InflightError('UPSTREAM_CLOSED', `could not start the upstream: ${message}`);
    }
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
