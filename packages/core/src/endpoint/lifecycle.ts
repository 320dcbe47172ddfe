import {
  LATEST_LEGACY_REVISION,
  MODERN_REVISION,
  negotiateLegacy,
  REVISIONS,
} from '../revisions/revisions.js';
import type { Endpoint } from './endpoint.js';
import { featureSlot, setFeatureSlot } from './feature-slots.js';

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
  setFeatureSlot(endpoint, DECLARED, identity);
  const checks = featureSlot<Map<string, (identity: ServerIdentity) => void>>(endpoint, PENDING);
  if (checks) for (const check of checks.values()) check(identity);
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

// What each endpoint's lifecycle declares, and the checks its features (serveTools…) left for it: a
// feature served without its capability is one no client calls (lifecycle.mdx), so either order of the
// two calls throws where the mistake is made. Kept on the endpoint itself: see featureSlot.
const DECLARED = /* @__PURE__ */ Symbol('declared identity');
const PENDING = /* @__PURE__ */ Symbol('pending capability checks');

/**
 * Called by a feature that serves a capability's methods on `endpoint` (`by` names it, e.g. `serveTools`):
 * throws a `TypeError` naming the fix when the endpoint's `serveLifecycle` declares no `capability`, now or
 * when it is called later. Internal to core.
 */
export function expectCapability(endpoint: Endpoint, capability: string, by: string): void {
  const check = (identity: ServerIdentity): void => {
    if (identity.capabilities[capability] === undefined)
      throw new TypeError(
        `${by} needs capabilities: { ${capability}: {} } in serveLifecycle: no client asks for undeclared ${capability}`,
      );
  };
  const identity = featureSlot<ServerIdentity>(endpoint, DECLARED);
  if (identity) check(identity);
  // One check per capability: serving tools again on the same endpoint replaces it, never piles up.
  const checks = featureSlot<Map<string, typeof check>>(endpoint, PENDING);
  if (checks) checks.set(capability, check);
  else setFeatureSlot(endpoint, PENDING, new Map([[capability, check]]));
}

/**
 * The capabilities as of each request (a caller may replace them, as a proxy does when its upstream
 * changes), without the legacy `tasks` slot: on 2026-07-28 tasks are an extension [T30].
 */
function modernCapabilities(capabilities: Record<string, unknown>): Record<string, unknown> {
  const { tasks: _legacyTasks, ...modern } = capabilities;
  return modern;
}
