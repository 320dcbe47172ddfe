import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { HttpHandler } from '../server/handler.js';

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
  return (req, res) => {
    serve(handler, req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
      else res.destroy();
    });
  };
}

async function serve(handler: HttpHandler, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const disconnect = new AbortController();
  const gone = (): void => {
    if (!res.writableFinished && !disconnect.signal.aborted) disconnect.abort(CLIENT_GONE);
  };
  // The client's FIN ('end') is the first sign: Node ends the socket then and nothing more can reach the
  // client, but the response's 'close' only follows once the socket is torn down, tens of ms later when
  // many clients leave at once. The listener goes with the exchange: a keep-alive socket serves many.
  const socket = req.socket;
  socket.once('end', gone);
  res.once('close', () => {
    socket.off('end', gone);
    gone();
  });
  const response = await handler.handle(toRequest(req), { disconnect: disconnect.signal });
  if (res.destroyed || disconnect.signal.aborted) {
    await response.body?.cancel().catch(() => {});
    return;
  }
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  res.writeHead(response.status, headers);
  if (!response.body) {
    res.end();
    return;
  }
  // Headers go out now, so an SSE client sees its stream open before the first event.
  res.flushHeaders();
  const reader = response.body.getReader();
  disconnect.signal.addEventListener('abort', () => void reader.cancel().catch(() => {}), { once: true });
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
