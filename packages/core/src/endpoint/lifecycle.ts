import { LATEST_LEGACY_REVISION, MODERN_REVISION, negotiateLegacy, REVISIONS } from '../eras/eras.js';
import type { Endpoint } from './endpoint.js';

/**
 * Who a server says it is, and what it offers.
 *
 * @example
 * ```ts
 * import { type Endpoint, type ServerIdentity, serveLifecycle } from '@mcp-inflight/core';
 * declare const endpoint: Endpoint;
 * const identity: ServerIdentity = {
 *   serverInfo: { name: 'files', version: '2.1.0', title: 'File tools' }, // extra keys are passed on
 *   capabilities: { tools: { listChanged: true } },
 *   instructions: 'Call list_files before read_file.', // left out of both answers when undefined
 * };
 * serveLifecycle(endpoint, identity);
 * ```
 */
export interface ServerIdentity {
  /** The server's name and version (`Implementation`), plus any other fields to send. */
  serverInfo: {
    /** The implementation's name. */
    name: string;
    /** Its version. */
    version: string;
    [key: string]: unknown;
  };
  /** The server's capabilities. */
  capabilities: Record<string, unknown>;
  /** Instructions for the model, sent with the handshake. */
  instructions?: string;
}

/**
 * `_meta` key for the server's identity on 2026-07-28 results [M20].
 *
 * @example
 * ```ts
 * import { type Endpoint } from '@mcp-inflight/core';
 * import { SERVER_INFO_META_KEY } from '@mcp-inflight/core/adapter';
 * declare const client: Endpoint;
 * const discovered = (await client.request('server/discover')) as { _meta?: Record<string, unknown> };
 * // 2026-07-28 has no initialize: the server's name and version ride in the result's `_meta`.
 * const serverInfo = discovered._meta?.[SERVER_INFO_META_KEY] as { name: string } | undefined;
 * ```
 */
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
    protocolVersion: negotiateLegacy(
      (params as { protocolVersion?: unknown } | undefined)?.protocolVersion ?? LATEST_LEGACY_REVISION,
      endpoint.transport,
    ),
    capabilities: identity.capabilities,
    serverInfo: identity.serverInfo,
    ...extra,
  }));
  endpoint.setRequestHandler('server/discover', () => ({
    supportedVersions: [MODERN_REVISION, ...REVISIONS.filter((r) => r !== MODERN_REVISION).reverse()],
    capabilities: modernCapabilities(identity.capabilities),
    ...extra,
    // A cacheable result [CA2]: always fresh and never shared, since capabilities may differ per client.
    ttlMs: 0,
    cacheScope: 'private',
    _meta: { [SERVER_INFO_META_KEY]: identity.serverInfo },
  }));
  endpoint.setNotificationHandler('notifications/initialized', () => {});
}

/**
 * The capabilities as of each request (a caller may replace them, as a proxy does when its upstream
 * changes), without the legacy `tasks` slot: on 2026-07-28 tasks are an extension [T30].
 */
function modernCapabilities(capabilities: Record<string, unknown>): Record<string, unknown> {
  const { tasks: _legacyTasks, ...modern } = capabilities;
  return modern;
}
