import { AsyncResource } from 'node:async_hooks';
import type { McpClient } from '@mcp-inflight/client';
import { type Endpoint, ProgressRelay } from '@mcp-inflight/core';
import { Admission, DEFAULT_MAX_IN_FLIGHT } from '@mcp-inflight/core/adapter';
import { createHttpHandler, type HttpHandler, type HttpServerOptions } from '@mcp-inflight/http';
import { ListenStreams } from '@mcp-inflight/server/listen';
import { LiveEndpoints } from '@mcp-inflight/server/stats';
import { CallRelay, type CallRelayOptions } from './call-relay.js';
import { logEndpointEvents } from './endpoint-log.js';
import type { ProxyEvent } from './events.js';
import {
  ClientShares,
  DEFAULT_MAX_ADDRESS_CLIENTS,
  DEFAULT_MAX_HOST_IN_FLIGHT,
  servedToken,
} from './fair-shares.js';
import { hostLabel } from './host-label.js';
import { type HttpListenOptions, type Listener, listenHttp, listenStdio } from './listeners.js';
import { serveProxyStats } from './stats.js';
import { clientUpstream, type UpstreamClientOptions, type UpstreamTarget } from './upstream-client.js';
import { type UpstreamConnector, UpstreamLink } from './upstream-link.js';

/** Options for {@link createProxy}. */
export interface ProxyConfig extends Omit<CallRelayOptions, 'onAttach' | 'onEvent'> {
  /**
   * The one upstream: where to spawn or reach it (`{ kind: 'stdio', commandLine }`, `{ kind: 'http', url }`),
   * an `http(s)://` URL, or an `McpClient` of your own (connected once; it is not reopened when it closes).
   */
  upstream: UpstreamTarget | string | McpClient;
  /** How the upstream is reached: headers, the connect timeout. */
  upstreamOptions?: UpstreamClientOptions;
  /** At most one progress update per this many ms per call to a host. @default 50 */
  minIntervalMs?: number;
  /** Every event: ended calls, the upstream's life, shutdown, and (with `logEndpoints`) the endpoints' own. */
  onEvent?: (event: ProxyEvent) => void;
  /** Also report the endpoints' cancels, deadlines, late messages and errors. @default false */
  logEndpoints?: boolean;
  /** Called for each host endpoint after the proxy set it up. */
  onAttach?: (endpoint: Endpoint, host: string) => void;
  /** Called with each upstream connection's endpoint as it opens. */
  onUpstream?: (endpoint: Endpoint) => void;
  /**
   * Relayed calls running at once over every host, in front of the upstream's own gate; more wait, hosts
   * taken round robin (`--max-in-flight`). @default 1_000 (`DEFAULT_MAX_IN_FLIGHT`)
   */
  maxInFlight?: number;
  /**
   * Relayed calls one client (a stdio host; a token; else an address and clientInfo name) runs at once;
   * its others wait (`--max-host-in-flight`). Its handshakes, pings and task polls run beside them, 64 at
   * once (`Admission.maxControlPerShare`). @default 100
   */
  maxHostInFlight?: number;
  /** Bound on calls waiting for a slot (bytes of their requests plus 64 each); past it, `-32010`. @default 8 MiB */
  maxQueuedBytes?: number;
}

/**
 * A proxy: one upstream, shared by any number of hosts reached on stdio, over HTTP or through a Fetch
 * handler you mount yourself.
 */
export interface McpProxy {
  /** The relay every host endpoint is attached to (its stats, drain, shutdown, the relay step). */
  readonly relay: CallRelay;
  /** The one upstream (its connection, starts, readiness). */
  readonly link: UpstreamLink;
  /** Hosts' listen streams, fed by the upstream's list changes. */
  readonly listenStreams: ListenStreams;
  /** Host endpoints alive now (what `inflight/stats` reads). */
  readonly hosts: LiveEndpoints;
  /** The one progress relay every host endpoint shares (its `stats` count what it coalesced and dropped). */
  readonly progress: ProgressRelay;
  /** The one admission of every host's calls: a share per host, round robin, `maxHostInFlight` each. */
  readonly admission: Admission;
  /** Connects the upstream now rather than on the first call; rejects if it cannot. */
  connect(): Promise<void>;
  /** Serves one host on this process's stdin and stdout. */
  serveStdio(): Listener;
  /** Serves hosts over Streamable HTTP with `node:http` (127.0.0.1 and `/mcp` unless told otherwise). */
  serveHttp(options: HttpListenOptions): Promise<Listener>;
  /** A Fetch-standard handler (`Request` to `Response`) for a server of your own. */
  fetchHandler(options?: HttpServerOptions): HttpHandler;
  /** Cancels every relayed call with `SHUTDOWN` (each host told so, each upstream call cancelled). */
  shutdown(why: string): void;
  /** Closes the upstream. */
  close(): Promise<void>;
}

/**
 * Builds a proxy from an upstream and the limits every relayed call runs under.
 *
 * @example
 * ```ts
 * import { createProxy } from '@mcp-inflight/proxy';
 * const proxy = createProxy({
 *   upstream: { kind: 'stdio', commandLine: 'node server.js' },
 *   idleMs: 60_000,
 *   ceilingMs: 600_000,
 * });
 * await proxy.connect();
 * const listener = await proxy.serveHttp({ port: 0 });
 * console.error(`listening on ${listener.url}`);
 * ```
 */
export function createProxy(config: ProxyConfig): McpProxy {
  const { minIntervalMs, onEvent, logEndpoints, onAttach, ...rest } = config;
  const { maxInFlight = DEFAULT_MAX_IN_FLIGHT, maxHostInFlight, maxQueuedBytes } = rest;
  // One admission over every host [rule 14]: a share per client, started round robin, each capped.
  const admission = new HostAdmission({
    maxInFlight,
    maxInFlightPerShare: Math.min(maxHostInFlight ?? DEFAULT_MAX_HOST_IN_FLIGHT, maxInFlight),
    ...(maxQueuedBytes === undefined ? {} : { maxQueuedBytes }),
  });
  const log = onEvent ?? (() => {});
  const logging = logEndpoints === true && onEvent !== undefined;
  const listenStreams = new ListenStreams({ offer: { resourceSubscriptions: false } });
  const link = linkFor(config, listenStreams, logging ? log : undefined);
  const hosts = new LiveEndpoints();
  let listener: Listener | undefined;
  const relay = new CallRelay(link, {
    ...relayOptionsOf(config),
    // A requestState handed to a token's host is redeemed by that token alone [issue 45].
    input: { principal: servedToken, ...config.input },
    onEvent: log,
    onAttach: (endpoint, host) => {
      if (logging) logEndpointEvents(endpoint, host, log);
      hosts.add(endpoint);
      serveProxyStats(endpoint, host === 'http request', hosts, () => ({
        relay,
        link,
        transport: (stateless) => {
          const stats = listener?.stats() ?? {};
          // A 2026-07-28 stats request over HTTP is itself a stateless request in flight: it is left out.
          if (stateless && typeof stats.statelessInFlight === 'number') stats.statelessInFlight--;
          return stats;
        },
      }));
      onAttach?.(endpoint, host);
    },
  });
  // One relay for every host endpoint, coalescing at that interval (0: every value).
  const progress = new ProgressRelay(minIntervalMs === undefined ? {} : { minIntervalMs });
  const keep = (l: Listener): Listener => {
    listener = l;
    return l;
  };
  const passHeaders = config.passHeaders;
  return {
    relay,
    link,
    listenStreams,
    hosts,
    progress,
    admission,
    connect: async () => {
      await link.get();
    },
    serveStdio: () => keep(listenStdio(relay, listenStreams, progress, admission)),
    serveHttp: async (options) => {
      const http = { admission, ...(passHeaders ? { passHeaders } : {}), ...options };
      return keep(await listenHttp(relay, http, listenStreams, progress));
    },
    // Without the connection's address, a Fetch handler's hosts are apart by their clientInfo name only.
    fetchHandler: (options = {}) => {
      const shares = new ClientShares(admission, DEFAULT_MAX_ADDRESS_CLIENTS);
      return createHttpHandler(
        (endpoint, info) => {
          shares.assign(endpoint, 'fetch', info.sessionId !== undefined);
          relay.attach(endpoint, hostLabel(info.sessionId));
        },
        { listenStreams, progressRelay: progress, admission, ...options },
      );
    },
    shutdown: (why) => relay.shutdown(why),
    close: () => link.close(),
  };
}

/** The relay's own options out of the proxy's. */
function relayOptionsOf(config: ProxyConfig): Omit<CallRelayOptions, 'onAttach' | 'onEvent'> {
  const {
    upstream: _upstream,
    upstreamOptions: _upstreamOptions,
    minIntervalMs: _minIntervalMs,
    onEvent: _onEvent,
    logEndpoints: _logEndpoints,
    onAttach: _onAttach,
    onUpstream: _onUpstream,
    maxInFlight: _maxInFlight,
    maxHostInFlight: _maxHostInFlight,
    maxQueuedBytes: _maxQueuedBytes,
    ...limits
  } = config;
  return limits;
}

/**
 * The one upstream, started on the first call (or `connect()`). Each connection's event stream feeds the
 * log when `log` is given: the cancels it sent, the deadlines that fired on it, the late answers it
 * absorbed; nobody subscribing means its endpoint emits nothing.
 */
function linkFor(
  config: ProxyConfig,
  listenStreams: ListenStreams,
  log: ((event: ProxyEvent) => void) | undefined,
): UpstreamLink {
  const { upstream, upstreamOptions, passHeaders, onUpstream } = config;
  const connect = connectorOf(
    upstream,
    listenStreams,
    passHeaders ? { ...upstreamOptions, fetch: passHeaders.fetch } : upstreamOptions,
  );
  const link: UpstreamLink = new UpstreamLink(
    async () => {
      const connection = await connect();
      if (log) logEndpointEvents(connection.endpoint, `upstream #${link.starts}`, log);
      onUpstream?.(connection.endpoint);
      return connection;
    },
    {
      onEvent: config.onEvent ?? (() => {}),
      ...(upstreamOptions?.connectTimeoutMs === undefined
        ? {}
        : { connectTimeoutMs: upstreamOptions.connectTimeoutMs }),
    },
  );
  return link;
}

function connectorOf(
  upstream: ProxyConfig['upstream'],
  listenStreams: ListenStreams,
  options: UpstreamClientOptions | undefined,
): UpstreamConnector {
  if (typeof upstream === 'string') {
    return clientUpstream({ kind: 'http', url: upstream, revision: 'auto' }, listenStreams, options);
  }
  if ('kind' in upstream) return clientUpstream(upstream, listenStreams, options);
  return clientUpstream({ kind: 'client', client: upstream, revision: 'auto' }, listenStreams, options);
}

/**
 * The proxy's admission: a call that waits starts in its own request's async context (its client, its
 * passed headers), not in that of the call whose end freed its slot.
 */
class HostAdmission extends Admission {
  override admit(...[owner, request, start]: Parameters<Admission['admit']>): ReturnType<Admission['admit']> {
    let run = start;
    const ticket = super.admit(owner, request, () => run());
    if (ticket.state === 'queued') run = AsyncResource.bind(start); // bound only when it waits
    return ticket;
  }
}
