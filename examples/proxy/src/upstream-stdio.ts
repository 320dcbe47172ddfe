import { type Clock, MODERN_REVISION, type Revision, systemClock } from '@mcp-inflight/core';
import { type StderrMode, spawnStdio } from '@mcp-inflight/stdio';
import type { UpstreamConnection, UpstreamConnector } from './upstream-link.js';

/**
 * Who the proxy says it is to its upstream (`clientInfo`).
 *
 * @example
 * ```ts
 * import { PROXY_CLIENT_INFO } from './upstream-stdio.js';
 * PROXY_CLIENT_INFO.name; // 'mcp-inflight-example-proxy'
 * ```
 */
export const PROXY_CLIENT_INFO = { name: 'mcp-inflight-example-proxy', version: '0.1.0' };

/** Options for {@link stdioUpstream}. */
export interface StdioUpstreamOptions {
  /**
   * The revision to speak: `auto` probes with `server/discover` and falls back to `initialize` for a
   * legacy server [M14 M15]; `2026-07-28` probes and fails if the server is not modern; a legacy revision
   * goes straight to `initialize`. @default 'auto'
   */
  revision?: Revision | 'auto';
  /** Where the child's stderr goes. @default 'inherit' (the proxy's own stderr) */
  stderr?: StderrMode;
  /** The clock of the upstream endpoint's deadlines; use the relay's. @default systemClock */
  clock?: Clock;
}

/**
 * Connects to an upstream MCP server by spawning it (no shell) and speaking on its stdin and stdout. Each
 * call of the returned connector spawns a fresh process, so after the upstream dies the proxy's next call
 * gets a new one. The process's exit fails every call in flight on it at once with UPSTREAM_CLOSED
 * naming the exit code or signal.
 *
 * @example
 * ```ts
 * import { stdioUpstream } from './upstream-stdio.js';
 * const connect = stdioUpstream('node examples/server/dist/index.js');
 * const upstream = await connect();
 * console.log(upstream.identity.serverInfo.name, upstream.revision);
 * await upstream.close();
 * ```
 */
export function stdioUpstream(commandLine: string, options: StdioUpstreamOptions = {}): UpstreamConnector {
  const wanted = options.revision ?? 'auto';
  return async (): Promise<UpstreamConnection> => {
    const client = spawnStdio(commandLine, {
      stderr: options.stderr ?? 'inherit',
      clientInfo: PROXY_CLIENT_INFO,
      clock: options.clock ?? systemClock,
    });
    let handshake: Awaited<ReturnType<typeof client.connect>>;
    try {
      // Only `auto` may fall back to a legacy revision: a pinned 2026-07-28 that the server does not speak
      // is a failure to report, not something to paper over.
      handshake = await client.connect({
        revision: wanted === 'auto' ? MODERN_REVISION : wanted,
        fallback: wanted === 'auto',
      });
    } catch (error) {
      await client.close().catch(() => undefined);
      throw error;
    }
    const identity = {
      serverInfo: handshake.serverInfo ?? { name: commandLine, version: 'unknown' },
      capabilities: handshake.capabilities,
      ...(handshake.instructions === undefined ? {} : { instructions: handshake.instructions }),
    };
    return {
      endpoint: client.endpoint,
      identity,
      revision: handshake.revision,
      request: (method, params, requestOptions) => client.request(method, params, requestOptions),
      closed: client.closed,
      close: async () => {
        await client.close();
      },
    };
  };
}
