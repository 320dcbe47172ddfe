/**
 * How a host is named in logs and stats: an HTTP session id shortened to its first 8 characters (enough to
 * tell sessions apart, too little to reuse one), or `http request` for a 2026-07-28 stateless request.
 *
 * @example
 * ```ts
 * import { hostLabel } from '@mcp-inflight/proxy';
 * hostLabel('0f3c9a1e-77aa-4c1e-9d0a-5b2e6f7a8c9d'); // 'http session 0f3c9a1e'
 * ```
 */
export function hostLabel(sessionId: string | undefined): string {
  return sessionId === undefined ? 'http request' : `http session ${sessionId.slice(0, 8)}`;
}
