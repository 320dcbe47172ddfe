import { z } from 'zod';
import { hasProgressMessage, type Revision } from '../eras/eras.js';

/** A progress token: a string or an integer, never a float or null [PS1 PG3]. */
export const progressTokenSchema = z.union([z.string(), z.number().int()]);
/** A JSON-RPC request id: a string or an integer, never null [J1 J2]. */
export const requestIdSchema = z.union([z.string(), z.number().int()]);

export type ProgressToken = z.infer<typeof progressTokenSchema>;
export type RequestId = z.infer<typeof requestIdSchema>;

const metaSchema = z.record(z.string(), z.unknown()).optional();

const progressBase = {
  progressToken: progressTokenSchema,
  // zod 4 numbers are finite: JSON like 1e400 (Infinity) is rejected, as the relay's check does.
  progress: z.number(),
  total: z.number().optional(),
  _meta: metaSchema,
};

/** `notifications/progress` params in 2024-11-05: no `message` [PS1]. Unknown keys are stripped. */
export const progressParams20241105 = z.object(progressBase);
/** `notifications/progress` params from 2025-03-26 on: adds `message` [PS6]. */
export const progressParamsWithMessage = z.object({ ...progressBase, message: z.string().optional() });

/** `notifications/cancelled` params where `requestId` is required (all but 2025-11-25) [CN17]. */
export const cancelledParamsRequired = z.object({
  requestId: requestIdSchema,
  reason: z.string().optional(),
  _meta: metaSchema,
});
/** `notifications/cancelled` params in 2025-11-25: `requestId` optional, for tasks [CN18a]. */
export const cancelledParamsOptional = cancelledParamsRequired.extend({
  requestId: requestIdSchema.optional(),
});

/** The progress params schema for a revision. */
export function progressParamsSchema(
  revision: Revision,
): typeof progressParams20241105 | typeof progressParamsWithMessage {
  return hasProgressMessage(revision) ? progressParamsWithMessage : progressParams20241105;
}

/** The cancelled params schema for a revision. */
export function cancelledParamsSchema(
  revision: Revision,
): typeof cancelledParamsRequired | typeof cancelledParamsOptional {
  return revision === '2025-11-25' ? cancelledParamsOptional : cancelledParamsRequired;
}

/** A whole `notifications/progress` message for a revision. */
export function progressNotificationSchema(revision: Revision) {
  return z.object({
    jsonrpc: z.literal('2.0'),
    method: z.literal('notifications/progress'),
    params: progressParamsSchema(revision),
  });
}

/** A whole `notifications/cancelled` message for a revision. */
export function cancelledNotificationSchema(revision: Revision) {
  return z.object({
    jsonrpc: z.literal('2.0'),
    method: z.literal('notifications/cancelled'),
    params: cancelledParamsSchema(revision),
  });
}

export type ProgressParams = z.infer<typeof progressParamsWithMessage>;
export type CancelledParams = z.infer<typeof cancelledParamsOptional>;
