import { JsonRpcErrorCode, type RequestId } from '@mcp-inflight/core';
import { errorResponse, type JsonRpcMessage, jsonPieces, piecesLength } from '@mcp-inflight/core/adapter';

/**
 * What goes out instead of a message of `bytes` over `maxMessageBytes`: a response becomes an error for its
 * request (a batch's, per element: only those over the limit), anything else goes nowhere (`undefined`:
 * progress, a notification or a request, which nothing waits for by id).
 */
export function overLimit(
  message: JsonRpcMessage | JsonRpcMessage[],
  bytes: number,
  maxMessageBytes: number,
): JsonRpcMessage | JsonRpcMessage[] | undefined {
  if (Array.isArray(message)) {
    return message.map((m) => {
      const size = piecesLength(jsonPieces(m));
      return size > maxMessageBytes ? tooLarge(m, size, maxMessageBytes) : m;
    });
  }
  if (message['method'] !== undefined || message['id'] === undefined) return undefined;
  return tooLarge(message, bytes, maxMessageBytes);
}

function tooLarge(m: JsonRpcMessage, size: number, max: number): JsonRpcMessage {
  return 'id' in m && m['method'] === undefined && m['id'] !== undefined
    ? errorResponse(
        m['id'] as RequestId,
        JsonRpcErrorCode.InternalError,
        `Internal error: the response is ${size} bytes, over the server's limit of ${max} (maxMessageBytes)`,
        { responseBytes: size, maxMessageBytes: max },
      )
    : m;
}
