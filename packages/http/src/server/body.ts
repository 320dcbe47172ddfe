import { JsonRpcErrorCode } from '@mcp-inflight/core';
import { HTTP_ERROR_CODES } from '../shared/error-codes.js';
import type { InboundRequest, Reply } from './exchange.js';
import { errorReply } from './replies.js';

/** A parsed POST body: its JSON value, and its length (which sizes a queued request). */
export interface JsonBody {
  ok: true;
  value: unknown;
  bytes: number;
}

/** A parsed POST body, or the error response to send instead. */
export type BodyResult = JsonBody | { ok: false; response: Reply };

/**
 * Reads and parses a POST body: `415` unless it is JSON, `413` past `maxBytes` (checked on the declared
 * length and again while reading, so a lying or chunked client cannot get more through), `400` with
 * `-32700` for broken JSON.
 */
export async function readJsonBody(
  request: InboundRequest,
  maxBytes: number,
  headers: Record<string, string>,
): Promise<BodyResult> {
  const header = request.headers.get('content-type');
  // The exact header every client sends is taken as it is; anything else is parsed (parameters, case).
  const type = header === 'application/json' ? header : (header ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json') {
    return fail(
      errorReply(
        415,
        HTTP_ERROR_CODES.UnsupportedMediaType,
        'Unsupported Media Type: the body must be application/json',
        {
          headers,
        },
      ),
    );
  }
  const tooLarge = () =>
    fail(
      errorReply(413, HTTP_ERROR_CODES.PayloadTooLarge, `Payload Too Large: the limit is ${maxBytes} bytes`, {
        headers,
      }),
    );
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (declared > maxBytes) {
    request.discard();
    return tooLarge();
  }
  const text = await request.readText(maxBytes);
  if (text === undefined) return tooLarge();
  try {
    return { ok: true, value: JSON.parse(text), bytes: text.length }; // its length sizes a queued request
  } catch {
    return fail(
      errorReply(400, JsonRpcErrorCode.ParseError, 'Parse error: the body is not valid JSON', { headers }),
    );
  }
}

function fail(response: Reply): BodyResult {
  return { ok: false, response };
}
