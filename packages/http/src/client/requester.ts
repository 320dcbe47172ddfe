/** One HTTP request the client sends: header names lower-case, the body already serialized. */
export interface WireRequest {
  method: 'POST' | 'GET' | 'DELETE';
  headers: Record<string, string>;
  body?: string;
  /** Aborting it breaks the exchange: the request, or its response's body, fails. */
  signal?: AbortSignal;
}

/** The part of an HTTP response the client reads, the same over `fetch` and `node:http`. */
export interface WireResponse {
  readonly status: number;
  readonly statusText: string;
  /** A header's value (`name` lower-case), or null when absent. */
  header(name: string): string | null;
  /** The body's bytes in order; throws if the connection breaks or the request is aborted. Read once. */
  chunks(): AsyncIterable<Uint8Array>;
  /** The whole body as UTF-8 text. Read once. */
  text(): Promise<string>;
  /** The whole body as bytes, not decoded (a relay's JSON reply, see `keepStrings`). Read once. */
  bytes(): Promise<Uint8Array>;
  /** Lets the unread body go: drained when it is short and known to end, else its connection is closed. */
  discard(): Promise<void>;
}

/**
 * Sends one request and resolves at the response's headers. The client speaks through one: over `fetch`
 * everywhere, or over `node:http` where the Node entry's client runs, since Node's `fetch` costs about
 * four to seven times the CPU per call (bench/README.md, "The HTTP client on node:http").
 */
export type Requester = (url: string, request: WireRequest) => Promise<WireResponse>;

/** Whether a status is a success (2xx), as `Response.ok` says. */
export const isOk = (response: WireResponse): boolean => response.status >= 200 && response.status < 300;

/** The requester over a Fetch-standard `fetch` (the caller's, or the global one at each call). */
export function fetchRequester(fetchFn: typeof fetch): Requester {
  return async (url, { method, headers, body, signal }) => {
    // A Headers object, as before: a caller's fetch wrapper may call init.headers.get/set.
    const init: RequestInit = { method, headers: new Headers(headers) };
    if (body !== undefined) init.body = body;
    if (signal) init.signal = signal;
    return fromFetch(await fetchFn(url, init));
  };
}

function fromFetch(response: Response): WireResponse {
  return {
    status: response.status,
    statusText: response.statusText,
    header: (name) => response.headers.get(name),
    chunks: () => bodyChunks(response.body),
    text: () => response.text(),
    bytes: () => response.arrayBuffer().then((buffer) => new Uint8Array(buffer)),
    discard: () => response.body?.cancel().catch(() => {}) ?? Promise.resolve(),
  };
}

async function* bodyChunks(body: ReadableStream<Uint8Array> | null): AsyncGenerator<Uint8Array> {
  if (!body) return;
  const reader = body.getReader();
  let ended = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        ended = true;
        return;
      }
      yield value;
    }
  } finally {
    // Left before its end (a parser threw, the reader stopped): cancel, so the connection goes.
    if (!ended) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}
