/**
 * The public surface of `@mcp-inflight/proxy`: explicit named exports only. Build a proxy with
 * {@link createProxy}; serve it on stdio, on HTTP or through a Fetch handler; or relay one call yourself
 * with {@link CallRelay.call}. The Prometheus metrics are on `@mcp-inflight/proxy/metrics` and the bin's
 * command line on `@mcp-inflight/proxy/cli`, so this entry never loads prom-client.
 *
 * @module @mcp-inflight/proxy
 */

export { type AdminListener, listenAdmin } from './admin.js';
export { CallRelay, type CallRelayOptions } from './call-relay.js';
export { type EndpointLogEvent, logEndpointEvents } from './endpoint-log.js';
export {
  argumentsForLog,
  type CallEvent,
  type CallOutcome,
  countCall,
  emptyStats,
  formatEvent,
  jsonLine,
  LOG_ARGUMENTS_MAX_CHARS,
  levelOf,
  type ProxyEvent,
  type ProxyStats,
} from './events.js';
export {
  DEFAULT_MAX_ADDRESS_CLIENTS,
  DEFAULT_MAX_CLIENT_SESSIONS,
  DEFAULT_MAX_HOST_IN_FLIGHT,
} from './fair-shares.js';
export { hostLabel } from './host-label.js';
export { bearerCheck, UNAUTHORIZED_CODE } from './http-routes.js';
export { ASKED_METHODS, InputBroker, type InputBrokerOptions } from './input-broker.js';
export { type HttpListenOptions, type Listener, listenHttp, listenStdio } from './listeners.js';
export { PassHeaders } from './pass-headers.js';
export { createProxy, type McpProxy, type ProxyConfig } from './proxy.js';
export { capabilitiesForHosts, RELAYED_METHODS, resultForHost } from './relayed-methods.js';
export { type ProxyStatsSources, serveProxyStats } from './stats.js';
export type { StoreHealth, TaskDirectory, TaskTableOptions } from './task-directory.js';
export type { TaskLeg } from './task-leg.js';
export { TaskTable } from './task-table.js';
export {
  clientUpstream,
  PROXY_CAPABILITIES,
  PROXY_CLIENT_INFO,
  type UpstreamClientOptions,
  type UpstreamTarget,
} from './upstream-client.js';
export {
  type UpstreamConnection,
  type UpstreamConnector,
  type UpstreamEvent,
  UpstreamLink,
} from './upstream-link.js';
