// Wire shapes as plain types, so the main entry names them without loading zod. The zod schemas on
// `@mcp-inflight/core/schemas` agree with them (a type-level check in fast-check.test.ts).

/**
 * A progress token: a string or an integer, as the requester chose it. Tokens compare exactly: `0` and `""`
 * are real tokens, and `"1"` is not `1` (never key them by `Number(token)`).
 *
 * @example
 * ```ts
 * import type { ProgressToken } from '@mcp-inflight/core';
 * const jobs = new Map<ProgressToken, string>([[1, 'build'], ['1', 'deploy']]); // two different tokens
 * ```
 */
export type ProgressToken = string | number;
/**
 * A JSON-RPC request id: a string or an integer. A request's id is never null; only an error response to a
 * request whose id could not be read carries `id: null` [J2 J6].
 *
 * @example
 * ```ts
 * import type { Endpoint, RequestId } from '@mcp-inflight/core';
 * declare const server: Endpoint;
 * const running = new Set<RequestId>();
 * server.setRequestHandler('tools/call', async (_params, ctx) => {
 *   running.add(ctx.id);
 *   try {
 *     return { content: [] };
 *   } finally {
 *     running.delete(ctx.id);
 *   }
 * });
 * ```
 */
export type RequestId = string | number;

/**
 * `notifications/progress` params as parsed. `message` exists from 2025-03-26 on; parsing under 2024-11-05
 * strips it. `total` is optional and may be unknown for the whole call.
 *
 * @example
 * ```ts
 * import type { ProgressParams } from '@mcp-inflight/core/adapter';
 * const update: ProgressParams = { progressToken: 'upload-1', progress: 512, total: 2048 };
 * const percent = update.total === undefined ? undefined : (100 * update.progress) / update.total;
 * ```
 */
export interface ProgressParams {
  /** The token the requester chose for the request. */
  progressToken: ProgressToken;
  /** Progress so far: finite, and higher than the last value for this token. */
  progress: number;
  /** The total, if known. */
  total?: number | undefined;
  /** A human-readable status (2025-03-26 on). */
  message?: string | undefined;
  /** The notification's `_meta`. */
  _meta?: Record<string, unknown> | undefined;
}
/**
 * `notifications/cancelled` params as parsed, for any revision. `requestId` is optional in the type because
 * 2025-11-25 lets a task's cancel leave it out [CN18a]; every other revision's schema requires it [CN17].
 *
 * @example
 * ```ts
 * import type { CancelledParams } from '@mcp-inflight/core/schemas';
 * const params: CancelledParams = { requestId: 7, reason: 'user stop' };
 * if (params.requestId !== undefined) console.log(`cancel ${params.requestId}: ${params.reason ?? '-'}`);
 * ```
 */
export interface CancelledParams {
  /** The id of the request to cancel. */
  requestId?: RequestId | undefined;
  /** Why, for logs. */
  reason?: string | undefined;
  /** The notification's `_meta`. */
  _meta?: Record<string, unknown> | undefined;
}
