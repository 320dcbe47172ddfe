import {
  type Clock,
  type Endpoint,
  InflightError,
  JsonRpcErrorCode,
  type RequestId,
  type Revision,
} from '@mcp-inflight/core';
import type {
  Channel,
  JsonRpcErrorObject,
  JsonRpcMessage,
  KeepStrings,
  SendIntent,
} from '@mcp-inflight/core/adapter';
import { IdTable, MODERN_REVISION, settleWithin } from '@mcp-inflight/core/adapter';
import { LiveTable } from '../shared/live-table.js';
import { type HttpClientWarning, ParamHeaderTable } from './param-headers.js';
import { mediaTypeOf } from './read-body.js';
import { readReplyStream } from './reply-stream.js';
import { isOk, type Requester, type WireRequest, type WireResponse } from './requester.js';
import { refusalError, requestHeaders } from './wire.js';

/** What the channel needs from its client. */
export interface HttpChannelOptions {
  url: string;
  /** How requests go out: `fetch`, or `node:http` in the Node entry's client. */
  request: Requester;
  headers: Record<string, string>;
  clock: Clock;
  /** Legacy resumes (GET with `Last-Event-ID`) in a row that bring nothing before giving up. */
  resumeAttempts: number;
  /** The largest SSE event read; a larger one fails its request. */
  maxEventChars: number;
  /** How a relay reads its upstream's messages (`HttpClientOptions.keepStrings`); else `JSON.parse`. */
  keepStrings?: KeepStrings;
  /** The session's endpoint (set right after construction). */
  endpoint: () => Endpoint;
  /**
   * The server said session `stale` no longer exists (404) [H28]: start a new one with `initialize`
   * [H29]. Several requests may report the same session; one renewal must serve them all.
   */
  renewSession: (stale: string) => Promise<void>;
  /** Told of each tool excluded from a 2026-07-28 `tools/list` for a broken `x-mcp-header`. */
  onWarning: (warning: HttpClientWarning) => void;
}

/** One request's POST: what the transport must hold (its request's abort) and core's word on whether it is awaited. */
interface Exchange {
  readonly controller: AbortController;
  /** Core still awaits this request's response; `settled` clears it (answered, failed, cancelled). */
  open: boolean;
}

type RequestIntent = Extract<SendIntent, { kind: 'request' }>;

/** The most `tools/list` pages read to refresh the mirrored parameters after a HeaderMismatch. */
const MAX_LIST_PAGES = 100;

/**
 * The client's {@link Channel} over Streamable HTTP: each request is its own POST whose reply (JSON, or SSE
 * of progress then the response) feeds the endpoint; notifications and responses are POSTs answered 202.
 * Cancelling a 2026-07-28 request aborts its request and sends nothing [CN22]; a legacy cancel is the
 * notification [H14], after which the old stream is let go. A legacy stream that breaks before its response
 * is resumed with `Last-Event-ID` [H22]. It speaks through a {@link Requester}, so it runs wherever `fetch`
 * does.
 */
export class HttpChannel implements Channel {
  /** The legacy session, once `initialize` answered with one. */
  sessionId: string | undefined;
  /** The negotiated legacy revision, sent as `MCP-Protocol-Version` after initialize [H36]. */
  protocolVersion: Revision | undefined;
  /** The latest SSE `retry` the server sent on a reply stream: its advice for a reconnection [H18]. */
  retryMs: number | undefined;
  #options: HttpChannelOptions;
  /** The caller's extra headers, names lower-cased once (as a `Headers` object would). */
  #baseHeaders: Record<string, string> = {};
  /**
   * Requests whose POST is open, keyed by core's id: the only record of a request kept here (`abortAll`
   * reads its controllers from it too). An IdTable, as the next is a LiveTable: a Map or Set churned per
   * request is carried through young GCs (see IdTable).
   */
  #exchanges = new IdTable<Exchange>();
  /** The controllers of notification and response POSTs, for `abortAll`. */
  #posts = new LiveTable<AbortController>();
  /** Notification and response POSTs the endpoint wrote that have not been answered yet. */
  #sending = new Set<Promise<void>>();
  /** The latest session renewal, shared by every request that found that session gone. */
  #renewal: { stale: string; done: Promise<void> } | undefined;
  /** Each listed tool's mirrored parameters, for the `Mcp-Param-*` headers of its 2026-07-28 calls. */
  readonly paramHeaders: ParamHeaderTable;

  constructor(options: HttpChannelOptions) {
    this.#options = options;
    for (const [name, value] of Object.entries(options.headers))
      this.#baseHeaders[name.toLowerCase()] = value;
    this.paramHeaders = new ParamHeaderTable(options.onWarning);
  }

  /** The requester this channel sends through. */
  get request(): Requester {
    return this.#options.request;
  }

  /** A request (core says so in `intent`) is its own POST; anything else is posted in the background. */
  write(message: JsonRpcMessage | JsonRpcMessage[], _related?: RequestId, intent?: SendIntent): void {
    if (intent?.kind === 'request') return void this.#exchange(message as JsonRpcMessage, intent);
    this.#postInBackground(message);
  }

  /** Core no longer awaits request `id`: its reply is not read further nor resumed (a cancel comes apart). */
  settled(id: RequestId): void {
    const exchange = this.#exchanges.get(id);
    if (exchange) exchange.open = false;
  }

  /**
   * Carries out the cancel core's policy chose: on a legacy revision POST the notification and let the old
   * stream go once it is sent, to free the connection [CN25]; on 2026-07-28 close that request's stream and
   * send nothing [CN24].
   */
  cancelRequest(id: RequestId, notification: JsonRpcMessage | undefined): void {
    if (!notification) return this.#closeStream(id);
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
    const exchange = this.#exchanges.get(id);
    this.#exchanges.delete(id);
    exchange?.controller.abort(new Error('the request was cancelled'));
  }

  /** POSTs a notification or response; resolves on 2xx, rejects otherwise. */
  async post(message: JsonRpcMessage | JsonRpcMessage[]): Promise<void> {
    const controller = new AbortController();
    const tracked = this.#posts.add(controller);
    try {
      const response = await this.#options.request(
        this.#options.url,
        this.#init('POST', message, controller.signal),
      );
      await response.discard();
      if (!isOk(response)) throw new Error(`POST answered ${response.status} ${response.statusText}`);
    } finally {
      this.#posts.delete(tracked);
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

  /** Aborts every request in flight (the client is closing). */
  abortAll(): void {
    const closed = new Error('the client closed');
    for (const controller of this.#posts.list()) controller.abort(closed);
    for (const exchange of this.#exchanges.list()) exchange.controller.abort(closed);
    this.#posts = new LiveTable();
    this.#exchanges = new IdTable();
  }

  /**
   * Request headers: the legacy session's, or the 2026-07-28 mirrored ones [H39 H44 H45], with a listed
   * tool's `Mcp-Param-*` on its calls.
   */
  headersFor(message: JsonRpcMessage | JsonRpcMessage[], accept: string): Record<string, string> {
    return requestHeaders(this.#baseHeaders, message, accept, this, this.paramHeaders);
  }

  #init(
    method: 'POST' | 'GET',
    message: JsonRpcMessage | JsonRpcMessage[],
    signal: AbortSignal,
    lastEventId?: string,
    text?: string,
  ): WireRequest {
    if (method === 'GET') {
      const headers = this.headersFor({}, 'text/event-stream');
      headers['last-event-id'] = lastEventId ?? '';
      return { method, headers, signal };
    }
    const headers = this.headersFor(message, 'application/json, text/event-stream');
    headers['content-type'] = 'application/json';
    return { method, headers, body: text ?? JSON.stringify(message), signal };
  }

  async #exchange(message: JsonRpcMessage, intent: RequestIntent): Promise<void> {
    const { id } = intent;
    const controller = new AbortController();
    const exchange: Exchange = { controller, open: true };
    this.#exchanges.set(id, exchange);
    const legacy = intent.revision !== MODERN_REVISION;
    // A 2026-07-28 tools/list result loses the tools whose x-mcp-header annotations are invalid, however
    // it was asked for; the rest are kept for their calls' Mcp-Param-* headers (SEP-2243).
    const listing = !legacy && intent.method === 'tools/list' ? message : undefined;
    const receive = (value: unknown): void =>
      this.#options.endpoint().receive(listing ? this.paramHeaders.listed(listing, value, id) : value);
    try {
      let response = await this.#send(message, intent, exchange, legacy);
      if (!response) return;
      const session = response.header('mcp-session-id');
      if (intent.method === 'initialize' && session) this.sessionId = session;
      if (!isOk(response) && !legacy && intent.method === 'tools/call') {
        const error = await refusalError(response, this.#options.url);
        if (error.code !== JsonRpcErrorCode.HeaderMismatch) return this.#answerError(id, error);
        response = await this.#retryMismatch(message, intent, exchange);
        if (!response) return;
      }
      if (!isOk(response)) return this.#answerError(id, await refusalError(response, this.#options.url));
      const type = mediaTypeOf(response);
      if (type === 'text/event-stream') {
        const failure = await readReplyStream(response, {
          resumable: legacy,
          resumeAttempts: this.#options.resumeAttempts,
          maxEventChars: this.#options.maxEventChars,
          parseJson: this.#options.keepStrings?.parse ?? JSON.parse,
          clock: this.#options.clock,
          signal: controller.signal,
          resume: (lastEventId) =>
            this.#options.request(this.#options.url, this.#init('GET', {}, controller.signal, lastEventId)),
          onValue: receive,
          finished: () => !exchange.open,
          onRetry: (ms) => {
            this.retryMs = ms;
          },
        });
        if (failure) this.#fail(id, exchange, failure);
        return;
      }
      if (type === 'application/json') {
        const keep = this.#options.keepStrings;
        // A relay reads the body as bytes: its long literals are then never decoded (see keepStrings).
        receive(keep ? keep.parse(await response.bytes()) : JSON.parse(await response.text()));
        this.#fail(id, exchange, 'the JSON reply did not carry the response'); // unless it did
        return;
      }
      await response.discard();
      this.#fail(
        id,
        exchange,
        `the server answered ${response.status} with ${type || 'no body'} instead of a response`,
      );
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      this.#fail(id, exchange, `the request failed: ${why}`, { network: true });
    } finally {
      if (this.#exchanges.get(id) === exchange) this.#exchanges.delete(id);
    }
  }

  /**
   * POSTs a request. A 404 to one that carried a session means the server ended that session and did not
   * process the request [H28]: it is sent again, once, in a new session [H29]. `undefined` when the
   * request was failed or let go meanwhile.
   */
  async #send(
    message: JsonRpcMessage,
    intent: RequestIntent,
    exchange: Exchange,
    legacy: boolean,
  ): Promise<WireResponse | undefined> {
    const { id } = intent;
    const { controller } = exchange;
    for (let renewed = false; ; renewed = true) {
      const session = legacy && intent.method !== 'initialize' ? this.sessionId : undefined;
      const response = await this.#options.request(
        this.#options.url,
        this.#init('POST', message, controller.signal, undefined, intent.text),
      );
      if (response.status !== 404 || session === undefined) return response;
      await response.discard();
      if (renewed) {
        this.#fail(id, exchange, `the server answered 404 for session ${session} too, right after it began`);
        return undefined;
      }
      try {
        await this.#renew(session);
      } catch (error) {
        const why = error instanceof Error ? error.message : String(error);
        this.#fail(id, exchange, `the server ended the session (404) and a new one failed: ${why}`);
        return undefined;
      }
      if (controller.signal.aborted || !exchange.open) return undefined;
    }
  }

  /**
   * A 2026-07-28 call refused with HeaderMismatch `-32020`: the tool's schema may have changed, so the
   * tools are listed again and the call is sent once more with the headers that listing implies
   * (SEP-2243, Client Behavior). Any other refusal, or a second mismatch, is the caller's answer.
   * `undefined` when the request was failed or let go meanwhile.
   */
  async #retryMismatch(
    message: JsonRpcMessage,
    intent: RequestIntent,
    exchange: Exchange,
  ): Promise<WireResponse | undefined> {
    try {
      await this.#listTools(exchange.controller.signal);
    } catch {
      // The listing failed too: the retry goes out with what is known, and its answer is the caller's.
    }
    if (exchange.controller.signal.aborted || !exchange.open) return undefined;
    return this.#send(message, intent, exchange, false);
  }

  /** Lists every page of the server's tools (2026-07-28), which refreshes {@link paramHeaders}. */
  async #listTools(signal: AbortSignal): Promise<void> {
    let cursor: unknown;
    for (let page = 0; page < MAX_LIST_PAGES; page++) {
      const result = (await this.#options
        .endpoint()
        .request('tools/list', typeof cursor === 'string' ? { cursor } : {}, {
          revision: MODERN_REVISION,
          signal,
        })) as { nextCursor?: unknown } | undefined;
      cursor = result?.nextCursor;
      if (typeof cursor !== 'string') return;
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

  /** A non-2xx answer to a request: its JSON-RPC error, or one made from the status ({@link refusalError}). */
  #answerError(id: RequestId, error: JsonRpcErrorObject): void {
    this.#options.endpoint().receive({ jsonrpc: '2.0', id, error });
  }

  /** Ends a request that will get no response, unless core already ended it (answered, cancelled, closed). */
  #fail(id: RequestId, exchange: Exchange, message: string, data: Record<string, unknown> = {}): void {
    if (exchange.controller.signal.aborted || !exchange.open) return;
    // No answer can come: the upstream is gone for this call (the same cause a closed stdio pipe gives).
    const detail = Object.keys(data).length > 0 ? ` (${JSON.stringify(data)})` : '';
    this.#options
      .endpoint()
      .failOutbound(id, new InflightError('UPSTREAM_CLOSED', `${message}${detail}`, { requestId: id }));
  }
}
