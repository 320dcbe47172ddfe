import type { Endpoint } from '@mcp-inflight/core';
import { type LiveEndpoints, STATS_METHOD, serveStats, tablesOf } from '@mcp-inflight/server/stats';
import type { CallRelay } from './call-relay.js';
import type { UpstreamLink } from './upstream-link.js';

// The counting itself (process, heap, timers, endpoint tables) is @mcp-inflight/server/stats, so the
// soak reads every process alike; the proxy adds its relay's map and its upstream leg.

/** What the proxy's stats request reads; filled in as the proxy starts. */
export interface ProxyStatsSources {
  /** The relay (its totals and call table). */
  relay: CallRelay;
  /** The upstream link (its starts and tables). */
  link: UpstreamLink;
  /** The listener's own tables (HTTP sessions, stdio queues); `stateless` says the request is one. */
  transport: (stateless: boolean) => Record<string, unknown>;
}

/** How long the proxy waits for the upstream's own stats. */
const UPSTREAM_STATS_MS = 10_000;

/**
 * Answers {@link STATS_METHOD} on a host-facing endpoint with the proxy's process stats, its host-facing
 * tables (host request ids in flight, host progress routes), its transport's tables, the relay's per-call
 * map and totals, and the upstream link's tables (ids, minted tokens, routes). With `upstream: true` the
 * request is also passed to the upstream (starting one if none is live), whose answer comes back under
 * `upstream.stats`; the proxy's own figures are read first, so that request is not in them.
 *
 * @example
 * ```ts
 * import { LiveEndpoints, serveProxyStats } from './stats.js';
 * declare const endpoint: import('@mcp-inflight/core').Endpoint;
 * declare const sources: import('./stats.js').ProxyStatsSources;
 * const hosts = new LiveEndpoints();
 * hosts.add(endpoint);
 * serveProxyStats(endpoint, false, hosts, () => sources);
 * ```
 */
export function serveProxyStats(
  endpoint: Endpoint,
  stateless: boolean,
  hosts: LiveEndpoints,
  sources: () => ProxyStatsSources,
): void {
  // serveStats reads the process and the host-facing tables first, so the upstream request below is not
  // in them.
  serveStats(endpoint, hosts, async (params) => {
    const { relay, link, transport } = sources();
    const current = link.current;
    const upstream: Record<string, unknown> = {
      starts: link.starts,
      live: current !== undefined,
      tables: tablesOf(current ? [current.endpoint] : []),
    };
    if (params?.upstream === true) {
      try {
        const live = await link.get();
        const limits = { idleMs: UPSTREAM_STATS_MS, ceilingMs: UPSTREAM_STATS_MS };
        upstream.stats = await live.request(STATS_METHOD, { gc: params.gc === true }, limits);
      } catch (error) {
        upstream.error = error instanceof Error ? error.message : String(error);
      }
    }
    return {
      transport: transport(stateless),
      // `inFlight` counts calls; `inFlightTable` is the size of the per-call map itself (host, id).
      relay: { ...relay.stats, inFlightTable: relay.inFlight },
      // Calls waiting for a 2026-07-28 host's input (a bounded table), and what was refused or expired.
      inputs: {
        parked: relay.inputs.parked,
        live: relay.inputs.live,
        refused: relay.inputs.refused,
        expired: relay.inputs.expired,
      },
      upstream,
    };
  });
}
