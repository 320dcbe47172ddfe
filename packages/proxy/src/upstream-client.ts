import type { McpClient, ServerHandshake } from '@mcp-inflight/client';
import { InflightError, type Revision } from '@mcp-inflight/core';
import { keepStrings, SUBSCRIPTION_ID_META_KEY } from '@mcp-inflight/core/adapter';
import { HttpClient, type HttpClientWarning } from '@mcp-inflight/http';
import type { Publisher } from '@mcp-inflight/server';
import { spawnStdio } from '@mcp-inflight/stdio';
import { escapeForLog } from './events.js';
import type { UpstreamConnection, UpstreamConnector } from './upstream-link.js';
import { upstreamStderr } from './upstream-stderr.js';

/**
 * Where the proxy's one upstream is: a command line to spawn (stdio), a Streamable HTTP URL, or a client
 * of your own. `revision` is what to speak: `'auto'` (the default) probes for 2026-07-28 and falls back.
 */
export type UpstreamTarget =
  | {
      /** Spawn it. */
      kind: 'stdio';
      /** The command line (no shell; quotes group words). */
      commandLine: string;
      /** @default 'auto' */
      revision?: Revision | 'auto';
    }
  | {
      /** Reach it over Streamable HTTP. */
      kind: 'http';
      /** Its MCP endpoint. */
      url: string;
      /** @default 'auto' */
      revision?: Revision | 'auto';
    }
  | {
      /** A client of your own, connected once. */
      kind: 'client';
      /** The client. */
      client: McpClient;
      /** @default 'auto' */
      revision?: Revision | 'auto';
    };

/** How the upstream is reached. */
export interface UpstreamClientOptions {
  /** Headers on every request to an HTTP upstream (`Authorization`, for instance). */
  headers?: Record<string, string>;
  /** The HTTP upstream client's `fetch` (`--pass-header` adds each host's headers there). */
  fetch?: typeof fetch;
  /**
   * Told of each upstream tool a 2026-07-28 HTTP upstream client leaves out of `tools/list` for invalid
   * `x-mcp-header` annotations (hosts never see it). @default `console.warn` (stderr)
   */
  onWarning?: (warning: HttpClientWarning) => void;
  /**
   * The one bound on the upstream handshake (the `server/discover` probe and `initialize` together).
   * @default 30_000
   */
  connectTimeoutMs?: number;
}

/**
 * Who the proxy says it is to its upstream (`clientInfo`).
 *
 * @example
 * ```ts
 * import { PROXY_CLIENT_INFO } from './upstream-client.js';
 * PROXY_CLIENT_INFO.name; // 'mcp-inflight-proxy'
 * ```
 */
export const PROXY_CLIENT_INFO: Readonly<Record<'name' | 'version', string>> = {
  name: 'mcp-inflight-proxy',
  version: '0.1.0',
};

/**
 * What the proxy tells its upstream it can do: elicitation and sampling, which it carries to the host
 * whose call asks (see input-flow.ts).
 *
 * @example
 * ```ts
 * import { PROXY_CAPABILITIES } from './upstream-client.js';
 * Object.keys(PROXY_CAPABILITIES); // ['elicitation', 'sampling']
 * ```
 */
export const PROXY_CAPABILITIES: Record<string, Record<string, unknown>> = { elicitation: {}, sampling: {} };

/**
 * Connects to the upstream through the library's one client shape (`McpClient`), whichever transport
 * carries it. `revision: 'auto'` probes with `server/discover` and falls back to `initialize` for a
 * legacy server [M14 M15 H46] (the target's `revision`); `2026-07-28` accepts only a modern server; a legacy revision goes straight
 * to `initialize`. Each call of the returned connector opens a fresh client: a stdio child that exited
 * fails every call in flight on it with UPSTREAM_CLOSED, and the proxy's next call spawns a new one. Over
 * HTTP one broken exchange fails its own call alone; `closed` settles only on `close()`.
 *
 * @example
 * ```ts
 * import { clientUpstream } from './upstream-client.js';
 * const connect = clientUpstream({ kind: 'http', url: 'http://127.0.0.1:3000/mcp', revision: 'auto' });
 * const upstream = await connect();
 * console.log(upstream.identity.serverInfo.name, upstream.revision);
 * await upstream.close();
 * ```
 */
export function clientUpstream(
  target: UpstreamTarget,
  listenStreams?: Publisher,
  options: UpstreamClientOptions = {},
): UpstreamConnector {
  const connectTimeoutMs = options.connectTimeoutMs ?? 30_000;
  return async (): Promise<UpstreamConnection> => {
    const client = open(target, options);
    // The upstream's list changes go to the hosts' listen streams. Handling them makes a 2026-07-28
    // client ask for them on its own listen stream; a legacy upstream sends them unasked (the GET stream, the pipe).
    if (listenStreams) {
      for (const method of RELAYED_CHANGES)
        client.onNotification(method, (params) =>
          listenStreams.notify(method, withoutSubscriptionId(params)),
        );
    }
    let server: ServerHandshake;
    try {
      server = await connectWithin(client, target.revision ?? 'auto', connectTimeoutMs);
    } catch (error) {
      await client.close().catch(() => undefined);
      throw error;
    }
    return {
      endpoint: client.endpoint,
      identity: {
        serverInfo: server.serverInfo ?? { name: labelOf(target), version: 'unknown' },
        capabilities: server.capabilities,
        ...(server.instructions === undefined ? {} : { instructions: server.instructions }),
      },
      revision: server.revision,
      ...(server.fallback === undefined ? {} : { fallback: server.fallback }),
      request: (method, params, options) => client.request(method, params, options),
      closed: client.closed,
      close: () => client.close(),
    };
  };
}

/** The notifications relayed from the upstream to every listening host. */
const RELAYED_CHANGES = [
  'notifications/tools/list_changed',
  'notifications/prompts/list_changed',
  'notifications/resources/list_changed',
];

/** The upstream stream's subscription id means nothing to a host: each host stream gets its own. */
function withoutSubscriptionId(params: Record<string, unknown> | undefined): Record<string, unknown> {
  const { _meta: meta, ...rest } = params ?? {};
  if (typeof meta !== 'object' || meta === null) return rest;
  const { [SUBSCRIPTION_ID_META_KEY]: _upstream, ...others } = meta as Record<string, unknown>;
  return Object.keys(others).length > 0 ? { ...rest, _meta: others } : rest;
}

/**
 * The handshake within one bound: the probe and `initialize` share `ms` (an abort stops waiting;
 * `initialize` is never cancelled on the wire [CN7]).
 */
async function connectWithin(
  client: McpClient,
  revision: Revision | 'auto',
  ms: number,
): Promise<ServerHandshake> {
  const controller = new AbortController();
  const timer = setTimeout(
    () =>
      controller.abort(new InflightError('UPSTREAM_CLOSED', `the upstream did not connect within ${ms} ms`)),
    ms,
  );
  try {
    return await client.connect({ revision, timeoutMs: ms, signal: controller.signal });
  } catch (error) {
    throw controller.signal.aborted ? controller.signal.reason : error;
  } finally {
    clearTimeout(timer);
  }
}

function open(target: UpstreamTarget, options: UpstreamClientOptions): McpClient {
  if (target.kind === 'client') return target.client;
  if (target.kind === 'stdio') {
    // The child's crash reports reach the operator, each line marked as the upstream's and escaped.
    return spawnStdio(target.commandLine, {
      stderr: upstreamStderr(),
      clientInfo: PROXY_CLIENT_INFO,
      capabilities: PROXY_CAPABILITIES,
      keepStrings: LONG_STRINGS_KEPT,
      // What the upstream wrote that is not MCP is the operator's to see (an overlong answer also fails
      // its call at once, in the stdio client); never silent.
      onBadInput: (event) =>
        console.error(`proxy: upstream wrote bad input (${event.kind}): ${escapeForLog(event.detail)}`),
    });
  }
  return new HttpClient({
    url: target.url,
    clientInfo: PROXY_CLIENT_INFO,
    capabilities: PROXY_CAPABILITIES,
    keepStrings: LONG_STRINGS_KEPT,
    ...(options.headers ? { headers: options.headers } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.onWarning ? { onWarning: options.onWarning } : {}),
  });
}

/**
 * Result strings of 64 KiB and more are relayed as the JSON literals the upstream wrote, as the bytes
 * read: the proxy never decodes or re-serializes a large text or blob (bench/big-proxy.mjs). Shorter ones
 * cost less to decode than to keep.
 */
const LONG_STRINGS_KEPT = keepStrings(64 * 1024);

function labelOf(target: UpstreamTarget): string {
  return target.kind === 'stdio' ? target.commandLine : target.kind === 'http' ? target.url : 'upstream';
}
