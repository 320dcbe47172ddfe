import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import {
  ConnectionGone,
  type Disconnect,
  type ExchangeServer,
  type InboundRequest,
  isPieces,
  Reply,
  SERVE_EXCHANGE,
} from '../server/exchange.js';
import type { HttpHandler } from '../server/handler.js';
import { LONG_MESSAGE_CHARS } from '../server/sse-sink.js';

/**
 * Adapts a Fetch-standard {@link HttpHandler} to `node:http`. The Node response closing before it finished
 * (the client went away) aborts the exchange's `disconnect` signal and cancels the response body, which is
 * how the handler learns of a disconnect: the cancel on 2026-07-28, a detached stream under legacy
 * revisions. The signal is handed to the handler directly (never through `new Request({ signal })`, whose
 * link Node keeps weakly), and the response's own `close` listener holds it, so the abort arrives within a
 * turn of the event loop, garbage collection or not [CN24].
 *
 * @example
 * ```ts
 * import { createServer } from 'node:http';
 * import { createHttpHandler, toNodeListener } from '@mcp-inflight/http';
 * const handler = createHttpHandler((endpoint) => {
 *   endpoint.setRequestHandler('tools/list', () => ({ tools: [] }));
 * });
 * createServer(toNodeListener(handler)).listen(3000, '127.0.0.1');
 * ```
 */
export function toNodeListener(handler: HttpHandler): (req: IncomingMessage, res: ServerResponse) => void {
  // Our own handler is served below the Fetch layer: no Request, Headers, body stream or Response per call.
  const direct = (handler as Partial<ExchangeServer>)[SERVE_EXCHANGE]?.bind(handler);
  return (req, res) => {
    serve(handler, direct, req, res).catch(() => fail(res));
  };
}

async function serve(
  handler: HttpHandler,
  direct: ExchangeServer[typeof SERVE_EXCHANGE] | undefined,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  // Our own handler hears of a disconnect through a plain object; another handler gets an AbortSignal.
  const controller = direct ? undefined : new AbortController();
  const disconnect: ConnectionGone | AbortSignal = controller ? controller.signal : new ConnectionGone();
  const gone = (): void => {
    if (res.writableFinished || disconnect.aborted) return;
    if (controller) controller.abort(CLIENT_GONE);
    else (disconnect as ConnectionGone).abort();
  };
  // The client's FIN ('end') is the first sign: Node ends the socket then and nothing more can reach the
  // client, but the response's 'close' only follows once the socket is torn down, tens of ms later when
  // many clients leave at once. The listener goes with the exchange: a keep-alive socket serves many.
  // `on`, not `once`: each event comes once per socket or response, and `gone` is idempotent, so no once
  // wrapper is made per exchange.
  const socket = req.socket;
  socket.on('end', gone);
  res.on('close', () => {
    socket.off('end', gone);
    gone();
  });
  // Our own handler hands the reply over the moment it has it (`respond`), from inside the stream that made
  // it; the awaited reply is then the same one, and whichever comes first is written.
  let written = false;
  const respond = (reply: Reply): void => {
    if (written) return;
    written = true;
    // Never throws into the server's call stack: a failed write is this exchange's 500 or cut connection.
    write(res, disconnect, reply).catch(() => fail(res));
  };
  if (direct) {
    respond(await direct(inboundOf(req, respond), disconnect));
    return;
  }
  const response = await handler.handle(toRequest(req), { disconnect: disconnect as AbortSignal });
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  await write(res, disconnect, new Reply(response.status, headers, response.body));
}

/** Writes one reply to its Node response: a whole JSON answer in one write, a stream as it comes. */
async function write(res: ServerResponse, disconnect: Disconnect, reply: Reply): Promise<void> {
  const { status, headers, body } = reply;
  if (res.destroyed || disconnect.aborted) {
    if (body instanceof ReadableStream) await body.cancel().catch(() => {});
    return;
  }
  if (typeof body === 'string') {
    // A whole answer (JSON) goes out in one write with its length, headers and all.
    res.writeHead(status, withLength(headers, Buffer.byteLength(body)));
    // Node joins the head to a string body's first write: for a long body that is one more full copy,
    // so its head goes on its own (one more small write, for bodies of 64 Ki characters and up).
    if (body.length >= LONG_MESSAGE_CHARS) res.flushHeaders();
    res.end(body);
    return;
  }
  if (isPieces(body)) {
    // An answer in pieces (a long string, a relay's kept ones): each is written as it is, never joined
    // into one copy.
    let bytes = 0;
    for (const piece of body) bytes += Buffer.byteLength(piece);
    res.writeHead(status, withLength(headers, bytes));
    for (const piece of body) if (piece.length > 0) res.write(piece);
    res.end();
    return;
  }
  res.writeHead(status, headers);
  if (!body) {
    res.end();
    return;
  }
  // Headers go out now, so an SSE client sees its stream open before the first event.
  res.flushHeaders();
  const reader = body.getReader();
  disconnect.addEventListener('abort', () => void reader.cancel().catch(() => {}), { once: true });
  // The body erroring means the stream was cut (its client stopped reading past the budget): the
  // connection is cut too, so the client cannot take a truncated stream for a complete one, and what
  // waits in the socket's buffer goes now. It is watched while waiting for 'drain', which never comes
  // from a client that does not read.
  const cut = reader.closed.then(
    () => false,
    () => true,
  );
  for (;;) {
    const next = await reader.read().catch(() => undefined);
    if (next === undefined) return void res.destroy();
    if (next.done) break;
    if (!res.write(next.value) && !res.destroyed && (await Promise.race([drained(res), cut])))
      return void res.destroy();
  }
  if (!res.destroyed) res.end();
}

function fail(res: ServerResponse): void {
  if (!res.headersSent) res.writeHead(500).end();
  else res.destroy();
}

/** The server's view of a Node request: headers read from `req.headers`, the body from the stream itself. */
function inboundOf(req: IncomingMessage, respond: (reply: Reply) => void): InboundRequest {
  return {
    method: req.method ?? 'GET',
    headers: {
      get(name) {
        const value = req.headers[name];
        return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
      },
    },
    readText: (maxBytes) => readNodeBody(req, maxBytes, CLIENT_GONE),
    discard: () => void req.resume(),
    respond,
  };
}

/**
 * A Node message's body as text (a request's here, a response's in the Node client), `undefined` once it
 * passes `maxBytes` (the rest is drained and dropped, so a `413` still reaches the client); rejects with
 * `gone` if the connection closes first. UTF-8 with a leading BOM dropped, as `TextDecoder` does.
 */
export function readNodeBody(
  message: IncomingMessage,
  maxBytes: number,
  gone: Error,
): Promise<string | undefined> {
  return readNode(message, maxBytes, gone, utf8Text);
}

/** A Node message's body as bytes, not decoded; `undefined` and `gone` as {@link readNodeBody}. */
export function readNodeBytes(
  message: IncomingMessage,
  maxBytes: number,
  gone: Error,
): Promise<Buffer | undefined> {
  return readNode(message, maxBytes, gone, (body) => body);
}

/** Bad bytes become U+FFFD and a leading BOM goes, as a `TextDecoder` decodes. */
function utf8Text(body: Buffer): string {
  const text = body.toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/**
 * The body's chunks joined once at its end, then `finish`ed. Text is decoded from them whole: that cost
 * 10-25% less than decoding each chunk as it came and joining the text (a 10 MB body; bench/README.md,
 * "Large messages through the proxy").
 */
function readNode<T>(
  message: IncomingMessage,
  maxBytes: number,
  gone: Error,
  finish: (body: Buffer) => T,
): Promise<T | undefined> {
  return new Promise((resolve, reject) => {
    // A one-chunk body (nearly every request) is held as it is, with no list to allocate.
    let first: Buffer | undefined;
    let chunks: Buffer[] | undefined;
    let size = 0;
    const done = (): void => {
      message.off('data', onData);
      message.off('end', onEnd);
      message.off('error', onError);
      message.off('close', onClose);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > maxBytes) {
        done();
        first = chunks = undefined;
        message.resume();
        resolve(undefined);
        return;
      }
      if (first === undefined) first = chunk;
      else if (chunks === undefined) chunks = [first, chunk];
      else chunks.push(chunk);
    };
    const onEnd = (): void => {
      done();
      resolve(finish(chunks ? Buffer.concat(chunks, size) : (first ?? EMPTY)));
      first = chunks = undefined;
    };
    const onError = (error: Error): void => {
      done();
      reject(error);
    };
    const onClose = (): void => {
      done();
      reject(gone);
    };
    message.on('data', onData);
    message.on('end', onEnd);
    message.on('error', onError);
    message.on('close', onClose);
  });
}

const EMPTY = Buffer.alloc(0);

/** One reason for every disconnect: it carries no per-exchange detail, so no stack is captured per drop. */
const CLIENT_GONE = new Error('the client closed the connection');

/**
 * The Fetch `Request` for a Node request. It carries no signal: the handler hears of a disconnect through
 * the exchange's own (a signal given to `new Request` would only be followed weakly, and costs a dependent
 * signal per request for nothing).
 */
function toRequest(req: IncomingMessage): Request {
  const url = new URL(req.url ?? '/', `http://${req.headers.host ?? 'localhost'}`);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else if (value !== undefined) headers.set(name, value);
  }
  const method = req.method ?? 'GET';
  const hasBody = method !== 'GET' && method !== 'HEAD';
  const init: RequestInit & { duplex?: 'half' } = { method, headers };
  if (hasBody) {
    init.body = Readable.toWeb(req) as unknown as ReadableStream<Uint8Array>;
    init.duplex = 'half'; // a streamed request body needs this in Node's fetch
  }
  return new Request(url, init);
}

/**
 * The reply's headers and its `content-length` as the flat `[name, value, …]` list `writeHead` takes:
 * no copy of the headers object per call (a spread followed by a key cost microseconds on Node 20).
 */
function withLength(headers: Record<string, string>, bytes: number): string[] {
  const raw: string[] = [];
  for (const name in headers) raw.push(name, headers[name]!);
  raw.push('content-length', String(bytes));
  return raw;
}

function drained(res: ServerResponse): Promise<false> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve(false);
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
