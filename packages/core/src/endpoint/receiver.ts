import { JsonRpcErrorCode } from '../errors/causes.js';
import type { Role, TransportKind } from '../policy/era-cancel-policy.js';
import {
  allowsBatches,
  isLegacy,
  LATEST_LEGACY_REVISION,
  MODERN_REVISION,
  metaVersionOf,
  negotiateLegacy,
  REVISIONS,
  type Revision,
  revisionOf,
} from '../revisions/revisions.js';
import { isCancelledParams, isProgressParams } from '../schemas/guards.js';
import type { RequestId } from '../schemas/types.js';
import { BatchCollector, batchTooLargeWhy } from './batch.js';
import type { Channel } from './channel.js';
import type { HandlerOptions, NotificationHandler, RequestHandler } from './context.js';
import type { InboundRequests } from './inbound.js';
import {
  type Classified,
  classify,
  errorResponse,
  type JsonRpcMessage,
  type MessageFields,
  type ProgressFields,
} from './messages.js';
import type { OutboundRequests } from './outbound.js';

/** Requests 2026-07-28 removed: answered -32601 there, whoever registered a handler [TO10 M12]. */
const REMOVED_IN_MODERN: ReadonlySet<string> = new Set(['ping', 'initialize']);

/** What a {@link Receiver} reads of its endpoint, and the session's revision, which `initialize` sets. */
export interface ReceiverHost {
  readonly role: Role;
  readonly transport: TransportKind;
  readonly channel: Channel;
  readonly maxBatchElements: number;
  revision: Revision | undefined;
}

/**
 * What an endpoint received, sorted: a batch into its elements, progress to the outbound table (the hot
 * path), a request to its handler through the inbound table, a cancel to the request it names, a response
 * to its call, and what is invalid to the JSON-RPC error the spec names, or to a counter.
 */
export class Receiver {
  readonly handlers = new Map<string, RequestHandler>();
  readonly handlerLimits = new Map<string, HandlerOptions>();
  readonly notificationHandlers = new Map<string, NotificationHandler>();
  /** Notifications ignored: malformed, or for a method nobody handles [CN15]. */
  ignoredNotifications = 0;
  /** Input that was not JSON, when we are the client (a client does not answer it). */
  badInput = 0;
  readonly #host: ReceiverHost;
  readonly #inbound: InboundRequests;
  readonly #outbound: OutboundRequests;
  readonly #onError: (error: unknown, context: string) => void;

  constructor(host: ReceiverHost, inbound: InboundRequests, outbound: OutboundRequests) {
    this.#host = host;
    this.#inbound = inbound;
    this.#outbound = outbound;
    this.#onError = inbound.settings.onError;
  }

  /** Text that was not JSON: a server answers -32700; a client only counts it [S5]. */
  notJson(): void {
    if (this.#host.role === 'client') this.badInput++;
    else
      this.#host.channel.write(
        errorResponse(null, JsonRpcErrorCode.ParseError, 'Parse error: the input is not valid JSON'),
      );
  }

  batch(values: unknown[], source: string | number | undefined): void {
    // Batches exist only in 2025-03-26 [J9 J13]; an empty one is invalid. The spec names no error for one
    // over maxBatchElements: it is refused whole, so its answer stays one small message.
    const host = this.#host;
    const n = values.length;
    const max = host.maxBatchElements;
    const why =
      n === 0
        ? 'an empty batch'
        : !(host.revision && allowsBatches(host.revision))
          ? 'batches are not part of this revision'
          : n > max
            ? batchTooLargeWhy(max)
            : undefined;
    if (why) {
      if (host.role === 'client') return void this.badInput++; // a client answers no batch it did not send
      host.channel.write(errorResponse(null, JsonRpcErrorCode.InvalidRequest, `Invalid Request: ${why}`));
      return;
    }
    const batch = new BatchCollector(host.channel);
    for (const value of values) this.one(value, batch, source, n);
    batch.seal();
  }

  /** One message; `parts` is how many came with it (a batch's elements), for the admission's bound. */
  one(
    value: unknown,
    batch: BatchCollector | undefined,
    source: string | number | undefined,
    parts: number,
  ): void {
    // The hot path: progress skips classification and allocates nothing until it is routed.
    const m = value as MessageFields | null;
    if (m !== null && typeof m === 'object' && m.method === 'notifications/progress' && m.id === undefined) {
      // `message` is checked by the route for the revisions that have it (2024-11-05 ignores it).
      if (m.jsonrpc === '2.0' && isProgressParams(m.params, false))
        this.#outbound.progress(m.params as ProgressFields);
      else this.ignoredNotifications++; // invalid notifications are ignored [CN15]
      return;
    }
    const c = classify(value);
    switch (c.kind) {
      case 'request':
        return this.#request(c, batch, source, parts);
      case 'notification':
        return this.#notification(c.method, c.params);
      case 'response':
        return this.#outbound.response(c.id, c.result, c.error);
      case 'invalid': {
        // Only something that tried to be a request is answered: never a response (two endpoints would
        // answer each other's errors forever), never a notification [CN15], and never by a 2026-07-28
        // client, which writes no responses [S5].
        if (!c.answerable || (this.#host.role === 'client' && this.#host.revision === MODERN_REVISION)) {
          // A broken answer to a call of ours (both result and error, a malformed error) is reported and
          // dropped: the call stays pending, to end by a valid answer or its deadline. Others are counted.
          if (this.#outbound.has(c.id)) {
            this.#onError(new Error(`invalid response ${JSON.stringify(c.id)}: ${c.message}`), 'response');
          } else this.ignoredNotifications++;
          return;
        }
        this.#write(errorResponse(c.id, c.code, `Invalid Request: ${c.message}`), batch, undefined);
      }
    }
  }

  /** Writes a reply, or adds it to the batch it belongs to. */
  #write(message: JsonRpcMessage, batch: BatchCollector | undefined, related: RequestId | undefined): void {
    if (batch) {
      batch.expect();
      batch.add(message);
    } else
      this.#host.channel.write(
        message,
        related,
        related === undefined ? undefined : { kind: 'response', id: related },
      );
  }

  #request(
    request: Classified & { kind: 'request' },
    batch: BatchCollector | undefined,
    source: string | number | undefined,
    parts: number,
  ): void {
    const { id, method, params } = request;
    const host = this.#host;
    const reply = (message: JsonRpcMessage): void => this.#write(message, batch, id);
    let revision = revisionOf({ params }, host.revision);
    if (revision === undefined) {
      const requested = metaVersionOf({ params });
      if (requested !== undefined) {
        return reply(
          errorResponse(id, JsonRpcErrorCode.UnsupportedProtocolVersion, 'Unsupported protocol version', {
            supported: REVISIONS,
            requested,
          }),
        );
      }
      revision = LATEST_LEGACY_REVISION; // no session yet and no envelope: serve leniently as legacy
    }
    const handler =
      isLegacy(revision) || !REMOVED_IN_MODERN.has(method) ? this.handlers.get(method) : undefined;
    if (!handler) return reply(errorResponse(id, JsonRpcErrorCode.MethodNotFound, methodNotFound(method)));
    batch?.expect();
    const onResult =
      method === 'initialize'
        ? (result: unknown) => {
            const chosen = (result as { protocolVersion?: unknown } | undefined)?.protocolVersion;
            host.revision = negotiateLegacy(chosen, host.transport);
          }
        : undefined;
    const limits = this.handlerLimits.get(method);
    this.#inbound.dispatch({ id, method, params, revision, handler, batch, onResult, limits, source, parts });
  }

  #notification(method: string, params: Record<string, unknown> | undefined): void {
    const revision = revisionOf({ params }, this.#host.revision);
    if (method === 'notifications/cancelled') {
      // A malformed cancel, or one without an id (2025-11-25 allows that shape only for tasks, which use
      // tasks/cancel [CN16]), is ignored quietly [CN15].
      if (!params || !isCancelledParams(params, false)) {
        this.ignoredNotifications++;
        return;
      }
      const cancel = params as { requestId?: unknown; reason?: unknown };
      // A client is told so by a server ending its listen stream [CN3]; otherwise a cancel is for inbound work.
      if (this.#host.role !== 'client' || !this.#outbound.endedByPeer(cancel.requestId as RequestId))
        this.#inbound.cancel(cancel.requestId as RequestId, cancel.reason as string | undefined);
    }
    const handler = this.notificationHandlers.get(method);
    if (!handler) {
      if (method !== 'notifications/cancelled') this.ignoredNotifications++;
      return;
    }
    try {
      handler(params, revision);
    } catch (error) {
      // A listener's bug must not reach the read loop.
      this.#onError(error, `notification handler for ${method}`);
    }
  }
}

/**
 * A missing handshake is a set-up mistake, not a peer's: the message says which call serves it, while
 * the code stays the spec's -32601.
 */
function methodNotFound(method: string): string {
  return method === 'initialize' || method === 'server/discover'
    ? `Method not found: ${method} (this endpoint serves no lifecycle: call serveLifecycle)`
    : `Method not found: ${method}`;
}
