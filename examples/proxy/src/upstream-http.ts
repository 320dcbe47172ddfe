import {
  type Clock,
  isLegacy,
  type RequestOptions,
  type Revision,
  SERVER_INFO_META_KEY,
  type ServerIdentity,
  systemClock,
} from '@mcp-inflight/core';
import { HttpClient } from '@mcp-inflight/http';
import type { UpstreamConnection, UpstreamConnector } from './upstream-link.js';
import { PROXY_CLIENT_INFO } from './upstream-stdio.js';

/** Options for {@link httpUpstream}. */
export interface HttpUpstreamOptions {
  /** `auto` tries 2026-07-28 first and falls back to `initialize` [H46]. @default 'auto' */
  revision?: Revision | 'auto';
  /** The fetch to use. @default globalThis.fetch */
  fetch?: typeof fetch;
  /** The clock of the upstream endpoint's deadlines; use the relay's. @default systemClock */
  clock?: Clock;
}

/**
 * Connects to an upstream MCP server over Streamable HTTP. On 2026-07-28 every relayed call is its own
 * POST and a cancel closes that POST's stream [CN24]; on a legacy revision the calls share a session and a
 * cancel is a `notifications/cancelled` POST [H14]. A call whose HTTP exchange fails (the server is gone,
 * the stream broke with no response) fails with UPSTREAM_CLOSED on its own; HTTP has no connection to
 * lose, so the other calls go on and the next call simply tries again. `closed` settles only on `close()`.
 *
 * @example
 * ```ts
 * import { httpUpstream } from './upstream-http.js';
 * const connect = httpUpstream('http://127.0.0.1:3000/mcp', { revision: '2026-07-28' });
 * const upstream = await connect();
 * await upstream.request('tools/list', {}, {});
 * await upstream.close();
 * ```
 */
export function httpUpstream(url: string, options: HttpUpstreamOptions = {}): UpstreamConnector {
  return async (): Promise<UpstreamConnection> => {
    const client = new HttpClient({
      url,
      revision: options.revision ?? 'auto',
      clientInfo: PROXY_CLIENT_INFO,
      clock: options.clock ?? systemClock,
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
    let revision: Revision;
    try {
      revision = await client.connect();
    } catch (error) {
      await client.close().catch(() => undefined);
      throw error;
    }
    let resolveClosed!: () => void;
    const closed = new Promise<void>((resolve) => {
      resolveClosed = resolve;
    });
    return {
      endpoint: client.endpoint,
      identity: identityOf(client.serverResult, revision, url),
      revision,
      // A broken exchange rejects that one request with UPSTREAM_CLOSED (core's failOutbound).
      request: (method: string, params: Record<string, unknown> | undefined, request: RequestOptions) =>
        client.request(method, params, request),
      closed,
      close: async () => {
        await client.close();
        resolveClosed();
      },
    };
  };
}

function identityOf(result: unknown, revision: Revision, url: string): ServerIdentity {
  const r = (typeof result === 'object' && result !== null ? result : {}) as Record<string, unknown>;
  const meta = (typeof r._meta === 'object' && r._meta !== null ? r._meta : {}) as Record<string, unknown>;
  const info = (isLegacy(revision) ? r.serverInfo : (meta[SERVER_INFO_META_KEY] ?? r.serverInfo)) as
    | ServerIdentity['serverInfo']
    | undefined;
  const capabilities = (
    typeof r.capabilities === 'object' && r.capabilities !== null ? r.capabilities : {}
  ) as Record<string, unknown>;
  return {
    serverInfo: info ?? { name: url, version: 'unknown' },
    capabilities,
    ...(typeof r.instructions === 'string' ? { instructions: r.instructions } : {}),
  };
}
