import {
  Endpoint,
  eraCancelPolicy,
  InflightError,
  JsonRpcErrorCode,
  type RequestId,
} from '@mcp-inflight/core';
import {
  type Channel,
  classify,
  type JsonRpcMessage,
  MODERN_REVISION,
  type SendIntent,
  servedParamHeaders,
} from '@mcp-inflight/core/adapter';
import { HTTP_ERROR_CODES } from '../shared/error-codes.js';
import type { JsonBody } from './body.js';
import { acceptsOf, errorCodeOf, type ServeContext } from './context.js';
import { type Disconnect, type InboundRequest, Reply } from './exchange.js';
import { LEGACY_HTTP } from './legacy.js';
import { checkModernRequest, checkParamHeaders } from './modern-checks.js';
import { accepted, errorReply } from './replies.js';
import { type DisconnectWhy, ResponseStream } from './response-stream.js';

/** A request as {@link classify} reads it. */
type ModernRequest = Extract<ReturnType<typeof classify>, { kind: 'request' }>;

/** Core's policy decides what a dropped stream means on this revision (a cancel [CN24]); http only acts on it. */
// Pure: a bundle of the client alone (the browser HttpClient) leaves this server constant out.
const DISCONNECT_IS_CANCEL = /* @__PURE__ */ (() =>
  eraCancelPolicy(MODERN_REVISION, 'http').disconnectIsCancel().value)();

/**
 * An unknown method is 404 with -32601 on 2026-07-28 [H43]; a missing client capability (-32021) is 400
 * (basic/index.mdx, "MissingRequiredClientCapabilityError ... MUST be 400 Bad Request"). One function for
 * every request, not a closure per request.
 */
function modernStatusOf(final: JsonRpcMessage | JsonRpcMessage[]): number {
  const code = errorCodeOf(final);
  return code === JsonRpcErrorCode.MethodNotFound
    ? 404
    : code === JsonRpcErrorCode.MissingClientCapability
      ? 400
      : 200;
}

/**
 * Serves one 2026-07-28 POST statelessly: a fresh endpoint (so ids and tokens of different clients never
 * meet, rule 9), the request's own response stream, and a closed stream taken as the cancel: the handler is
 * aborted with DISCONNECTED and nothing more is written for it [CN22 CN24].
 */
export async function serveModern(
  context: ServeContext,
  request: InboundRequest,
  body: JsonBody,
  headers: Record<string, string>,
  disconnect: Disconnect,
): Promise<Reply> {
  const c = refuseOrClassify(context, request, body.value, headers);
  if (c instanceof Reply) return c;
  const call = new StatelessCall(context, request, c, headers);
  const { stream, endpoint } = call;
  const { options } = context;
  try {
    await context.setup(endpoint, { revision: MODERN_REVISION });
    options.listenStreams?.serve(endpoint);
  } catch (error) {
    options.onError(error);
    stream.drop();
    return errorReply(500, JsonRpcErrorCode.InternalError, 'Internal error: the server could not set up', {
      id: c.id,
      headers,
    });
  }
  // The tools just served say which parameters a call mirrors into headers (SEP-2243, Server Validation).
  const name = c.method === 'tools/call' ? (c.params as { name?: unknown } | undefined)?.name : undefined;
  const declared = typeof name === 'string' ? servedParamHeaders(endpoint, name) : [];
  const mismatch = declared.length > 0 ? checkParamHeaders(request, c, headers, declared) : undefined;
  if (mismatch) {
    endpoint.close();
    stream.drop();
    return mismatch;
  }
  call.served = context.stateless.add(endpoint);
  stream.watch(disconnect);
  if (!stream.ended) endpoint.receive(body.value, body.bytes); // a client already gone is not served at all
  return stream.response;
}

/** A 2026-07-28 POST: the request to serve, or the reply that refuses it (or accepts a notification). */
function refuseOrClassify(
  context: ServeContext,
  request: InboundRequest,
  value: unknown,
  headers: Record<string, string>,
): ModernRequest | Reply {
  if (!context.options.modern) {
    return errorReply(400, JsonRpcErrorCode.UnsupportedProtocolVersion, 'Unsupported protocol version', {
      data: { supported: LEGACY_HTTP, requested: MODERN_REVISION },
      headers,
    });
  }
  if (Array.isArray(value)) {
    return errorReply(400, HTTP_ERROR_CODES.InvalidRequest, 'Invalid Request: 2026-07-28 has no batches', {
      headers,
    });
  }
  const c = classify(value);
  if (c.kind === 'invalid')
    return errorReply(400, c.code, `Invalid Request: ${c.message}`, { id: c.id, headers });
  if (c.kind === 'response') {
    return errorReply(
      400,
      HTTP_ERROR_CODES.InvalidRequest,
      'Invalid Request: 2026-07-28 clients send no responses',
      {
        id: c.id,
        headers,
      },
    );
  }
  if (c.kind === 'notification') {
    context.stats.ignoredNotifications++; // no client notification is defined over HTTP; a stream close is the cancel [H34]
    return accepted(headers);
  }
  return checkModernRequest(request, c, headers) ?? c;
}

/**
 * One 2026-07-28 request being served: its own endpoint, whose channel this is, writing into its own
 * response stream. It is the one record of the request in flight, and the channel itself rather than an
 * object of closures around it.
 */
class StatelessCall implements Channel {
  readonly stream: ResponseStream;
  readonly endpoint: Endpoint;
  /** This request's number in `context.stateless`, once it is there. */
  served = -1;
  readonly #context: ServeContext;
  readonly #id: RequestId;
  readonly #method: string;

  constructor(
    context: ServeContext,
    request: InboundRequest,
    c: ModernRequest,
    headers: Record<string, string>,
  ) {
    this.#context = context;
    this.#id = c.id;
    this.#method = c.method;
    const { options, stats } = context;
    const accepts = acceptsOf(request);
    this.stream = new ResponseStream({
      clock: options.clock,
      keepAliveMs: options.keepAliveMs,
      windows: context.windows,
      budgetBytes: options.sseBudgetBytes,
      stallMs: options.sseStallMs,
      maxMessageBytes: options.sseMaxMessageBytes,
      stats,
      live: context.streams,
      acceptsJson: accepts.json,
      acceptsSse: accepts.sse,
      headers,
      respond: request.respond,
      waitUntil: request.waitUntil,
      statusOf: modernStatusOf,
      onDisconnect: (why) => this.#disconnected(why),
      onEnd: () => this.#ended(),
    });
    const limits = options.endpoint;
    this.endpoint = new Endpoint({
      role: 'server',
      transport: 'http',
      revision: MODERN_REVISION,
      clock: options.clock,
      progressRelay: options.progressRelay,
      // Named one by one, not spread: a spread followed by more keys cost microseconds per request on Node 20.
      handlerIdleMs: limits.handlerIdleMs,
      handlerCeilingMs: limits.handlerCeilingMs,
      idleMs: limits.idleMs,
      ceilingMs: limits.ceilingMs,
      maxBatchElements: limits.maxBatchElements,
      admission: context.admission,
      channel: this,
    });
  }

  write(message: JsonRpcMessage | JsonRpcMessage[], related?: RequestId, intent?: SendIntent): void {
    // Only this request's own messages exist here: no GET stream, no server requests [H35 L1].
    if (related !== this.#id || Array.isArray(message)) return void this.#context.stats.droppedMessages++;
    // Core says what ends the stream: the response, or, for a listen stream the server ends, the
    // `notifications/cancelled` written right after its response [L11 CN3].
    const ends =
      intent?.kind === 'response'
        ? intent.open !== true
        : intent?.kind === 'notification' && intent.final === true;
    this.stream.send(message, ends);
  }

  /** Ended with no response (its stream closed, or the application aborted it): nothing more comes. */
  suppressed(ended: RequestId): void {
    if (ended === this.#id) this.stream.end();
  }

  #disconnected(why: DisconnectWhy): void {
    const { options, stats } = this.#context;
    if (why === 'slow') stats.slowReaderEnds++;
    if (!DISCONNECT_IS_CANCEL) return;
    stats.disconnectCancels++;
    const cause = new InflightError(
      'DISCONNECTED',
      why === 'slow'
        ? `the client stopped reading: its stream stayed over ${options.sseBudgetBytes} bytes for ${options.sseStallMs} ms without shrinking and was closed (the 2026-07-28 cancel)`
        : 'the client closed the response stream (the 2026-07-28 cancel)',
      { requestId: this.#id, method: this.#method },
    );
    this.endpoint?.abortInbound(this.#id, cause);
  }

  #ended(): void {
    if (!this.endpoint) return;
    this.#context.stateless.delete(this.served);
    this.endpoint.close(); // nothing in flight any more: drops the endpoint's tables
  }
}
