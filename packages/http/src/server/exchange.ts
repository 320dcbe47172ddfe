import type { JsonPiece } from '@mcp-inflight/core/adapter';

/**
 * What the server reads of one HTTP request. A Fetch `Request` is turned into one by {@link fromRequest};
 * the Node listener makes one straight from `IncomingMessage`, so a Node call builds no Fetch `Request`,
 * `Headers` or body stream (their cost was most of the server's time per call).
 */
export interface InboundRequest {
  readonly method: string;
  /** Header lookup by lower-case name; `null` when absent (several values joined with `, `). */
  readonly headers: { get(name: string): string | null };
  /** The whole body as text, or `undefined` once it passes `maxBytes` (the rest is then discarded). */
  readText(maxBytes: number): Promise<string | undefined>;
  /** The body will not be read: let it go. */
  discard(): void;
  /**
   * Takes the reply the moment the server has it, where a runtime can write it then (the Node listener):
   * a whole JSON answer leaves before its stream's and endpoint's cleanup runs, not after it and a chain
   * of promise turns. The returned promise still settles with the same reply. Absent on the Fetch path.
   */
  readonly respond?: (reply: Reply) => void;
  /** The runtime's `waitUntil` (Workers): each POST's work is kept alive until its reply stream ends. */
  readonly waitUntil?: ((work: Promise<unknown>) => void) | undefined;
}

/**
 * A body the server answers with: text sent whole (JSON; in pieces when it relays kept strings, see
 * `jsonPieces`), a byte stream (SSE), or none.
 */
export type ReplyBody = string | readonly JsonPiece[] | ReadableStream<Uint8Array> | null;

/**
 * The server's answer to one HTTP request, whatever runtime carries it: {@link toResponse} makes a Fetch
 * `Response` of it, the Node listener writes it to its `ServerResponse` directly.
 */
export class Reply {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: ReplyBody;
  // Fields set by hand, not as parameter properties: vendoring apps may compile with erasableSyntaxOnly.
  constructor(status: number, headers: Record<string, string>, body: ReplyBody = null) {
    this.status = status;
    this.headers = headers;
    this.body = body;
  }
}

/** The Fetch `Response` for a reply. */
export function toResponse(reply: Reply): Response {
  const body = reply.body;
  // A Fetch body is one value: pieces (text, or a kept literal's bytes) are joined here in a Blob (the
  // Node listener writes them apart).
  return new Response(isPieces(body) ? new Blob(body as BlobPart[]) : body, {
    status: reply.status,
    headers: reply.headers,
  });
}

/** Whether a reply's body is JSON text in pieces. */
export function isPieces(body: ReplyBody): body is readonly JsonPiece[] {
  return Array.isArray(body);
}

/** The server's view of a Fetch `Request`. */
export function fromRequest(request: Request, waitUntil?: (work: Promise<unknown>) => void): InboundRequest {
  return {
    method: request.method,
    waitUntil,
    headers: request.headers,
    readText: (maxBytes) => readStreamText(request.body, maxBytes),
    discard: () => void request.body?.cancel().catch(() => {}),
  };
}

async function readStreamText(
  body: ReadableStream<Uint8Array> | null,
  maxBytes: number,
): Promise<string | undefined> {
  if (!body) return '';
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let size = 0;
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    text += decoder.decode(value, { stream: true });
  }
}

/**
 * How the server hears that a client went away: the part of an `AbortSignal` it uses, so the Node
 * listener can pass {@link ConnectionGone} instead of building an `AbortController` per exchange (5-10 µs
 * each on Node 20); a Fetch runtime passes its signal as it is.
 */
export interface Disconnect {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
}

/** A {@link Disconnect} that a connection's owner trips once; its listeners run once, in order. */
export class ConnectionGone implements Disconnect {
  aborted = false;
  #listeners: Array<() => void> | undefined;

  /** Every listener runs once (as with `{ once: true }`): the connection goes only once. */
  addEventListener(_type: 'abort', listener: () => void, _options?: { once?: boolean }): void {
    if (this.aborted) return;
    this.#listeners ??= [];
    this.#listeners.push(listener);
  }

  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    const listeners = this.#listeners;
    this.#listeners = undefined;
    if (listeners) for (const listener of listeners) listener();
  }
}

/**
 * The handler's own entry, below the Fetch one: the Node listener calls it with its own view of the
 * request, so both runtimes share one path and only the outer objects differ.
 */
// Pure: a bundle of the client alone (the browser HttpClient) leaves this server constant out.
export const SERVE_EXCHANGE: unique symbol = /* @__PURE__ */ Symbol('mcp-inflight.serveExchange');

/** A handler the Node listener can call without Fetch objects. */
export interface ExchangeServer {
  /** `disconnect` aborts when the client's connection closed before the answer was written. */
  [SERVE_EXCHANGE](request: InboundRequest, disconnect: Disconnect): Promise<Reply>;
}
