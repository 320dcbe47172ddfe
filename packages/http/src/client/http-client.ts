import {
  type Clock,
  Endpoint,
  hasStreamableHttp,
  isRevision,
  MODERN_REVISION,
  type ProgressRelay,
  type RequestOptions,
  type Revision,
  systemClock,
} from '@mcp-inflight/core';
import { HttpChannel } from './http-channel.js';
import { listen } from './listen.js';
import { probeRevision } from './negotiate.js';
import { DEFAULT_MAX_EVENT_SIZE } from './sse-parser.js';

/** How long close() waits for notifications already sent (a cancel) to be answered before aborting them. */
const CLOSE_FLUSH_MS = 1_000;

/**
 * Options for an {@link HttpClient}.
 *
 * @example
 * ```ts
 * import { HttpClient, type HttpClientOptions } from '@mcp-inflight/http';
 * const options: HttpClientOptions = { url: 'http://127.0.0.1:3000/mcp', revision: '2025-11-25', idleMs: 10_000 };
 * const client = new HttpClient(options);
 * ```
 */
export interface HttpClientOptions {
  /** The server's MCP endpoint, e.g. `http://127.0.0.1:3000/mcp`. */
  url: string | URL;
  /**
   * A revision to speak, or `'auto'`: try 2026-07-28 first (`server/discover`) and fall back to
   * `initialize` as the server's answer directs [H46]. 2024-11-05 has no Streamable HTTP.
   * @default 'auto'
   */
  revision?: Revision | 'auto';
  /** The fetch to use (a recording wrapper, a proxy-aware one). @default globalThis.fetch */
  fetch?: typeof fetch;
  /** Extra headers on every request (authorization, for instance). */
  headers?: Record<string, string>;
  /** Default idle limit per request (progress resets it). @default 60_000 */
  idleMs?: number;
  /** Default hard ceiling per request. @default 600_000 */
  ceilingMs?: number;
  /** Who we are. @default { name: 'mcp-inflight-http-client', version: '0.1.0' } */
  clientInfo?: { name: string; version: string; [key: string]: unknown };
  /** What we offer the server. @default {} */
  capabilities?: Record<string, unknown>;
  /**
   * Legacy resumes with `Last-Event-ID` in a row that bring no new event before a request whose stream
   * broke is given up (a server that polls [H17] brings one each time, and is followed to the end).
   * @default 2
   */
  resumeAttempts?: number;
  /**
   * The largest SSE event accepted, in characters of text (bytes, for ASCII JSON). A larger one fails its
   * request with `UPSTREAM_CLOSED` rather than being buffered; on the GET stream it is skipped.
   * @default 16 MiB
   */
  maxEventSize?: number;
  /**
   * Legacy sessions: keep the GET stream open for server requests and notifications that belong to no
   * request (list changes, pings) [H19]. @default false
   */
  listen?: boolean;
  /** Time for deadlines, resume pauses and the close() flush. @default systemClock */
  clock?: Clock;
  relay?: ProgressRelay;
}

/**
 * An MCP client over Streamable HTTP, built on core's {@link Endpoint}: progress routed per request, idle and
 * ceiling limits, and era-correct cancellation (abort the request's stream on 2026-07-28; POST
 * `notifications/cancelled` on legacy revisions). Uses only `fetch`, so it runs in browsers too.
 *
 * @example
 * ```ts
 * import { HttpClient } from '@mcp-inflight/http';
 * const client = new HttpClient({ url: 'http://127.0.0.1:3000/mcp' });
 * const result = await client.request('tools/call', { name: 'work', arguments: { steps: 3, intervalMs: 100 } }, {
 *   onprogress: (p) => console.log(`${p.progress}/${p.total}`),
 *   idleMs: 5_000,
 * });
 * await client.close();
 * ```
 */
export class HttpClient {
  /** The client endpoint (role `client`, transport `http`): stats, notification handlers, server requests. */
  readonly endpoint: Endpoint;
  /** What the server said at connect: its `initialize` or `server/discover` result. */
  serverResult: unknown;
  #channel: HttpChannel;
  #options: HttpClientOptions;
  #connecting: Promise<Revision> | undefined;
  #listening: AbortController | undefined;
  #closed = false;

  constructor(options: HttpClientOptions) {
    this.#options = options;
    const fetchFn =
      options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => globalThis.fetch(input, init));
    this.#channel = new HttpChannel({
      url: String(options.url),
      fetch: fetchFn,
      headers: options.headers ?? {},
      clock: options.clock ?? systemClock,
      resumeAttempts: options.resumeAttempts ?? 2,
      maxEventSize: options.maxEventSize ?? DEFAULT_MAX_EVENT_SIZE,
      endpoint: () => this.endpoint,
      renewSession: () => this.#renewSession(),
    });
    this.endpoint = new Endpoint({
      role: 'client',
      transport: 'http',
      channel: this.#channel,
      clock: options.clock,
      relay: options.relay,
      idleMs: options.idleMs,
      ceilingMs: options.ceilingMs,
      // The endpoint stamps both on every 2026-07-28 request [M2 M4].
      clientInfo: this.#clientInfo(),
      clientCapabilities: options.capabilities ?? {},
    });
  }

  /** The revision in use, once connected. */
  get revision(): Revision | undefined {
    return this.endpoint.revision;
  }

  /** The legacy session id, if any (2026-07-28 has none). */
  get sessionId(): string | undefined {
    return this.#channel.sessionId;
  }

  /** Settles the revision: a `server/discover` probe and/or `initialize`. Called for you by `request()`. */
  connect(): Promise<Revision> {
    if (this.#closed) return Promise.reject(new Error('the client is closed'));
    this.#connecting ??= this.#connect().catch((error: unknown) => {
      this.#connecting = undefined;
      throw error;
    });
    return this.#connecting;
  }

  /** Sends a request (connecting first if needed); options as core's `Endpoint.request`. */
  async request(
    method: string,
    params?: Record<string, unknown>,
    options?: RequestOptions,
  ): Promise<unknown> {
    await this.connect();
    return this.endpoint.request(method, params, options);
  }

  /**
   * POSTs a notification; resolves once the server accepted it (202).
   * @throws on 2026-07-28, which defines no client-to-server notifications over HTTP [H34]; a request is
   * cancelled there by aborting its `signal` (its stream closes).
   */
  async notify(method: string, params?: Record<string, unknown>): Promise<void> {
    await this.connect();
    if (this.endpoint.revision === MODERN_REVISION) {
      throw new Error(
        `2026-07-28 defines no client-to-server notifications over Streamable HTTP (tried ${method}); ` +
          'to cancel a request, abort its signal',
      );
    }
    const message = params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };
    await this.#channel.post(message);
  }

  /**
   * Ends everything in flight, then DELETEs the legacy session (a 405 answer is fine [H28]). A cancel sent
   * just before (legacy: a POST) is given up to 1 s to reach the server first.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#listening?.abort();
    this.endpoint.close();
    await this.#channel.flush(CLOSE_FLUSH_MS);
    this.#channel.abortAll();
    const sessionId = this.#channel.sessionId;
    if (!sessionId) return;
    const headers = this.#channel.headersFor({}, 'application/json, text/event-stream');
    await this.#channel
      .fetch(String(this.#options.url), { method: 'DELETE', headers })
      .then((response) => response.body?.cancel())
      .catch(() => {});
  }

  async #connect(): Promise<Revision> {
    const wanted = this.#options.revision ?? 'auto';
    if (wanted === MODERN_REVISION || wanted === 'auto') {
      const verdict = await probeRevision(this.endpoint, {}, wanted === MODERN_REVISION);
      if (verdict.revision === MODERN_REVISION) {
        this.serverResult = verdict.result;
        this.endpoint.revision = MODERN_REVISION;
        return MODERN_REVISION;
      }
      return this.#initialize(verdict.revision);
    }
    if (!hasStreamableHttp(wanted))
      throw new RangeError(`${wanted} has no Streamable HTTP; use stdio for it`);
    return this.#initialize(wanted);
  }

  /** The server ended our session (404) [H28]: a new one at the same revision, which requests wait for [H29]. */
  #renewSession(): Promise<void> {
    const revision = this.endpoint.revision;
    this.#listening?.abort();
    this.#channel.protocolVersion = undefined; // initialize goes out bare, as the first one did
    if (this.#closed) return Promise.reject(new Error('the client is closed'));
    if (revision === undefined) return Promise.reject(new Error('no session was ever started'));
    const renewing = this.#initialize(revision);
    const connecting = renewing.catch((error: unknown) => {
      if (this.#connecting === connecting) this.#connecting = undefined;
      throw error;
    });
    connecting.catch(() => {}); // its failure reaches the requests that wait on `renewing`
    this.#connecting = connecting;
    return renewing.then(() => {});
  }

  async #initialize(revision: Revision): Promise<Revision> {
    const result = (await this.endpoint.request(
      'initialize',
      {
        protocolVersion: revision,
        capabilities: this.#options.capabilities ?? {},
        clientInfo: this.#clientInfo(),
      },
      { revision },
    )) as { protocolVersion?: unknown };
    const negotiated = result?.protocolVersion;
    if (!isRevision(negotiated) || !hasStreamableHttp(negotiated) || negotiated === MODERN_REVISION) {
      throw new Error(
        `the server chose protocol version ${JSON.stringify(negotiated)}, which this client cannot use over HTTP`,
      );
    }
    this.serverResult = result;
    this.endpoint.revision = negotiated;
    this.#channel.protocolVersion = negotiated;
    await this.#channel.post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    if (this.#options.listen) this.#listen();
    return negotiated;
  }

  #listen(): void {
    const stop = new AbortController();
    this.#listening = stop;
    void listen({
      url: String(this.#options.url),
      fetch: this.#channel.fetch,
      endpoint: this.endpoint,
      headers: () => this.#channel.headersFor({}, 'text/event-stream'),
      signal: stop.signal,
      attempts: this.#options.resumeAttempts ?? 2,
      clock: this.#options.clock ?? systemClock,
      maxEventSize: this.#options.maxEventSize ?? DEFAULT_MAX_EVENT_SIZE,
    });
  }

  #clientInfo(): { name: string; version: string; [key: string]: unknown } {
    return this.#options.clientInfo ?? { name: 'mcp-inflight-http-client', version: '0.1.0' };
  }
}
