import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { HTTP_ERROR_CODES } from '@mcp-inflight/http';

/**
 * The JSON-RPC code of a refused credential: http's `Forbidden` (-32004), the one code for a request the
 * server will not serve for who sent it, with `data.httpStatus` 401 (a 403 is a refused `Host`/`Origin`).
 * Every code of ours is in one table: docs/architecture.md, "Error codes".
 */
export const UNAUTHORIZED_CODE = HTTP_ERROR_CODES.Forbidden;

/**
 * A check of `Authorization: Bearer <token>` against `tokens`. Each candidate is hashed and compared with
 * `timingSafeEqual`, against every token, so neither the length nor the first differing byte of a guess
 * shows in the time it takes.
 *
 * @example
 * ```ts
 * import { bearerCheck } from './http-routes.js';
 * const allowed = bearerCheck(['s3cret']);
 * allowed('Bearer s3cret'); // true
 * allowed('Bearer guess'); // false
 * ```
 */
export function bearerCheck(tokens: readonly string[]): (authorization: string | undefined) => boolean {
  const digests = tokens.map(digest);
  return (authorization) => {
    const match = /^Bearer\s+([\x21-\x7e]+)\s*$/i.exec(authorization ?? '');
    const candidate = digest(match?.[1] ?? '');
    let ok = false;
    for (const d of digests) ok = timingSafeEqual(d, candidate) || ok;
    return ok && match !== null;
  };
}

/**
 * What {@link bearerCheck} can match: one word of visible ASCII, as an `Authorization` header carries
 * it. A token with a space, a control or a non-ASCII character in it could never be sent.
 */
export const BEARER_TOKEN = /^[\x21-\x7e]+$/;

function digest(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}

/** Answers 401 with a JSON-RPC error body and the `WWW-Authenticate` challenge. */
export function unauthorized(res: ServerResponse): void {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: null,
    error: {
      code: UNAUTHORIZED_CODE,
      message: 'Unauthorized: send Authorization: Bearer <token>',
      data: { httpStatus: 401 },
    },
  });
  res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer' }).end(body);
}

/**
 * Answers `GET /healthz` (the process is alive: 200) and `GET /readyz` (200 when `readiness` names no
 * reason, else 503 with it). Returns false for any other request.
 */
export function answerHealth(
  req: IncomingMessage,
  res: ServerResponse,
  readiness: (() => string | undefined) | undefined,
): boolean {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  const path = (req.url ?? '/').split('?')[0];
  if (path === '/healthz') {
    json(res, 200, { status: 'ok' });
    return true;
  }
  if (path === '/readyz') {
    const reason = readiness?.();
    json(
      res,
      reason === undefined ? 200 : 503,
      reason === undefined ? { status: 'ready' } : { status: 'unready', reason },
    );
    return true;
  }
  return false;
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res
    .writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' })
    .end(JSON.stringify(body));
}
