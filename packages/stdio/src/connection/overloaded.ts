import { JsonRpcErrorCode } from '@mcp-inflight/core';

// Admission (at most maxInFlight handlers, a bounded queue, -32010 past it) is core's `Admission`; a
// connection makes one of its own unless given one. Its defaults are re-exported here for stdio's users.
export {
  DEFAULT_MAX_IN_FLIGHT,
  DEFAULT_MAX_QUEUED_BYTES,
  QUEUED_REQUEST_OVERHEAD_BYTES,
} from '@mcp-inflight/core/adapter';

/**
 * The JSON-RPC error code of a request refused at once because its connection's admission queue is full
 * (core's `Admission`, one per connection): -32010, from the range our own codes use (-32002..-32019),
 * with the message "Overloaded: retry later". The request never ran; the peer may send it again later.
 *
 * @example
 * ```ts
 * import { JsonRpcError } from '@mcp-inflight/core';
 * import { OVERLOADED_ERROR_CODE, spawnStdio } from '@mcp-inflight/stdio';
 * const client = spawnStdio('node server.js');
 * await client.connect();
 * try {
 *   await client.request('tools/call', { name: 'work', arguments: { steps: 1, intervalMs: 1 } });
 * } catch (error) {
 *   if (error instanceof JsonRpcError && error.code === OVERLOADED_ERROR_CODE) console.error('busy: retry later');
 * }
 * ```
 */
export const OVERLOADED_ERROR_CODE: -32010 = JsonRpcErrorCode.Overloaded;
