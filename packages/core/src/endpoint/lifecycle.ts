import { LATEST_LEGACY_REVISION, MODERN_REVISION, negotiateLegacy, REVISIONS } from '../eras/eras.js';
import type { Endpoint } from './endpoint.js';

/** Who a server says it is, and what it offers. */
export interface ServerIdentity {
  serverInfo: { name: string; version: string; [key: string]: unknown };
  capabilities: Record<string, unknown>;
  instructions?: string;
}

/** `_meta` key for the server's identity on 2026-07-28 results [M20]. */
export const SERVER_INFO_META_KEY = 'io.modelcontextprotocol/serverInfo';

/**
 * Answers the handshakes of both eras on a server endpoint: legacy `initialize` (echoing a legacy
 * revision we speak, else offering the newest [M17]) and 2026-07-28 `server/discover` [M8], so one server
 * serves every revision.
 *
 * @example
 * ```ts
 * import { Endpoint, serveLifecycle } from '@mcp-inflight/core';
 * const endpoint = new Endpoint({ role: 'server', transport: 'stdio', channel: { write: () => {} } });
 * serveLifecycle(endpoint, { serverInfo: { name: 'demo', version: '1.0.0' }, capabilities: { tools: {} } });
 * ```
 */
export function serveLifecycle(endpoint: Endpoint, identity: ServerIdentity): void {
  const extra = identity.instructions === undefined ? {} : { instructions: identity.instructions };
  endpoint.setRequestHandler('initialize', (params) => ({
    protocolVersion: negotiateLegacy(params?.protocolVersion ?? LATEST_LEGACY_REVISION, endpoint.transport),
    capabilities: identity.capabilities,
    serverInfo: identity.serverInfo,
    ...extra,
  }));
  endpoint.setRequestHandler('server/discover', () => ({
    supportedVersions: [MODERN_REVISION, ...REVISIONS.filter((r) => r !== MODERN_REVISION).reverse()],
    capabilities: identity.capabilities,
    ...extra,
    _meta: { [SERVER_INFO_META_KEY]: identity.serverInfo },
  }));
  endpoint.setNotificationHandler('notifications/initialized', () => {});
}
