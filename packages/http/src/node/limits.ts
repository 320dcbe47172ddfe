import type { Server, ServerResponse } from 'node:http';
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
 * At most `max` open connections. Node's own `server.maxConnections` drops the extra ones without a word;
 * here the extra one is told (`503`) and closed, so a client can tell overload from a network fault.
 * Returns whether a socket was refused.
 */
export function limitConnections(
  server: Server,
  max: number,
  label = 'maxConnections',
): (socket: Socket) => boolean {
  // The reply names the limit, so whoever reads it knows which setting to raise.
  const tooMany = rawReply(
    '503 Service Unavailable',
    HTTP_ERROR_CODES.Overloaded,
    `Service Unavailable: too many connections (${label} ${max})`,
  );
  let open = 0;
  const refused = new WeakSet<Socket>();
  server.prependListener('connection', (socket: Socket) => {
    if (open >= max) {
      refused.add(socket);
      socket.on('error', () => {});
      socket.end(tooMany);
      socket.destroySoon();
      return;
    }
    open++;
    socket.once('close', () => {
      open--;
    });
  });
  // Node still parses what a refused client sent before the close: none of it may reach a handler.
  return (socket) => refused.has(socket);
}
