import {
  type Clock,
  Endpoint,
  hasStreamableHttp,
  isRevision,
  MODERN_REVISION,
  type ProgressRelay,
  type RequestOptions,
  type Revision,
} from '@mcp-inflight/core';
import { HttpChannel } from './http-channel.js';
import { listen } from './listen.js';
import { probeRevision } from './negotiate.js';

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
  /** Legacy resumes with `Last-Event-ID` for one request whose stream broke. @default 2 */
  resumeAttempts?: number;
  /**
   * Legacy sessions: keep the GET stream open for server requests and notifications that belong to no
   * request (list changes, pings) [H19]. @default false
   */
  listen?: boolean;
  clock?: Clock;
  relay?: ProgressRelay;
}

const CLIENT_INFO_META_KEY = 'io.modelcontextprotocol/clientInfo';
const CLIENT_CAPABILITIES_META_KEY = 'io.modelcontextprotocol/clientCapabilities';

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
      resumeAttempts: options.resumeAttempts ?? 2,
      endpoint: () => this.endpoint,
      onSessionGone: () => {
        this.#listening?.abort();
        this.#connecting = undefined;
        this.endpoint.revision = undefined;
        this.#channel.protocolVersion = undefined;
      },
    });
    this.endpoint = new Endpoint({
      role: 'client',
      transport: 'http',
      channel: this.#channel,
      clock: options.clock,
      relay: options.relay,
      idleMs: options.idleMs,
      ceilingMs: options.ceilingMs,
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
    const modern = (options?.revision ?? this.endpoint.revision) === MODERN_REVISION;
    return this.endpoint.request(method, modern ? this.#envelope(params) : params, options);
  }

  /** POSTs a notification; resolves once the server accepted it (202). */
  async notify(method: string, params?: Record<string, unknown>): Promise<void> {
    await this.connect();
    const message = params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };
    await this.#channel.post(message);
  }

  /** Ends everything in flight, then DELETEs the legacy session (a 405 answer is fine [H28]). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const sessionId = this.#channel.sessionId;
    this.#listening?.abort();
    this.endpoint.close();
    this.#channel.abortAll();
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
      const verdict = await probeRevision(this.endpoint, this.#envelope({}), wanted === MODERN_REVISION);
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

  async #initialize(revision: Revision): Promise<Revision> {
    const result = (await this.endpoint.request(
      'initialize',
      {
        protocolVersion: revision,
        capabilities: this.#options.capabilities ?? {},
        clientInfo: this.#options.clientInfo ?? { name: 'mcp-inflight-http-client', version: '0.1.0' },
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
    });
  }

  /** 2026-07-28 requests carry who we are and what we offer in `_meta` [M2 M4]. */
  #envelope(params: Record<string, unknown> | undefined): Record<string, unknown> {
    const meta = (params?._meta as Record<string, unknown> | undefined) ?? {};
    const withInfo = {
      [CLIENT_INFO_META_KEY]: this.#options.clientInfo ?? {
        name: 'mcp-inflight-http-client',
        version: '0.1.0',
      },
      [CLIENT_CAPABILITIES_META_KEY]: this.#options.capabilities ?? {},
      ...meta,
    };
    return { ...params, _meta: withInfo };
  }
}
