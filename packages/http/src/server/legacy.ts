import { isRevision, JsonRpcErrorCode, REVISIONS, type RequestId } from '@mcp-inflight/core';
import {
  allowsBatches,
  batchTooLarge,
  classify,
  DEFAULT_HTTP_REVISION,
  hasStreamableHttp,
  isLegacy,
  negotiateLegacy,
} from '@mcp-inflight/core/adapter';
import { HTTP_ERROR_CODES } from '../shared/error-codes.js';
import type { JsonBody } from './body.js';
import { acceptsOf, type ServeContext } from './context.js';
import { type Disconnect, type InboundRequest, Reply } from './exchange.js';
import { accepted, errorReply, jsonReply, methodNotAllowed } from './replies.js';
import { LegacySession } from './session.js';

const SESSION_HEADER = 'mcp-session-id';
/** Revisions with Streamable HTTP and sessions: 2025-03-26 through 2025-11-25. */
// Pure: a bundle of the client alone (the browser HttpClient) leaves this server constant out.
export const LEGACY_HTTP = /* @__PURE__ */ REVISIONS.filter((r) => isLegacy(r) && hasStreamableHttp(r));

/**
 * Legacy Streamable HTTP (2025-03-26 to 2025-11-25): sessions made at `initialize` [H27], the
 * `MCP-Protocol-Version` header [H36 H38], 2025-03-26 batches [H4], the GET stream [H19], resumption
 * [H22], DELETE and 404 after termination [H28].
 */
export class LegacyServer {
  readonly sessions = new Map<string, LegacySession>();
  #context: ServeContext;

  constructor(context: ServeContext) {
    this.#context = context;
  }

  /** POST: `initialize` (a new session), or a message or 2025-03-26 batch for the session it names. */
  async post(
    request: InboundRequest,
    body: JsonBody,
    headers: Record<string, string>,
    disconnect: Disconnect,
  ): Promise<Reply> {
    const value = body.value;
    const single = Array.isArray(value) ? undefined : classify(value);
    if (single?.kind === 'request' && single.method === 'initialize')
      return this.#initialize(request, body, single.id, headers, disconnect);
    const found = this.#session(request, headers);
    if (found instanceof Reply) return found;
    const session = found;
    const bad = badVersionHeader(request, headers);
    if (bad) return bad;
    if (Array.isArray(value)) return this.#batch(request, session, body, headers, disconnect);
    if (!single || single.kind === 'invalid') {
      return errorReply(
        400,
        single?.code ?? HTTP_ERROR_CODES.InvalidRequest,
        `Invalid Request: ${single?.message}`,
        {
          id: single?.id,
          headers,
        },
      );
    }
    if (single.kind !== 'request') {
      // A cancel's stream is ended by core's verdict (Channel.suppressed), never by its mere arrival [CN15].
      session.endpoint.receive(value);
      return accepted(headers);
    }
    if (session.owes(single.id)) return inFlight(single.id, headers);
    const stream = session.openStream({
      requestIds: [single.id],
      batch: false,
      revision: session.endpoint.revision ?? DEFAULT_HTTP_REVISION,
      accepts: acceptsOf(request),
      headers,
      signal: disconnect,
      respond: request.respond,
      waitUntil: request.waitUntil,
    });
    session.endpoint.receive(value, body.bytes);
    return stream.response;
  }

  /** GET: resume a stream by `Last-Event-ID`, or open the session's stream for unrelated messages. */
  get(request: InboundRequest, headers: Record<string, string>): Promise<Reply> | Reply {
    if (!request.headers.get(SESSION_HEADER)) return methodNotAllowed('POST', headers); // no session to listen on
    const found = this.#session(request, headers);
    if (found instanceof Reply) return found;
    if (!acceptsOf(request).sse)
      return errorReply(
        406,
        HTTP_ERROR_CODES.NotAcceptable,
        'Not Acceptable: GET needs Accept: text/event-stream',
        {
          headers,
        },
      );
    const bad = badVersionHeader(request, headers);
    if (bad) return bad;
    const lastEventId = request.headers.get('last-event-id');
    if (lastEventId) {
      const resumed = found.resume(lastEventId, headers);
      if (resumed) return resumed;
      return errorReply(
        400,
        HTTP_ERROR_CODES.NothingToResume,
        `Bad Request: nothing to resume for Last-Event-ID ${JSON.stringify(lastEventId)} (unknown, delivered or expired)`,
        { headers },
      );
    }
    return (
      found.openStandalone(headers) ??
      errorReply(409, HTTP_ERROR_CODES.StreamConflict, 'Conflict: this session already has a GET stream', {
        headers,
      })
    );
  }

  /** DELETE: the client ends its session [H28]; later requests with its id get 404. */
  delete(request: InboundRequest, headers: Record<string, string>): Reply {
    if (!request.headers.get(SESSION_HEADER)) return methodNotAllowed('POST', headers);
    const found = this.#session(request, headers);
    if (found instanceof Reply) return found;
    found.terminate('the client ended the session');
    return new Reply(200, headers);
  }

  shutdown(why: string): void {
    for (const session of [...this.sessions.values()]) session.shutdown(why);
  }

  async #initialize(
    request: InboundRequest,
    body: JsonBody,
    id: RequestId,
    headers: Record<string, string>,
    disconnect: Disconnect,
  ): Promise<Reply> {
    const { options, setup } = this.#context;
    if (this.sessions.size >= options.maxSessions) {
      return errorReply(503, HTTP_ERROR_CODES.Overloaded, 'Service Unavailable: too many sessions', {
        id,
        headers,
      });
    }
    const message = body.value as { params?: { protocolVersion?: unknown } };
    // 2024-11-05 has no Streamable HTTP: its clients are offered 2025-03-26 [M17], also by a handler of the
    // application's own, which sees the revision this session will speak.
    const revision = negotiateLegacy(message.params?.protocolVersion, 'http');
    if (message.params?.protocolVersion === '2024-11-05') message.params.protocolVersion = revision;
    const sessionId = globalThis.crypto.randomUUID();
    const session = new LegacySession(sessionId, this.#context, () => this.sessions.delete(sessionId));
    try {
      await setup(session.endpoint, { revision, sessionId });
      options.listenStreams?.serve(session.endpoint); // list changes reach the session's GET stream
    } catch (error) {
      options.onError(error);
      session.terminate('setup failed');
      return errorReply(500, JsonRpcErrorCode.InternalError, 'Internal error: the server could not set up', {
        id,
        headers,
      });
    }
    this.sessions.set(sessionId, session);
    const stream = session.openStream({
      requestIds: [id],
      batch: false,
      revision,
      accepts: acceptsOf(request),
      headers: { ...headers, 'mcp-session-id': sessionId },
      signal: disconnect,
      respond: request.respond,
      waitUntil: request.waitUntil,
      // A failed initialize leaves no session behind.
      onEnd: () => {
        if (session.endpoint.revision === undefined) session.terminate('initialize failed');
      },
    });
    session.endpoint.receive(body.value, body.bytes);
    return stream.response;
  }

  /** A 2025-03-26 batch (`body.value` is an array): one stream for its requests' responses [H4]. */
  #batch(
    request: InboundRequest,
    session: LegacySession,
    body: JsonBody,
    headers: Record<string, string>,
    disconnect: Disconnect,
  ): Promise<Reply> | Reply {
    const values = body.value as unknown[];
    const revision = session.endpoint.revision;
    if (revision === undefined || !allowsBatches(revision)) {
      return errorReply(
        400,
        HTTP_ERROR_CODES.InvalidRequest,
        `Invalid Request: batches are not part of ${revision} [J13]`,
        { headers },
      );
    }
    if (values.length === 0)
      return errorReply(400, HTTP_ERROR_CODES.InvalidRequest, 'Invalid Request: an empty batch', { headers });
    // Before classifying a million elements: the one answer names the limit (the endpoint's option).
    const limit = session.endpoint.maxBatchElements;
    if (values.length > limit) return jsonReply(400, batchTooLarge(values.length, limit), headers);
    const parts = values.map(classify);
    if (parts.some((p) => p.kind === 'request' && p.method === 'initialize')) {
      return errorReply(
        400,
        HTTP_ERROR_CODES.InvalidRequest,
        'Invalid Request: initialize may not be batched [J10]',
        {
          headers,
        },
      );
    }
    const requestIds = parts.flatMap((p) => (p.kind === 'request' ? [p.id] : []));
    // Ids are fresh [J3]: one in flight, or twice in this batch, would let answers reach another POST's
    // stream or end this one early [H20]. Refused whole, as the single-request path does.
    const seen = new Set<RequestId>();
    for (const id of requestIds) {
      if (session.owes(id)) return inFlight(id, headers);
      if (seen.has(id)) return inFlight(id, headers, 'appears twice in this batch');
      seen.add(id);
    }
    const needsReply = parts.some((p) => p.kind === 'request' || p.kind === 'invalid');
    const stream = needsReply
      ? session.openStream({
          requestIds,
          batch: true,
          revision,
          accepts: acceptsOf(request),
          headers,
          signal: disconnect,
          respond: request.respond,
          waitUntil: request.waitUntil,
        })
      : undefined;
    session.receiveInto(stream, values, body.bytes);
    return stream ? stream.response : accepted(headers);
  }

  #session(request: InboundRequest, headers: Record<string, string>): LegacySession | Reply {
    const id = request.headers.get(SESSION_HEADER);
    if (!id) {
      return errorReply(
        400,
        HTTP_ERROR_CODES.SessionRequired,
        'Bad Request: Mcp-Session-Id is required (send initialize first)',
        { headers },
      );
    }
    const session = this.sessions.get(id);
    if (!session || session.closed) {
      return errorReply(
        404,
        HTTP_ERROR_CODES.SessionNotFound,
        'Session not found: it ended or expired; initialize a new one',
        { headers },
      );
    }
    session.touch();
    return session;
  }
}

/** 400 for a request id the session still owes a response, or one a batch repeats [J3]. */
function inFlight(id: RequestId, headers: Record<string, string>, why = 'is already in flight'): Reply {
  return errorReply(
    400,
    HTTP_ERROR_CODES.InvalidRequest,
    `Invalid Request: id ${JSON.stringify(id)} ${why}`,
    {
      id,
      headers,
    },
  );
}

/** A present `MCP-Protocol-Version` must name a legacy HTTP revision we speak, else 400 [H38]. */
function badVersionHeader(request: InboundRequest, headers: Record<string, string>): Reply | undefined {
  const header = request.headers.get('mcp-protocol-version');
  if (header === null || (isRevision(header) && LEGACY_HTTP.includes(header))) return undefined;
  return errorReply(
    400,
    JsonRpcErrorCode.UnsupportedProtocolVersion,
    `Bad Request: unsupported MCP-Protocol-Version ${JSON.stringify(header)}`,
    {
      data: { supported: LEGACY_HTTP, requested: header },
      headers,
    },
  );
}
