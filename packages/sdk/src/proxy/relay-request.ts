import type { DeadlineController, Revision } from '@mcp-inflight/core';
import { InflightError } from '@mcp-inflight/core';
import { inflightErrorFromAbort, WireError, withoutMcpPrefix } from '../errors.js';
import { passthroughSchema } from '../host/call-with-deadline.js';
import { absorbLateMessages } from '../host/late-messages.js';
import { keepProgressOrder } from '../host/progress-order.js';
import { runRequestLifecycle } from '../host/request-lifecycle.js';
import { type RelayOptions, sharedRelay } from '../relay-for.js';
import { readInbound } from '../server/inbound.js';
import type { ClientLike, HandlerContext, RequestLike } from '../shapes.js';
import { relayedRequest } from './relayed-request.js';

/**
 * Options for {@link relayRequest}.
 *
 * @example
 * ```ts
 * import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
 * import type { HandlerContext, RelayRequestOptions, RequestLike } from '@mcp-inflight/sdk';
 * import { relayRequest } from '@mcp-inflight/sdk';
 * declare const upstream: Client;
 * const options: RelayRequestOptions = {
 *   idleMs: 30_000,
 *   minIntervalMs: 250, // at most 4 progress updates a second down to the host
 *   revision: '2024-11-05', // a v1 server on stdio cannot tell, and this host's revision has no `message`
 * };
 * const relay = (request: RequestLike, extra: HandlerContext) =>
 *   relayRequest(extra, upstream, request, options);
 * ```
 */
export interface RelayRequestOptions extends RelayOptions {
  /** Ends the upstream call when this long passes with no progress from upstream. @default 60_000 */
  idleMs?: number;
  /** Ends the upstream call this long after it started, whatever progress says. @default 600_000 */
  ceilingMs?: number;
  /**
   * The host request's own deadline, if the proxy keeps one: the upstream call is its child, so it never
   * outlives it, and upstream progress counts as activity there too.
   */
  deadline?: DeadlineController;
  /** Coalescing interval for progress sent down to the host. @default 50 */
  minIntervalMs?: number;
  /** The host's revision when the SDK does not say (v1 over stdio): `2024-11-05` drops `message`. */
  revision?: Revision;
}

/**
 * Relays one inbound request, inside an SDK server handler (v1 `extra` or v2 `ctx`), to an upstream SDK
 * `Client` (v1 or v2), and returns the upstream result for the handler to return.
 *
 * - Progress: the upstream call gets a fresh token (the upstream SDK mints one per call, unique among its
 *   active requests [PG4]); its progress is mapped back to the host's own token through a ProgressRelay
 *   route: strictly increasing [PG6], coalesced, flushed before the result, nothing after it [PG12], and
 *   sent related to the host request (its own HTTP stream [PT2 PT6]). No host token, no progress down.
 * - Cancellation: the host's cancel (the handler's signal) cancels the upstream call, keeping its cause;
 *   the upstream SDK signals it the way the upstream era wants.
 * - Deadline: a child of `options.deadline` (the host request's), with its own idle and ceiling limits.
 * - Errors reach the host as JSON-RPC errors carrying `data.cause` (IDLE_TIMEOUT, CEILING, UPSTREAM_CLOSED),
 *   which {@link callWithDeadline} reads back into an InflightError; upstream errors keep their code.
 *
 * It also applies {@link absorbLateMessages} and {@link keepProgressOrder} to the upstream client: upstream
 * traffic that arrives after a host cancelled is expected there, and the last progress must not be lost.
 *
 * Two hosts are kept apart by construction: each host connection has its own SDK server, so each relayed
 * call closes over its own host's token, signal and sender, whatever request ids or tokens the hosts chose.
 *
 * @example
 * ```ts
 * import { Server } from '@modelcontextprotocol/sdk/server/index.js';
 * import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
 * import { CallToolRequestSchema } from '@modelcontextprotocol/sdk/types.js';
 * import { relayRequest } from '@mcp-inflight/sdk';
 *
 * function front(upstream: Client): Server {
 *   const server = new Server({ name: 'proxy', version: '1.0.0' }, { capabilities: { tools: {} } });
 *   server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
 *     relayRequest(extra, upstream, request, { idleMs: 60_000, ceilingMs: 600_000 }),
 *   );
 *   return server;
 * }
 * ```
 */
// biome-ignore lint/suspicious/noExplicitAny: the upstream's result passes through unvalidated; by default it takes the type the SDK handler must return.
export async function relayRequest<T = any>(
  context: HandlerContext,
  upstream: ClientLike,
  request: RequestLike,
  options: RelayRequestOptions = {},
): Promise<T> {
  const inbound = readInbound(context, options.revision);
  const token = inbound.token;
  const openRoute = () =>
    sharedRelay(options).open({
      // With no host token the route only filters (activity still counts); nothing is sent [PS3].
      token: token ?? 0,
      revision: inbound.revision,
      ...(options.minIntervalMs === undefined ? {} : { minIntervalMs: options.minIntervalMs }),
      send:
        token === undefined
          ? () => {}
          : (params) => {
              inbound.notify({ method: 'notifications/progress', params }).catch(() => {});
            },
    });
  // The upstream client is ours to keep quiet: its late traffic after a host's cancel is expected.
  absorbLateMessages(upstream);
  keepProgressOrder(upstream);
  const forwarded = relayedRequest(request);
  try {
    // A proxy passes results through as the upstream sent them: no schema of ours in the way.
    // Both majors take (request, schema, options) for any method.
    return (await runRequestLifecycle((sdk) => upstream.request(forwarded, passthroughSchema, sdk), options, {
      openRoute,
      signal: inbound.signal,
      fromAbort: inflightErrorFromAbort,
      closedAs: 'UPSTREAM_CLOSED',
    })) as T;
  } catch (error) {
    throw toHostError(error);
  }
}

// What the host's SDK server writes is read off the thrown error's `code`, `message` and `data`.
function toHostError(error: unknown): unknown {
  if (error instanceof InflightError) return WireError.of(error);
  if (typeof error === 'object' && error !== null) {
    const { code, message, data } = error as { code?: unknown; message?: unknown; data?: unknown };
    if (typeof code === 'number' && typeof message === 'string') {
      // Keep the upstream's error, minus v1's "MCP error <code>: " prefix, which the host's SDK adds again.
      return new WireError({ code, message: withoutMcpPrefix(message), data }, { cause: error });
    }
  }
  return error;
}
