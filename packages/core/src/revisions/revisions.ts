/**
 * The MCP revisions mcp-inflight speaks, oldest first.
 *
 * @example
 * ```ts
 * import { REVISIONS } from '@mcp-inflight/core';
 * REVISIONS.at(-1); // '2026-07-28', the newest
 * const offered = [...REVISIONS].reverse(); // newest first, as a client offers them
 * ```
 */
export const REVISIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'] as const;

/**
 * One MCP protocol revision.
 *
 * @example
 * ```ts
 * import { isRevision, type Revision } from '@mcp-inflight/core';
 * function pickRevision(header: string | undefined): Revision {
 *   return isRevision(header) ? header : '2025-11-25';
 * }
 * ```
 */
export type Revision = (typeof REVISIONS)[number];

/**
 * The first revision without `initialize`, sessions or client-sent progress.
 */
export const MODERN_REVISION: Revision = '2026-07-28';

/**
 * The newest revision negotiated through `initialize`.
 */
export const LATEST_LEGACY_REVISION: Revision = '2025-11-25';

/**
 * What an HTTP request without `MCP-Protocol-Version` is read as [H37].
 */
export const DEFAULT_HTTP_REVISION: Revision = '2025-03-26';

/**
 * `_meta` key that carries the revision on every 2026-07-28 request [M1].
 */
export const PROTOCOL_VERSION_META_KEY = 'io.modelcontextprotocol/protocolVersion';

/**
 * `_meta` key for the client's name and version on 2026-07-28 requests [M4].
 */
export const CLIENT_INFO_META_KEY = 'io.modelcontextprotocol/clientInfo';

/**
 * `_meta` key for client capabilities on every 2026-07-28 request [M2].
 */
export const CLIENT_CAPABILITIES_META_KEY = 'io.modelcontextprotocol/clientCapabilities';

const KNOWN = /* @__PURE__ */ new Set<string>(REVISIONS);

/**
 * Whether `value` names a revision we speak.
 *
 * @example
 * ```ts
 * import { isRevision } from '@mcp-inflight/core';
 * isRevision('2025-06-18'); // true
 * isRevision('2025-06-19'); // false: not a revision we speak
 * isRevision(20250618); // false
 * ```
 */
export function isRevision(value: unknown): value is Revision {
  return typeof value === 'string' && KNOWN.has(value);
}

/**
 * Legacy means 2025-11-25 and earlier: `initialize`, sessions, either side may send progress [M12].
 */
export function isLegacy(revision: Revision): boolean {
  return revision !== MODERN_REVISION;
}

/**
 * `notifications/progress` has `message` from 2025-03-26 on [PS6].
 */
export function hasProgressMessage(revision: Revision): boolean {
  return revision !== '2024-11-05';
}

/**
 * JSON-RPC batches exist only in 2025-03-26 [J9 J13].
 */
export function allowsBatches(revision: Revision): boolean {
  return revision === '2025-03-26';
}

/**
 * Streamable HTTP exists from 2025-03-26; 2024-11-05 clients reach us over stdio.
 */
export function hasStreamableHttp(revision: Revision): boolean {
  return revision !== '2024-11-05';
}

/**
 * The revision a message belongs to: its own `_meta["io.modelcontextprotocol/protocolVersion"]`
 * (2026-07-28 requests carry it [M1]), else the session's negotiated revision (legacy: `initialize`, or the
 * HTTP header). Returns `undefined` when the message names a revision we do not speak, or when it names
 * none and there is no session revision, so the caller can answer with the error its transport names.
 *
 * @example
 * ```ts
 * import { revisionOf } from '@mcp-inflight/core';
 * revisionOf({ method: 'tools/call', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } } });
 * // '2026-07-28'
 * revisionOf({ method: 'tools/call', params: {} }, '2025-06-18'); // '2025-06-18'
 * ```
 */
export function revisionOf(message: unknown, sessionRevision?: Revision): Revision | undefined {
  const claimed = metaVersionOf(message);
  if (claimed !== undefined) return isRevision(claimed) ? claimed : undefined;
  return sessionRevision;
}

/**
 * The raw `_meta` protocol version a message claims, if any (not checked against what we speak).
 */
export function metaVersionOf(message: unknown): unknown {
  if (typeof message !== 'object' || message === null) return undefined;
  const params = (message as { params?: unknown }).params;
  if (typeof params !== 'object' || params === null) return undefined;
  const meta = (params as { _meta?: unknown })._meta;
  if (typeof meta !== 'object' || meta === null) return undefined;
  return (meta as Record<string, unknown>)[PROTOCOL_VERSION_META_KEY];
}

/**
 * The revision an HTTP request's `MCP-Protocol-Version` header selects: missing means 2025-03-26 [H37];
 * an unknown value is `undefined` (the server answers 400 [H38]).
 */
export function revisionOfHeader(header: string | null | undefined): Revision | undefined {
  if (header === null || header === undefined || header === '') return DEFAULT_HTTP_REVISION;
  return isRevision(header) ? header : undefined;
}

/**
 * What a legacy server answers to `initialize` asking for `requested`: the same revision when it is a
 * legacy one we speak [M17], else the newest legacy revision. Over HTTP, 2024-11-05 (which has no
 * Streamable HTTP) is offered 2025-03-26 instead.
 */
export function negotiateLegacy(requested: unknown, transport: 'stdio' | 'http' = 'stdio'): Revision {
  const chosen = isRevision(requested) && isLegacy(requested) ? requested : LATEST_LEGACY_REVISION;
  return chosen === '2024-11-05' && transport === 'http' ? DEFAULT_HTTP_REVISION : chosen;
}
