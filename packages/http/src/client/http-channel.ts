import {
  type Channel,
  type Endpoint,
  InflightError,
  type JsonRpcMessage,
  MODERN_REVISION,
  metaVersionOf,
  type RequestId,
  type Revision,
} from '@mcp-inflight/core';
import { mediaTypeOf, pause, pumpSse } from './read-body.js';
import { SseParser } from './sse-parser.js';
import { refusalError, requestHeaders } from './wire.js';

/** What the channel needs from its client. */
export interface HttpChannelOptions {
  url: string;
  fetch: typeof fetch;
  headers: Record<string, string>;
  /** Legacy resumes (GET with `Last-Event-ID`) tried for one request before giving up. */
  resumeAttempts: number;
  /** The session's endpoint (set right after construction). */
  endpoint: () => Endpoint;
  /** The server said this session no longer exists (404): the next call starts a new one [H29]. */
  onSessionGone: () => void;
}

/**
 * The client's {@link Channel} over Streamable HTTP: each request is its own POST whose reply (JSON, or SSE
 * of progress then the response) feeds the endpoint; notifications and responses are POSTs answered 202.
 * Cancelling a 2026-07-28 request aborts its fetch and sends nothing [CN22]; a legacy cancel is the
 * notification [H14], after which the old stream is let go. A legacy stream that breaks before its response
 * is resumed with `Last-Event-ID` [H22]. Fetch only, so it runs in browsers.
 */
export class HttpChannel implements Channel {
  /** The legacy session, once `initialize` answered with one. */
  sessionId: string | undefined;
  /** The negotiated legacy revision, sent as `MCP-Protocol-Version` after initialize [H36]. */
  protocolVersion: Revision | undefined;
  #options: HttpChannelOptions;
  #inflight = new Map<RequestId, AbortController>();
  #all = new Set<AbortController>();
  /** Requests we cancelled with the legacy notification: their streams are no longer awaited. */
  #cancelled = new Set<RequestId>();

  constructor(options: HttpChannelOptions) {
    this.#options = options;
  }

  /** The fetch this channel uses. */
  get fetch(): typeof fetch {
    return this.#options.fetch;
  }

  write(message: JsonRpcMessage | JsonRpcMessage[]): void {
    if (Array.isArray(message)) return void this.post(message).catch(() => {});
    if (message.method !== undefined && message.id !== undefined) return void this.#exchange(message);
    const cancelled =
      message.method === 'notifications/cancelled'
        ? (message.params as { requestId?: RequestId }).requestId
        : undefined;
    if (cancelled !== undefined && this.#inflight.has(cancelled)) this.#cancelled.add(cancelled);
    // A legacy cancel is the notification; the old stream is let go once it is sent, to free the connection.
    void this.post(message)
      .catch(() => {})
      .finally(() => {
        if (cancelled !== undefined) this.closeRequestStream(cancelled);
      });
  }

  /** The 2026-07-28 cancel: close that request's stream and send nothing [CN24]. */
  closeRequestStream(id: RequestId): void {
    const controller = this.#inflight.get(id);
    this.#inflight.delete(id);
    controller?.abort(new Error('the request was cancelled'));
  }

  /** POSTs a notification or response; resolves on 2xx, rejects otherwise. */
  async post(message: JsonRpcMessage | JsonRpcMessage[]): Promise<void> {
    const controller = this.#track(new AbortController());
    try {
      const response = await this.#options.fetch(
        this.#options.url,
        this.#init('POST', message, controller.signal),
      );
      await response.body?.cancel().catch(() => {});
      if (!response.ok) throw new Error(`POST answered ${response.status} ${response.statusText}`);
    } finally {
      this.#all.delete(controller);
    }
  }

  /** Aborts every fetch in flight (the client is closing). */
  abortAll(): void {
    for (const controller of this.#all) controller.abort(new Error('the client closed'));
    this.#all.clear();
    this.#inflight.clear();
  }

  /** Request headers: the legacy session's, or the 2026-07-28 mirrored ones [H39 H44 H45]. */
  headersFor(message: JsonRpcMessage | JsonRpcMessage[], accept: string): Headers {
    return requestHeaders(this.#options.headers, message, accept, this);
  }

  #init(
    method: 'POST' | 'GET',
    message: JsonRpcMessage | JsonRpcMessage[],
    signal: AbortSignal,
    lastEventId?: string,
  ): RequestInit {
    if (method === 'GET') {
      const headers = this.headersFor({}, 'text/event-stream');
      headers.set('last-event-id', lastEventId ?? '');
      return { method, headers, signal };
    }
    const headers = this.headersFor(message, 'application/json, text/event-stream');
    headers.set('content-type', 'application/json');
    return { method, headers, body: JSON.stringify(message), signal };
  }

  async #exchange(message: JsonRpcMessage): Promise<void> {
    const id = message.id as RequestId;
    const controller = this.#track(new AbortController());
    this.#inflight.set(id, controller);
    const state = { answered: false };
    try {
      const response = await this.#options.fetch(
        this.#options.url,
        this.#init('POST', message, controller.signal),
      );
      const session = response.headers.get('mcp-session-id');
      if (message.method === 'initialize' && session) this.sessionId = session;
      if (!response.ok) return await this.#refused(id, response);
      const type = mediaTypeOf(response);
      if (type === 'text/event-stream' && response.body) {
        const legacy = metaVersionOf(message) !== MODERN_REVISION;
        return await this.#readStream(id, response.body, controller, state, legacy);
      }
      if (type === 'application/json') {
        this.#deliver(id, await response.json(), state);
        if (!state.answered) this.#fail(id, controller, 'the JSON reply did not carry the response');
        return;
      }
      await response.body?.cancel().catch(() => {});
      this.#fail(
        id,
        controller,
        `the server answered ${response.status} with ${type || 'no body'} instead of a response`,
      );
    } catch (error) {
      this.#fail(
        id,
        controller,
        `the request failed: ${error instanceof Error ? error.message : String(error)}`,
        { network: true },
      );
    } finally {
      if (this.#inflight.get(id) === controller) this.#inflight.delete(id);
      this.#cancelled.delete(id);
      this.#all.delete(controller);
    }
  }

  async #readStream(
    id: RequestId,
    body: ReadableStream<Uint8Array>,
    controller: AbortController,
    state: { answered: boolean },
    legacy: boolean,
  ): Promise<void> {
    let parser = this.#parser(id, state);
    await pumpSse(body, parser).catch(() => {});
    // Legacy: a stream that broke before its response is resumed from the last event id [H22 H23].
    for (
      let attempt = 0;
      !state.answered && !controller.signal.aborted && !this.#cancelled.has(id);
      attempt++
    ) {
      const lastEventId = parser.lastEventId;
      if (!legacy || !lastEventId || attempt >= this.#options.resumeAttempts) {
        return this.#fail(id, controller, 'the response stream ended before the response arrived');
      }
      await pause(parser.retryMs ?? 1_000, controller.signal);
      const retryMs = parser.retryMs;
      parser = this.#parser(id, state);
      parser.lastEventId = lastEventId;
      parser.retryMs = retryMs;
      try {
        const response = await this.#options.fetch(
          this.#options.url,
          this.#init('GET', {}, controller.signal, lastEventId),
        );
        if (response.ok && response.body && mediaTypeOf(response) === 'text/event-stream')
          await pumpSse(response.body, parser);
        else await response.body?.cancel().catch(() => {});
      } catch {
        // a failed resume is one attempt spent; the loop decides whether to try again
      }
    }
  }

  #parser(id: RequestId, state: { answered: boolean }): SseParser {
    return new SseParser((event) => {
      if (event.type !== 'message') return;
      let value: unknown;
      try {
        value = JSON.parse(event.data);
      } catch {
        return; // a garbled event is skipped; the stream goes on
      }
      this.#deliver(id, value, state);
    });
  }

  #deliver(id: RequestId, value: unknown, state: { answered: boolean }): void {
    const messages = Array.isArray(value) ? value : [value];
    for (const m of messages as JsonRpcMessage[]) {
      if (m && m.id === id && m.method === undefined) state.answered = true;
    }
    this.#options.endpoint().receive(value);
  }

  /** A non-2xx answer to a request: its JSON-RPC error, or one made from the status; a 404 ends the session. */
  async #refused(id: RequestId, response: Response): Promise<void> {
    const error = await refusalError(response);
    if (response.status === 404 && this.sessionId) {
      this.sessionId = undefined;
      this.#options.onSessionGone();
    }
    this.#options.endpoint().receive({ jsonrpc: '2.0', id, error });
  }

  /** Ends a request that will get no response, unless it was already ended by us (cancel, close). */
  #fail(
    id: RequestId,
    controller: AbortController,
    message: string,
    data: Record<string, unknown> = {},
  ): void {
    if (controller.signal.aborted || this.#cancelled.has(id)) return;
    // No answer can come: the upstream is gone for this call (the same cause a closed stdio pipe gives).
    const detail = Object.keys(data).length > 0 ? ` (${JSON.stringify(data)})` : '';
    this.#options
      .endpoint()
      .failOutbound(id, new InflightError('UPSTREAM_CLOSED', `${message}${detail}`, { requestId: id }));
  }

  #track(controller: AbortController): AbortController {
    this.#all.add(controller);
    return controller;
  }
}
