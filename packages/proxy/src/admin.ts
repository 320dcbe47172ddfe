import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { limitConnections } from '@mcp-inflight/http';
import { answerHealth } from './http-routes.js';
import type { ProxyMetrics } from './proxy-metrics.js';

/** The admin listener: `/healthz`, `/readyz`, `/metrics` and `/stats` on 127.0.0.1. */
export interface AdminListener {
  /** `http://127.0.0.1:PORT/` with the real port. */
  readonly url: string;
  /** Stops listening. */
  close(): Promise<void>;
}

/**
 * The admin listener's own bounds: a scraper or a probe needs a few connections, quick requests, no
 * long keep-alive; more connections than this get 503.
 */
const ADMIN_MAX_CONNECTIONS = 64;
const ADMIN_TIMEOUTS = { headersTimeout: 5_000, requestTimeout: 10_000, keepAliveTimeout: 5_000 };

/**
 * Serves health, readiness, (with `metrics`) Prometheus metrics and (with `stats`) the proxy's own stats
 * as JSON on 127.0.0.1:`port`, apart from the hosts' listener: outside its connection cap and every
 * host's share of the calls, so a scrape never queues behind hosts' calls and needs no host token
 * [rule 14]. It has caps of its own: 64 connections, 5 s to send a first byte
 * and the headers, 10 s for a request.
 *
 * @example
 * ```ts
 * import { listenAdmin } from './admin.js';
 * const admin = await listenAdmin(0, () => undefined);
 * console.error(admin.url); // http://127.0.0.1:PORT/
 * ```
 */
export async function listenAdmin(
  port: number,
  readiness: () => string | undefined,
  metrics?: ProxyMetrics,
  stats?: () => unknown,
): Promise<AdminListener> {
  const server = createServer({ ...ADMIN_TIMEOUTS, connectionsCheckingInterval: 1_000 }, (req, res) => {
    if (!admit(req, res)) return void res.destroy();
    if (answerHealth(req, res, readiness)) return;
    const path = (req.url ?? '/').split('?')[0];
    if (metrics && req.method === 'GET' && path === '/metrics') {
      metrics.metrics().then(
        (text) => res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
        (error: Error) => res.writeHead(500, { 'content-type': 'text/plain' }).end(error.message),
      );
      return;
    }
    if (stats && req.method === 'GET' && path === '/stats') {
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      return void res.end(JSON.stringify(stats()));
    }
    res
      .writeHead(404, { 'content-type': 'text/plain' })
      .end('not found: /healthz, /readyz, /metrics, /stats\n');
  });
  // Every client is on 127.0.0.1, so the one cap is the per-address cap too.
  const admit = limitConnections(server, {
    maxConnections: ADMIN_MAX_CONNECTIONS,
    maxIdleConnectionsPerAddress: ADMIN_MAX_CONNECTIONS,
    firstByteTimeoutMs: ADMIN_TIMEOUTS.headersTimeout,
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
