import { JsonRpcErrorCode } from '@mcp-inflight/core';
import { HTTP_ERROR_CODES } from '../shared/error-codes.js';
import { errorReply } from './replies.js';

/** A parsed POST body, or the error response to send instead. */
export type BodyResult = { ok: true; value: unknown; bytes: number } | { ok: false; response: Response };

/**
 * Reads and parses a POST body: `415` unless it is JSON, `413` past `maxBytes` (checked on the declared
 * length and again while reading, so a lying or chunked client cannot get more through), `400` with
 * `-32700` for broken JSON.
 */
export async function readJsonBody(
  request: Request,
  maxBytes: number,
  headers: Record<string, string>,
): Promise<BodyResult> {
  const type = (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
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
    await request.body?.cancel().catch(() => {});
    return tooLarge();
  }
  const text = await readText(request, maxBytes);
  if (text === undefined) return tooLarge();
  try {
    return { ok: true, value: JSON.parse(text), bytes: text.length }; // its length sizes a queued request
  } catch {
    return fail(
      errorReply(400, JsonRpcErrorCode.ParseError, 'Parse error: the body is not valid JSON', { headers }),
    );
  }
}

async function readText(request: Request, maxBytes: number): Promise<string | undefined> {
  if (!request.body) return '';
  const reader = request.body.getReader();
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

function fail(response: Response): BodyResult {
  return { ok: false, response };
}
