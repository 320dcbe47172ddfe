import type { ClientTransport } from '@mcp-inflight/client';
import { type ClientIdentity, connectLifecycle } from '@mcp-inflight/client';
import { Endpoint, type Revision, systemClock } from '@mcp-inflight/core';
import { MODERN_REVISION } from '@mcp-inflight/core/adapter';
import { setFields } from '../shared/set-fields.js';
import { HttpChannel } from './http-channel.js';
import { listen } from './listen.js';
import type { HttpClientOptions } from './options.js';
import { fetchRequester, type Requester } from './requester.js';
import { DEFAULT_MAX_EVENT_CHARS } from './sse-parser.js';

/** How long close() waits for notifications already sent (a cancel) to be answered before aborting them. */
const CLOSE_FLUSH_MS = 1_000;

/**
 * One HTTP client's transport: its channel, its endpoint, and the legacy session they share (renewed after
 * a 404 [H28 H29], its GET listen stream, its DELETE on close). It owns that state alone: the channel asks
 * it, never the client, for a new session, and the client only hands it to `LifecycleClient`.
 */
export class HttpSession implements ClientTransport {
  readonly options: HttpClientOptions;
  readonly identity: ClientIdentity;
  readonly channel: HttpChannel;
  readonly endpoint: Endpoint;
  readonly listen?: boolean;
  #listening: AbortController | undefined;
  #closed = false;

  /** `defaultRequester`: how requests go when `options.fetch` is not given (else the global fetch). */
  constructor(options: HttpClientOptions, defaultRequester?: () => Requester) {
    checkUrl(options?.url);
    this.options = options;
    if (options.listen !== undefined) this.listen = options.listen;
    const request = options.fetch
      ? fetchRequester(options.fetch)
      : (defaultRequester?.() ??
        fetchRequester((input: RequestInfo | URL, init?: RequestInit) => globalThis.fetch(input, init)));
    this.identity = {
      clientInfo: options.clientInfo ?? { name: 'mcp-inflight-http-client', version: '0.1.0' },
      capabilities: options.capabilities ?? {},
    };
    this.channel = new HttpChannel({
      url: String(options.url),
      request,
      headers: options.headers ?? {},
      clock: options.clock ?? systemClock,
      resumeAttempts: options.resumeAttempts ?? 2,
      maxEventChars: options.maxEventChars ?? DEFAULT_MAX_EVENT_CHARS,
      ...(options.keepStrings ? { keepStrings: options.keepStrings } : {}),
      endpoint: () => this.endpoint,
      renewSession: (stale) => this.#renew(stale),
      onWarning: options.onWarning ?? ((warning) => console.warn(warning.message)),
    });
    this.endpoint = new Endpoint({
      role: 'client',
      transport: 'http',
      channel: this.channel,
      ...setFields({
        clock: options.clock,
        progressRelay: options.progressRelay,
        idleMs: options.idleMs,
        ceilingMs: options.ceilingMs,
      }),
      // The endpoint stamps both on every 2026-07-28 request [M2 M4].
      clientInfo: this.identity.clientInfo,
      clientCapabilities: this.identity.capabilities,
    });
  }

  listenRetryMs = (): number | undefined => this.channel.retryMs;

  /** Later requests of a legacy session carry its revision in a header [H36]. */
  onLegacySession(revision: Revision): void {
    this.channel.protocolVersion = revision;
  }

  async sendInitialized(): Promise<void> {
    await this.channel.post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    if (this.options.listen !== false) this.#listen();
  }

  /**
   * POSTs a notification; resolves once the server accepted it (202).
   * @throws on 2026-07-28, which defines no client-to-server notifications over HTTP [H34]; a request is
   * cancelled there by aborting its `signal` (its stream closes).
   */
  async notify(method: string, params?: Record<string, unknown>): Promise<void> {
    if (this.endpoint.revision === MODERN_REVISION) {
      throw new Error(
        `2026-07-28 defines no client-to-server notifications over Streamable HTTP (tried ${method}); ` +
          'to cancel a request, abort its signal',
      );
    }
    const message = params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };
    await this.channel.post(message);
  }

  /**
   * Ends everything in flight, then DELETEs the legacy session (a 405 answer is fine [H28]). A cancel sent
   * just before (legacy: a POST) is given up to 1 s to reach the server first.
   */
  async close(): Promise<void> {
    this.#closed = true;
    this.#listening?.abort();
    this.endpoint.close();
    await this.channel.flush(CLOSE_FLUSH_MS);
    this.channel.abortAll();
    const sessionId = this.channel.sessionId;
    if (!sessionId) return;
    const headers = this.channel.headersFor({}, 'application/json, text/event-stream');
    await this.channel
      .request(String(this.options.url), { method: 'DELETE', headers })
      .then((response) => response.discard())
      .catch(() => {});
  }

  /** The server ended our session (404) [H28]: a new one at the same revision, which requests wait for [H29]. */
  #renew(_stale: string): Promise<void> {
    const revision = this.endpoint.revision;
    this.#listening?.abort();
    this.channel.protocolVersion = undefined; // initialize goes out bare, as the first one did
    if (this.#closed) return Promise.reject(new Error('the client is closed'));
    if (revision === undefined) return Promise.reject(new Error('no session was ever started'));
    const hooks = {
      onLegacySession: (chosen: Revision) => this.onLegacySession(chosen),
      sendInitialized: () => this.sendInitialized(),
    };
    return connectLifecycle(this.endpoint, this.identity, { revision }, hooks).then(() => {});
  }

  #listen(): void {
    const stop = new AbortController();
    this.#listening = stop;
    void listen({
      url: String(this.options.url),
      request: this.channel.request,
      endpoint: this.endpoint,
      headers: () => this.channel.headersFor({}, 'text/event-stream'),
      signal: stop.signal,
      attempts: this.options.resumeAttempts ?? 2,
      clock: this.options.clock ?? systemClock,
      maxEventChars: this.options.maxEventChars ?? DEFAULT_MAX_EVENT_CHARS,
    });
  }
}

// Without it, a missing or relative url fails only at the first request, as fetch's 'Failed to parse URL'.
function checkUrl(url: unknown): void {
  if (url instanceof URL) return;
  if (typeof url === 'string') {
    try {
      // In a page, fetch resolves a relative url against the page; elsewhere there is nothing to resolve it by.
      const base = (globalThis as { location?: { href?: string } }).location?.href;
      const { protocol } = new URL(url, base);
      if (protocol === 'http:' || protocol === 'https:') return;
    } catch {}
  }
  throw new TypeError(
    `HttpClient: url must be the server's MCP endpoint, an http(s) URL (string or URL) such as 'http://127.0.0.1:3000/mcp' (relative only in a page), got ${typeof url === 'string' ? JSON.stringify(url) : String(url)}`,
  );
}
