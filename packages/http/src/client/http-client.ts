import {
  type ClientIdentity,
  type Clock,
  type ConnectOptions,
  connectLifecycle,
  Endpoint,
  MODERN_REVISION,
  type ProgressRelay,
  type Revision,
  systemClock,
} from '@mcp-inflight/core';
import { LifecycleClient, type ServerHandshake } from '@mcp-inflight/core/adapter';
import { HttpChannel } from './http-channel.js';
import { listen } from './listen.js';
import { DEFAULT_MAX_EVENT_CHARS } from './sse-parser.js';

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
  clientInfo?: {
    /** The implementation's name. */
    name: string;
    /** Its version. */
    version: string;
    [key: string]: unknown;
  };
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
  maxEventChars?: number;
  /**
   * Receive what the server sends outside any call, with no further set-up. Legacy sessions: the GET
   * stream is kept open (reopened with `Last-Event-ID` after a drop) for server requests and notifications
   * that belong to no request (list changes, pings, `roots/list`) [H19]. 2026-07-28: a
   * `subscriptions/listen` stream is kept open for the list changes the client has handlers for
   * (`onNotification`) and the resources it subscribed to, reopened after a drop. `false` turns both off:
   * then a legacy server's request outside a call waits unanswered until its own limit. Each costs one
   * long-lived connection (a browser allows about six per origin on HTTP/1.1). @default true
   */
  listen?: boolean;
  /** Time for deadlines, resume pauses and the close() flush. @default systemClock */
  clock?: Clock;
  /** Share one relay (and its counters) among clients. @default a new relay on `clock` */
  progressRelay?: ProgressRelay;
}

/**
 * An MCP client over Streamable HTTP: the {@link @mcp-inflight/core!McpClient} every transport implements,
 * built on core's {@link Endpoint}: progress routed per request, idle and ceiling limits, and era-correct
 * cancellation (abort the request's stream on 2026-07-28; POST `notifications/cancelled` on legacy
 * revisions). Uses only `fetch`, so it runs in browsers too.
 *
 * @example
 * ```ts
 * import { HttpClient } from '@mcp-inflight/http';
 * const client = new HttpClient({ url: 'http://127.0.0.1:3000/mcp' });
 * const server = await client.connect(); // 2026-07-28 when the server speaks it, else initialize
 * const result = await client.callTool('work', { steps: 3, intervalMs: 100 }, {
 *   onprogress: (p) => console.log(`${p.progress}/${p.total}`),
 *   idleMs: 5_000,
 * });
 * await client.close();
 * ```
 */
export class HttpClient extends LifecycleClient {
  #channel: HttpChannel;
  #options: HttpClientOptions;
  #identity: ClientIdentity;
  #listening: AbortController | undefined;
  #closed = false;

  constructor(options: HttpClientOptions) {
    const fetchFn =
      options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => globalThis.fetch(input, init));
    const identity: ClientIdentity = {
      clientInfo: options.clientInfo ?? { name: 'mcp-inflight-http-client', version: '0.1.0' },
      capabilities: options.capabilities ?? {},
    };
    const channel: HttpChannel = new HttpChannel({
      url: String(options.url),
      fetch: fetchFn,
      headers: options.headers ?? {},
      clock: options.clock ?? systemClock,
      resumeAttempts: options.resumeAttempts ?? 2,
      maxEventChars: options.maxEventChars ?? DEFAULT_MAX_EVENT_CHARS,
      endpoint: (): Endpoint => endpoint,
      renewSession: () => (this ? this.#renewSession() : Promise.reject(new Error('no session yet'))),
    });
    const endpoint: Endpoint = new Endpoint({
      role: 'client',
      transport: 'http',
      channel,
      clock: options.clock,
      progressRelay: options.progressRelay,
      idleMs: options.idleMs,
      ceilingMs: options.ceilingMs,
      // The endpoint stamps both on every 2026-07-28 request [M2 M4].
      clientInfo: identity.clientInfo,
      clientCapabilities: identity.capabilities,
    });
    super(endpoint, identity, {
      onLegacySession: (revision) => this!.#onLegacySession(revision),
      sendInitialized: () => this!.#sendInitialized(),
      notify: (method, params) => this!.#notify(method, params),
      close: () => this!.#close(),
      listen: options.listen,
      listenRetryMs: () => channel.retryMs,
    });
    this.#channel = channel;
    this.#options = options;
    this.#identity = identity;
  }

  /** The legacy session id, if any (2026-07-28 has none). */
  get sessionId(): string | undefined {
    return this.#channel.sessionId;
  }

  /** Settles the revision; `revision` defaults to the one given at construction, else `'auto'`. */
  override connect(options: ConnectOptions = {}): Promise<ServerHandshake> {
    const revision = options.revision ?? this.#options.revision;
    return super.connect(revision === undefined ? options : { ...options, revision });
  }

  /**
   * POSTs a notification; resolves once the server accepted it (202).
   * @throws on 2026-07-28, which defines no client-to-server notifications over HTTP [H34]; a request is
   * cancelled there by aborting its `signal` (its stream closes).
   */
  async #notify(method: string, params?: Record<string, unknown>): Promise<void> {
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
  async #close(): Promise<void> {
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

  /** The server ended our session (404) [H28]: a new one at the same revision, which requests wait for [H29]. */
  #renewSession(): Promise<void> {
    const revision = this.endpoint.revision;
    this.#listening?.abort();
    this.#channel.protocolVersion = undefined; // initialize goes out bare, as the first one did
    if (this.#closed) return Promise.reject(new Error('the client is closed'));
    if (revision === undefined) return Promise.reject(new Error('no session was ever started'));
    const hooks = {
      onLegacySession: (chosen: Revision) => this.#onLegacySession(chosen),
      sendInitialized: () => this.#sendInitialized(),
    };
    return connectLifecycle(this.endpoint, this.#identity, { revision }, hooks).then(() => {});
  }

  /** Later requests of a legacy session carry its revision in a header [H36]. */
  #onLegacySession(revision: Revision): void {
    this.#channel.protocolVersion = revision;
  }

  async #sendInitialized(): Promise<void> {
    await this.#channel.post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    if (this.#options.listen !== false) this.#listen();
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
      maxEventChars: this.#options.maxEventChars ?? DEFAULT_MAX_EVENT_CHARS,
    });
  }
}
