import type { RequestLike } from '../shapes.js';

// Keys under this prefix are the 2026-07-28 per-request envelope [M1 M2]: they describe the host's leg, and
// the upstream SDK writes its own for the upstream leg.
const ENVELOPE_PREFIX = 'io.modelcontextprotocol/';

/**
 * The request as it goes upstream: the same method and params, minus the host's `progressToken` (the upstream
 * leg gets its own [PG4]) and minus the host leg's envelope keys. Other `_meta` keys pass through.
 *
 * @example
 * ```ts
 * import { forwardedRequest } from '@mcp-inflight/sdk';
 * forwardedRequest({ method: 'tools/call', params: { name: 'work', _meta: { progressToken: 7, trace: 'x' } } });
 * // { method: 'tools/call', params: { name: 'work', _meta: { trace: 'x' } } }
 * ```
 */
export function forwardedRequest(request: RequestLike): RequestLike {
  const params = request.params;
  const meta = params?._meta;
  if (!params || typeof meta !== 'object' || meta === null)
    return { method: request.method, ...(params ? { params } : {}) };
  const kept: Record<string, unknown> = {};
  let any = false;
  for (const key of Object.keys(meta)) {
    if (key === 'progressToken' || key.startsWith(ENVELOPE_PREFIX)) continue;
    kept[key] = meta[key];
    any = true;
  }
  const { _meta: _dropped, ...rest } = params;
  return { method: request.method, params: any ? { ...rest, _meta: kept } : rest };
}
