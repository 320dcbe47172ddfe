import { relayedParams } from '@mcp-inflight/core/adapter';
import type { RequestLike } from '../shapes.js';

/**
 * The request as it goes upstream: the same method and params, minus the host's `progressToken` (the upstream
 * leg gets its own [PG4]) and minus the host leg's envelope keys (core's `relayedParams`). Other `_meta`
 * keys pass through.
 *
 * @example
 * ```ts
 * import { relayedRequest } from '@mcp-inflight/sdk';
 * relayedRequest({ method: 'tools/call', params: { name: 'work', _meta: { progressToken: 7, trace: 'x' } } });
 * // { method: 'tools/call', params: { name: 'work', _meta: { trace: 'x' } } }
 * ```
 */
export function relayedRequest(request: RequestLike): RequestLike {
  const params = relayedParams(request.params);
  return { method: request.method, ...(params ? { params } : {}) };
}
