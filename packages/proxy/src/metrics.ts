/**
 * `@mcp-inflight/proxy/metrics`: the proxy's Prometheus metrics (`prom-client`), on an entry of their own
 * so that `createProxy` alone never loads prom-client. Give a {@link ProxyMetrics} to `listenAdmin` for
 * `/metrics`.
 *
 * @module @mcp-inflight/proxy/metrics
 */

export { ProxyMetrics } from './proxy-metrics.js';
