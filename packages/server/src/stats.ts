/**
 * `@mcp-inflight/server/stats`: what a process reports about its endpoints, tables, heap and timers, and
 * the `inflight/stats` method that answers it (examples/server and the proxy serve it; soak tests read it).
 *
 * @module @mcp-inflight/server/stats
 */
export {
  type EndpointTables,
  LiveEndpoints,
  type ProcessStats,
  processStats,
  STATS_METHOD,
  serveStats,
  tablesOf,
  wantsGc,
} from './stats/stats.js';
