/**
 * `@mcp-inflight/client`: the one client shape every transport implements (`McpClient`), the class the
 * stdio and HTTP clients are built on (`LifecycleClient`), and the handshake a client makes
 * (`connectLifecycle`). Tasks and multi round-trip input have entries of their own.
 *
 * @module @mcp-inflight/client
 */
export { type CacheHints, NO_CACHING } from './lifecycle/cache-hints.js';
export { type ClientTransport, LifecycleClient, type McpClient } from './lifecycle/client.js';
export { connectLifecycle, type LifecycleHooks } from './lifecycle/connect-lifecycle.js';
export {
  type ClientIdentity,
  type ConnectOptions,
  NegotiationError,
  type ServerHandshake,
} from './lifecycle/handshake.js';
