/**
 * Caching hints of a 2026-07-28 list result (`tools/list`, prompts, resources), which that revision requires
 * on every cacheable result [CA1]: what a client may reuse, and for how long.
 *
 * @example
 * ```ts
 * import type { CacheHints } from '@mcp-inflight/client';
 * const hints: CacheHints = { ttlMs: 60_000, cacheScope: 'public' }; // the same list for every client
 * ```
 */
export interface CacheHints {
  /** How long a client may reuse the list, in milliseconds (a non-negative integer). */
  ttlMs: number;
  /** `public`: shared intermediaries may cache it; `private`: only this client. */
  cacheScope: 'public' | 'private';
}

/**
 * The default cache hints of a 2026-07-28 list result: they claim nothing, so a client re-asks and no
 * intermediary shares the list. A proxy that cannot vouch for its upstream's lists answers with these.
 *
 * @example
 * ```ts
 * import { NO_CACHING } from '@mcp-inflight/client';
 * const result = { tools: [], ...NO_CACHING }; // { tools: [], ttlMs: 0, cacheScope: 'private' }
 * ```
 */
export const NO_CACHING: CacheHints = { ttlMs: 0, cacheScope: 'private' };
