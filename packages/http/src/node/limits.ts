import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { HTTP_ERROR_CODES } from '../shared/error-codes.js';

function errorBody(code: number, message: string): string {
  return JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } });
}

const REQUEST_TIMEOUT_MESSAGE = 'Request Timeout: the request did not arrive in time';
const REQUEST_TIMEOUT_BODY = errorBody(HTTP_ERROR_CODES.RequestTimeout, REQUEST_TIMEOUT_MESSAGE);

/**
 * Raw HTTP/1.1 answers for refusals made before a request exists (no `ServerResponse` to write with):
 * the status line, a JSON-RPC error body with its code from {@link HTTP_ERROR_CODES}, and a close.
 */
function rawReply(status: string, code: number, message: string): string {
  const body = errorBody(code, message);
  return (
    `HTTP/1.1 ${status}\r\ncontent-type: application/json\r\nconnection: close\r\n` +
    `content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
  );
}

const REPLIES: Readonly<Record<string, string>> = {
  ERR_HTTP_REQUEST_TIMEOUT: rawReply(
    '408 Request Timeout',
    HTTP_ERROR_CODES.RequestTimeout,
    REQUEST_TIMEOUT_MESSAGE,
  ),
  HPE_HEADER_OVERFLOW: rawReply(
    '431 Request Header Fields Too Large',
    HTTP_ERROR_CODES.HeadersTooLarge,
    'Request Header Fields Too Large',
  ),
};
const BAD_REQUEST = rawReply(
  '400 Bad Request',
  HTTP_ERROR_CODES.BadHttpRequest,
  'Bad Request: malformed HTTP',
);

/**
 * Node's `clientError`: a request that timed out (headers or body), overflowed its headers or was not
 * HTTP. Node's own answer has no body; ours carries the code, then the connection closes.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  // A request whose headers were read (its body was too slow) already has a response object: answer there.
  const res = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (res) {
    if (!res.headersSent && error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      res.writeHead(408, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(REQUEST_TIMEOUT_BODY),
        connection: 'close',
      });
      res.end(REQUEST_TIMEOUT_BODY);
    }
  } else if (socket.writable) {
    socket.end(REPLIES[error.code ?? ''] ?? BAD_REQUEST);
  }
  socket.destroySoon();
}

/**
 * Guards on the connections of a `node:http` server, checked before any request is read (so before any
 * auth): how many may be open, how many idle ones from one address, and how long one may stay silent.
 *
 * @example
 * ```ts
 * import type { ConnectionLimits } from '@mcp-inflight/http';
 * const limits: ConnectionLimits = { maxConnections: 64, maxIdleConnectionsPerAddress: 64, firstByteTimeoutMs: 5_000 };
 * ```
 */
export interface ConnectionLimits {
  /** Open connections at most; one more gets `503` (`HTTP_ERROR_CODES.Overloaded`) and is closed. @default 4_096 */
  maxConnections?: number;
  /**
   * Idle connections from one remote address at most: those serving no request (opened and not yet past
   * their request's headers, or kept alive between requests). One more connection from that address gets
   * the same `503`, so one address's silent sockets cannot take every connection from the others, while a
   * client with a thousand calls in flight is never refused for them. @default 256
   */
  maxIdleConnectionsPerAddress?: number;
  /**
   * A connection that has sent no byte this long after it opened gets `408` and is closed: silent
   * sockets cannot hold connections until the headers timeout. Checked every quarter of it (at most
   * every second). @default 5_000
   */
  firstByteTimeoutMs?: number;
  /**
   * How the `503`s name the limits ("too many connections (maxConnections 4096)"), for a command line
   * that sets them by flags of its own. @default each option's own name
   */
  names?: {
    /** What a `503` for too many connections names. @default 'maxConnections' */
    maxConnections?: string;
    /** What a `503` for too many idle connections from one address names. @default 'maxIdleConnectionsPerAddress' */
    maxIdleConnectionsPerAddress?: string;
  };
}

/**
 * Applies {@link ConnectionLimits} to `server` (what `serveHttp` does to its own): Node's own
 * `server.maxConnections` drops the extra ones without a word; here the extra one is told (`503`) and
 * closed, so a client can tell overload from a network fault. Returns `admit(req, res)`, for the first
 * line of the request handler: `false` for a request read from a refused socket (Node still parses what
 * it sent before the close; destroy the response), else `true`, the connection then counted busy, not
 * idle, until the response is done.
 *
 * @example
 * ```ts
 * import { createServer } from 'node:http';
 * import { limitConnections } from '@mcp-inflight/http';
 * const server = createServer((req, res) => {
 *   if (!admit(req, res)) return void res.destroy();
 *   res.end('ok');
 * });
 * const admit = limitConnections(server, { maxConnections: 64, firstByteTimeoutMs: 5_000 });
 * ```
 */
export function limitConnections(
  server: Server,
  limits: ConnectionLimits = {},
): (req: IncomingMessage, res: ServerResponse) => boolean {
  const max = limits.maxConnections ?? 4_096;
  const perAddress = limits.maxIdleConnectionsPerAddress ?? 256;
  // The replies name the limit, so whoever reads one knows which setting to raise.
  const tooMany = overloaded(
    `too many connections (${limits.names?.maxConnections ?? 'maxConnections'} ${max})`,
  );
  const tooManyIdle = overloaded(
    `too many idle connections from one address (${limits.names?.maxIdleConnectionsPerAddress ?? 'maxIdleConnectionsPerAddress'} ${perAddress})`,
  );
  const silent = new SilentSockets(limits.firstByteTimeoutMs ?? 5_000);
  const idle = new IdleByAddress();
  let open = 0;
  const refused = new WeakSet<Socket>();
  server.prependListener('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    if (open >= max || idle.count(address) >= perAddress) {
      refused.add(socket);
      socket.on('error', () => {});
      socket.end(open >= max ? tooMany : tooManyIdle);
      socket.destroySoon();
      return;
    }
    open++;
    idle.add(socket, address);
    silent.watch(socket);
    socket.once('close', () => {
      open--;
      idle.remove(socket);
    });
  });
  server.once('close', () => silent.stop());
  return (req, res) => {
    const socket = req.socket;
    if (refused.has(socket)) return false;
    // A connection serving a request is not idle; once its response is done and it stays open, it is again.
    const address = idle.remove(socket);
    if (address !== undefined) res.once('close', () => socket.destroyed || idle.add(socket, address));
    return true;
  };
}

/** Idle connections (serving no request) counted by remote address; empty counts are dropped. */
class IdleByAddress {
  readonly #counts = new Map<string, number>();
  readonly #addressOf = new WeakMap<Socket, string>();

  count(address: string): number {
    return this.#counts.get(address) ?? 0;
  }

  add(socket: Socket, address: string): void {
    if (this.#addressOf.has(socket)) return;
    this.#addressOf.set(socket, address);
    this.#counts.set(address, this.count(address) + 1);
  }

  /** Stops counting `socket`; returns its address, or `undefined` when it was not counted. */
  remove(socket: Socket): string | undefined {
    const address = this.#addressOf.get(socket);
    if (address === undefined) return undefined;
    this.#addressOf.delete(socket);
    const left = this.count(address) - 1;
    if (left === 0) this.#counts.delete(address);
    else this.#counts.set(address, left);
    return address;
  }
}

function overloaded(why: string): string {
  return rawReply('503 Service Unavailable', HTTP_ERROR_CODES.Overloaded, `Service Unavailable: ${why}`);
}

/**
 * Connections that have sent nothing yet, each closed with `408` once it has been silent `timeoutMs`.
 * One sweep timer for all of them, armed only while there are some: a socket's first byte shows in
 * `bytesRead` even when Node's parser reads the socket natively (no `data` events then).
 */
class SilentSockets {
  readonly #timeoutMs: number;
  readonly #openedAt = new Map<Socket, number>();
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(timeoutMs: number) {
    this.#timeoutMs = timeoutMs;
  }

  watch(socket: Socket): void {
    if (!Number.isFinite(this.#timeoutMs)) return;
    this.#openedAt.set(socket, Date.now());
    socket.once('close', () => this.#openedAt.delete(socket));
    if (this.#timer) return;
    const everyMs = Math.max(10, Math.min(1_000, Math.floor(this.#timeoutMs / 4)));
    this.#timer = setInterval(() => this.#sweep(), everyMs);
    this.#timer.unref();
  }

  #sweep(): void {
    const now = Date.now();
    for (const [socket, openedAt] of this.#openedAt) {
      if (socket.bytesRead > 0) this.#openedAt.delete(socket);
      else if (now - openedAt >= this.#timeoutMs) {
        this.#openedAt.delete(socket);
        if (socket.writable) socket.end(FIRST_BYTE_TIMEOUT);
        socket.destroySoon();
      }
    }
    if (this.#openedAt.size === 0) this.stop();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}

const FIRST_BYTE_TIMEOUT = rawReply(
  '408 Request Timeout',
  HTTP_ERROR_CODES.RequestTimeout,
  'Request Timeout: the connection sent nothing in time',
);
