import { z } from 'zod';
import { hasProgressMessage, type Revision } from '../revisions/revisions.js';
import type { CancelledParams, ProgressParams, ProgressToken, RequestId } from './types.js';

// The plain types on the main entry must stay what these schemas parse: a drift fails typecheck here.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Agree<T extends true> = T;
type _Agreement = [
  Agree<Same<ProgressToken, z.infer<typeof progressTokenSchema>>>,
  Agree<Same<RequestId, z.infer<typeof requestIdSchema>>>,
  Agree<Same<ProgressParams, z.infer<typeof progressParamsWithMessage>>>,
  Agree<Same<CancelledParams, z.infer<typeof cancelledParamsOptional>>>,
];

/**
 * A progress token: a string or an integer, never a float or null [PS1 PG3].
 *
 * @example
 * ```ts
 * import { progressTokenSchema } from '@mcp-inflight/core/schemas';
 * progressTokenSchema.safeParse('abc').success; // true
 * progressTokenSchema.safeParse(1.5).success; // false: never a float
 * progressTokenSchema.safeParse(null).success; // false
 * ```
 */
export const progressTokenSchema = z.union([z.string(), z.number().int()]);
/**
 * A JSON-RPC request id: a string or an integer, never null [J1 J2].
 *
 * @example
 * ```ts
 * import { requestIdSchema } from '@mcp-inflight/core/schemas';
 * requestIdSchema.parse(42); // 42
 * requestIdSchema.safeParse(null).success; // false: null is only for a response to an unreadable request
 * ```
 */
export const requestIdSchema = z.union([z.string(), z.number().int()]);

const metaSchema = z.record(z.string(), z.unknown()).optional();

const progressBase = {
  /** The token the requester chose for the request. */
  progressToken: progressTokenSchema,
  // zod 4 numbers are finite: JSON like 1e400 (Infinity) is rejected, as the relay's check does.
  /** Progress so far: a finite number. */
  progress: z.number(),
  /** The total, if known. */
  total: z.number().optional(),
  /** The notification's `_meta`. */
  _meta: metaSchema,
};

/** `notifications/progress` params in 2024-11-05: no `message` [PS1]. Unknown keys are stripped. */
export const progressParams20241105 = z.object(progressBase);
/** `notifications/progress` params from 2025-03-26 on: adds `message` [PS6]. */
export const progressParamsWithMessage = z.object({
  ...progressBase,
  /** A human-readable status. */
  message: z.string().optional(),
});

/** `notifications/cancelled` params where `requestId` is required (all but 2025-11-25) [CN17]. */
export const cancelledParamsRequired = z.object({
  /** The id of the request to cancel. */
  requestId: requestIdSchema,
  /** Why, for logs. */
  reason: z.string().optional(),
  /** The notification's `_meta`. */
  _meta: metaSchema,
});
/** `notifications/cancelled` params in 2025-11-25: `requestId` optional, for tasks [CN18a]. */
export const cancelledParamsOptional = cancelledParamsRequired.extend({
  /** The id of the request to cancel; a task's cancel may leave it out. */
  requestId: requestIdSchema.optional(),
});

/**
 * The progress params schema for a revision.
 *
 * @example
 * ```ts
 * import { progressParamsSchema } from '@mcp-inflight/core/schemas';
 * progressParamsSchema('2024-11-05').parse({ progressToken: 1, progress: 2, message: 'hi' });
 * // { progressToken: 1, progress: 2 }: 2024-11-05 has no message, so it is stripped
 * progressParamsSchema('2025-06-18').safeParse({ progressToken: 1, progress: 2, message: 3 }).success;
 * // false: from 2025-03-26 on, a message must be a string
 * ```
 */
export function progressParamsSchema(
  revision: Revision,
): typeof progressParams20241105 | typeof progressParamsWithMessage {
  return hasProgressMessage(revision) ? progressParamsWithMessage : progressParams20241105;
}

/**
 * The cancelled params schema for a revision.
 *
 * @example
 * ```ts
 * import { cancelledParamsSchema } from '@mcp-inflight/core/schemas';
 * cancelledParamsSchema('2025-11-25').safeParse({ reason: 'task ended' }).success; // true: id optional
 * cancelledParamsSchema('2025-06-18').safeParse({ reason: 'task ended' }).success; // false
 * ```
 */
export function cancelledParamsSchema(
  revision: Revision,
): typeof cancelledParamsRequired | typeof cancelledParamsOptional {
  return revision === '2025-11-25' ? cancelledParamsOptional : cancelledParamsRequired;
}

/**
 * A whole `notifications/progress` message for a revision.
 *
 * @example
 * ```ts
 * import { progressNotificationSchema } from '@mcp-inflight/core/schemas';
 * declare const line: string;
 * const parsed = progressNotificationSchema('2025-06-18').safeParse(JSON.parse(line));
 * if (parsed.success) console.log(parsed.data.params.progress, parsed.data.params.total);
 * ```
 */
export function progressNotificationSchema(revision: Revision) {
  return z.object({
    /** Always `'2.0'`. */
    jsonrpc: z.literal('2.0'),
    /** Always `'notifications/progress'`. */
    method: z.literal('notifications/progress'),
    /** The params, as the revision's params schema parses them. */
    params: progressParamsSchema(revision),
  });
}

/**
 * A whole `notifications/cancelled` message for a revision.
 *
 * @example
 * ```ts
 * import { cancelledNotificationSchema } from '@mcp-inflight/core/schemas';
 * const params = { requestId: 'r1', reason: 'CEILING: hard ceiling of 500 ms reached' };
 * const message = { jsonrpc: '2.0', method: 'notifications/cancelled', params };
 * const parsed = cancelledNotificationSchema('2026-07-28').safeParse(message);
 * if (parsed.success) console.log(`${parsed.data.params.requestId} cancelled: ${parsed.data.params.reason}`);
 * ```
 */
export function cancelledNotificationSchema(revision: Revision) {
  return z.object({
    /** Always `'2.0'`. */
    jsonrpc: z.literal('2.0'),
    /** Always `'notifications/cancelled'`. */
    method: z.literal('notifications/cancelled'),
    /** The params, as the revision's params schema parses them. */
    params: cancelledParamsSchema(revision),
  });
}
