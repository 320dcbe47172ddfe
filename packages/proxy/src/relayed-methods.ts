import type { CacheHints } from '@mcp-inflight/client';
import type { Revision } from '@mcp-inflight/core';
import { isLegacy, TASKS_EXTENSION } from '@mcp-inflight/core/adapter';

/**
 * The request methods a host may send that the proxy passes upstream. Lifecycle (`initialize`,
 * `server/discover`) and `ping` are answered by the proxy itself: the upstream connection is shared, so
 * its handshake is the proxy's, done once. Server-to-client requests and subscriptions are not relayed
 * (see README).
 *
 * @example
 * ```ts
 * import { RELAYED_METHODS } from './relayed-methods.js';
 * RELAYED_METHODS.includes('tools/call'); // true
 * ```
 */
export const RELAYED_METHODS: readonly string[] = [
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'prompts/list',
  'prompts/get',
  'completion/complete',
];

/** Results 2026-07-28 requires to carry `ttlMs` and `cacheScope` [CA1]. */
const CACHEABLE = new Set([
  'tools/list',
  'prompts/list',
  'resources/list',
  'resources/read',
  'resources/templates/list',
]);

/**
 * The upstream's result as the host's revision expects it: `resultType` exists only from 2026-07-28
 * [L7], so a legacy host gets a plain result; a 2026-07-28 host gets `resultType` added by its endpoint
 * when the upstream (legacy) sent none, and on a cacheable result `ttlMs` and `cacheScope` from `hints`
 * unless the upstream sent its own [CA1].
 *
 * @example
 * ```ts
 * import { NO_CACHING } from '@mcp-inflight/client';
 * import { resultForHost } from './relayed-methods.js';
 * resultForHost({ resultType: 'complete', content: [] }, '2025-06-18', 'tools/call', NO_CACHING); // { content: [] }
 * resultForHost({ tools: [] }, '2026-07-28', 'tools/list', NO_CACHING); // { tools: [], ttlMs: 0, cacheScope: 'private' }
 * ```
 */
export function resultForHost(
  result: unknown,
  hostRevision: Revision,
  method: string,
  hints: CacheHints,
): unknown {
  if (typeof result !== 'object' || result === null || Array.isArray(result)) return result;
  const r = result as Record<string, unknown>;
  if (!isLegacy(hostRevision)) {
    if (!CACHEABLE.has(method)) return result;
    return { ttlMs: hints.ttlMs, cacheScope: hints.cacheScope, ...r };
  }
  if (r.resultType !== 'complete') return result;
  const { resultType: _dropped, ...rest } = r;
  return rest;
}

/**
 * The capabilities hosts are offered: the upstream's, minus what one shared upstream connection cannot
 * carry to a particular host (its log messages, its per-host resource subscriptions), so no host waits for
 * messages that will never come. List changes are relayed: the proxy listens upstream and publishes them
 * to every host that listens (or, legacy, to every host). Of 2025-11-25 `tasks`, what the proxy relays:
 * task augmentation of `tools/call`, `tasks/cancel` and `tasks/list` (each host's own tasks).
 *
 * @example
 * ```ts
 * import { capabilitiesForHosts } from './relayed-methods.js';
 * capabilitiesForHosts({ tools: { listChanged: true }, logging: {} }); // { tools: { listChanged: true } }
 * ```
 */
export function capabilitiesForHosts(
  capabilities: Record<string, unknown> | undefined,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(capabilities ?? {})) {
    if (key === 'logging') continue;
    if (key === 'tasks') {
      const tasks = tasksForHosts(value);
      if (tasks) out.tasks = tasks;
      continue;
    }
    // A 2026-07-28 upstream declares tasks as an extension only (its discover has no legacy slot); the
    // proxy bridges 2025-11-25 task calls to it, so 2025-11-25 hosts are offered the legacy slot.
    if (key === 'extensions' && isTasksExtension(value) && out.tasks === undefined)
      out.tasks = { list: {}, cancel: {}, requests: { tools: { call: {} } } };
    if (
      (key === 'tools' || key === 'prompts' || key === 'resources') &&
      typeof value === 'object' &&
      value !== null
    ) {
      const { subscribe: _s, ...rest } = value as Record<string, unknown>;
      out[key] = rest;
    } else out[key] = value;
  }
  return out;
}

/** The 2025-11-25 `tasks` capability as hosts see it: only `tools/call` augmentation is relayed. */
const isTasksExtension = (value: unknown): boolean =>
  typeof value === 'object' && value !== null && TASKS_EXTENSION in value;

function tasksForHosts(value: unknown): Record<string, unknown> | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { list, cancel, requests } = value as Record<string, unknown>;
  const call = (requests as { tools?: { call?: unknown } } | undefined)?.tools?.call;
  if (typeof call !== 'object' || call === null) return undefined;
  return {
    ...(list === undefined ? {} : { list }),
    ...(cancel === undefined ? {} : { cancel }),
    requests: { tools: { call } },
  };
}
