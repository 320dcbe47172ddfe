import { AsyncLocalStorage } from 'node:async_hooks';
import type { Endpoint } from '@mcp-inflight/core';

/**
 * `--pass-header`: named headers of a host's HTTP request travel with that host's own upstream calls, and
 * with no one else's. The host's request is served inside {@link PassHeaders.serve}, whose async context
 * reaches the endpoint setup (one endpoint per 2026-07-28 request, per legacy session); the endpoint keeps
 * its headers; the relay sends each upstream call inside {@link PassHeaders.send}, and the upstream
 * client's `fetch` ({@link PassHeaders.fetch}) adds what the call carries. Only for a 2026-07-28 HTTP
 * upstream, where each call is its own HTTP request: a legacy upstream's one session serves every host.
 */
export class PassHeaders {
  /** Lowercase header names. */
  readonly names: readonly string[];
  /** The host request being served (read by `bind`), and the upstream call being sent (read by `fetch`). */
  readonly #serving = new AsyncLocalStorage<Record<string, string>>();
  readonly #sending = new AsyncLocalStorage<Record<string, string>>();
  readonly #byEndpoint = new WeakMap<Endpoint, Record<string, string>>();

  constructor(names: readonly string[]) {
    this.names = names.map((n) => n.toLowerCase());
  }

  /** Runs `serve` (a host request's handling) with that request's named headers. */
  serve(headers: Record<string, string | string[] | undefined>, serve: () => void): void {
    const picked: Record<string, string> = {};
    for (const name of this.names) {
      const value = headers[name];
      if (typeof value === 'string') picked[name] = value;
    }
    this.#serving.run(picked, serve);
  }

  /** Binds the headers of the request being served to the endpoint it set up. */
  bind(endpoint: Endpoint): void {
    const headers = this.#serving.getStore();
    if (headers) this.#byEndpoint.set(endpoint, headers);
  }

  /** Sends an upstream call on behalf of `endpoint`'s host: its headers, or none. */
  send<T>(endpoint: Endpoint, send: () => T): T {
    return this.#sending.run(this.#byEndpoint.get(endpoint) ?? {}, send);
  }

  /** The headers `endpoint`'s host passed (to carry them to another instance), or `undefined`. */
  headersOf(endpoint: Endpoint): Record<string, string> | undefined {
    return this.#byEndpoint.get(endpoint);
  }

  /**
   * Sends an upstream call with headers a host passed on another instance (a forwarded task request);
   * only the names this proxy passes are kept.
   */
  sendWith<T>(headers: Record<string, string>, send: () => T): T {
    const picked: Record<string, string> = {};
    for (const name of this.names) {
      const value = headers[name];
      if (typeof value === 'string') picked[name] = value;
    }
    return this.#sending.run(picked, send);
  }

  /**
   * A `fetch` for the upstream client that adds the current call's headers. The proxy's own requests (the
   * handshake, even when a host's call started it) are sent outside any call: they carry none.
   */
  fetch = (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const headers = this.#sending.getStore();
    if (!headers || Object.keys(headers).length === 0) return globalThis.fetch(input, init);
    const merged = new Headers(init?.headers);
    for (const [name, value] of Object.entries(headers)) merged.set(name, value);
    return globalThis.fetch(input, { ...init, headers: merged });
  };
}
