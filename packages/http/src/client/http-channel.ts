import {
  type Clock,
  type Endpoint,
  InflightError,
  MODERN_REVISION,
  type RequestId,
  type Revision,
} from '@mcp-inflight/core';
import { type Channel, type JsonRpcMessage, metaVersionOf } from '@mcp-inflight/core/adapter';
import { mediaTypeOf, settleWithin } from './read-body.js';
import { readReplyStream } from './reply-stream.js';
import { refusalError, requestHeaders } from './wire.js';

/** What the channel needs from its client. */
export interface HttpChannelOptions {
  url: string;
  fetch: typeof fetch;
  headers: Record<string, string>;
  clock: Clock;
  /** Legacy resumes (GET with `Last-Event-ID`) in a row that bring nothing before giving up. */
  resumeAttempts: number;
  /** The largest SSE event read; a larger one fails its request. */
  maxEventChars: number;
  /** The session's endpoint (set right after construction). */
  endpoint: () => Endpoint;
  /**
   * The server said session `stale` no longer exists (404) [H28]: start a new one with `initialize`
   * [H29]. Several requests may report the same session; one renewal must serve them all.
   */
  renewSession: (stale: string) => Promise<void>;
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
  /** The latest SSE `retry` the server sent on a reply stream: its advice for a reconnection [H18]. */
  retryMs: number | undefined;
  #options: HttpChannelOptions;
  #inflight = new Map<RequestId, AbortController>();
  #all = new Set<AbortController>();
  /** Requests we cancelled with the legacy notification: their streams are no longer awaited. */
  #cancelled = new Set<RequestId>();
  /** Notification and response POSTs the endpoint wrote that have not been answered yet. */
  #sending = new Set<Promise<void>>();
  /** The latest session renewal, shared by every request that found that session gone. */
  #renewal: { stale: string; done: Promise<void> } | undefined;

  constructor(options: HttpChannelOptions) {
    this.#options = options;
  }

  /** The fetch this channel uses. */
  get fetch(): typeof fetch {
    return this.#options.fetch;
  }

  write(message: JsonRpcMessage | JsonRpcMessage[]): void {
    if (!Array.isArray(message) && message.method !== undefined && message.id !== undefined)
      return void this.#exchange(message);
    this.#postInBackground(message);
  }

  /**
   * Carries out the cancel core's policy chose: on a legacy revision POST the notification and let the old
   * stream go once it is sent, to free the connection [CN25]; on 2026-07-28 close that request's stream and
   * send nothing [CN24].
   */
  cancelRequest(id: RequestId, notification: JsonRpcMessage | undefined): void {
    if (!notification) return this.#closeStream(id);
    if (this.#inflight.has(id)) this.#cancelled.add(id);
    this.#postInBackground(notification, () => this.#closeStream(id));
  }

  /** POSTs a notification or response without waiting; `flush()` waits for these. */
  #postInBackground(message: JsonRpcMessage | JsonRpcMessage[], then?: () => void): void {
    const sending = this.post(message)
      .catch(() => {})
      .finally(() => {
        this.#sending.delete(sending);
        then?.();
      });
    this.#sending.add(sending);
  }

  #closeStream(id: RequestId): void {
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

  /**
   * Waits, at most `ms` on the client's clock, for the notifications and responses already written to be
   * answered: a cancel sent just before the client closes must still reach the server (legacy [H14]).
   */
  flush(ms: number): Promise<void> {
    if (this.#sending.size === 0) return Promise.resolve();
    return settleWithin(Promise.allSettled([...this.#sending]), ms, this.#options.clock);
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
    const legacy = metaVersionOf(message) !== MODERN_REVISION;
    try {
      const response = await this.#send(message, controller, legacy);
      if (!response) return;
      const session = response.headers.get('mcp-session-id');
      if (message.method === 'initialize' && session) this.sessionId = session;
      if (!response.ok) return await this.#refused(id, response);
      const type = mediaTypeOf(response);
      if (type === 'text/event-stream' && response.body) {
        const failure = await readReplyStream(response.body, {
          resumable: legacy,
          resumeAttempts: this.#options.resumeAttempts,
          maxEventChars: this.#options.maxEventChars,
          clock: this.#options.clock,
          signal: controller.signal,
          resume: (lastEventId) =>
            this.#options.fetch(this.#options.url, this.#init('GET', {}, controller.signal, lastEventId)),
          onValue: (value) => this.#deliver(id, value, state),
          finished: () => state.answered || this.#cancelled.has(id),
          onRetry: (ms) => {
            this.retryMs = ms;
          },
        });
        if (failure) this.#fail(id, controller, failure);
        return;
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
      const why = error instanceof Error ? error.message : String(error);
      this.#fail(id, controller, `the request failed: ${why}`, { network: true });
    } finally {
      if (this.#inflight.get(id) === controller) this.#inflight.delete(id);
      this.#cancelled.delete(id);
      this.#all.delete(controller);
    }
  }

  /**
   * POSTs a request. A 404 to one that carried a session means the server ended that session and did not
   * process the request [H28]: it is sent again, once, in a new session [H29]. `undefined` when the
   * request was failed or let go meanwhile.
   */
  async #send(
    message: JsonRpcMessage,
    controller: AbortController,
    legacy: boolean,
  ): Promise<Response | undefined> {
    const id = message.id as RequestId;
    for (let renewed = false; ; renewed = true) {
      const session = legacy && message.method !== 'initialize' ? this.sessionId : undefined;
      const response = await this.#options.fetch(
        this.#options.url,
        this.#init('POST', message, controller.signal),
      );
      if (response.status !== 404 || session === undefined) return response;
      await response.body?.cancel().catch(() => {});
      if (renewed) {
        this.#fail(
          id,
          controller,
          `the server answered 404 for session ${session} too, right after it began`,
        );
        return undefined;
      }
      try {
        await this.#renew(session);
      } catch (error) {
        const why = error instanceof Error ? error.message : String(error);
        this.#fail(id, controller, `the server ended the session (404) and a new one failed: ${why}`);
        return undefined;
      }
      if (controller.signal.aborted || this.#cancelled.has(id)) return undefined;
    }
  }

  /** One renewal per ended session, however many requests found it gone. */
  #renew(stale: string): Promise<void> {
    if (this.#renewal?.stale === stale) return this.#renewal.done;
    if (this.sessionId !== stale) return Promise.resolve(); // already replaced: just send again
    this.sessionId = undefined;
    const done = this.#options.renewSession(stale);
    this.#renewal = { stale, done };
    return done;
  }

  #deliver(id: RequestId, value: unknown, state: { answered: boolean }): void {
    const messages = Array.isArray(value) ? value : [value];
    for (const m of messages as JsonRpcMessage[]) {
      if (m && m.id === id && m.method === undefined) state.answered = true;
    }
    this.#options.endpoint().receive(value);
  }

  /** A non-2xx answer to a request: its JSON-RPC error, or one made from the status. */
  async #refused(id: RequestId, response: Response): Promise<void> {
    const error = await refusalError(response);
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
