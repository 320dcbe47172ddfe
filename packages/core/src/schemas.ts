/**
 * `@mcp-inflight/core/schemas`: the zod schemas for progress and cancel messages, per revision. On their own
 * entry so that importing a primitive or an Endpoint never loads zod; the hot path uses the hand-written
 * guards (`isProgressParams`, `isCancelledParams`, `isTokenOrId`), which agree with these on a shared corpus.
 *
 * @module @mcp-inflight/core/schemas
 */
export {
  cancelledNotificationSchema,
  cancelledParamsSchema,
  progressNotificationSchema,
  progressParamsSchema,
  progressTokenSchema,
  requestIdSchema,
} from './schemas/schemas.js';
export type { CancelledParams, ProgressParams, ProgressToken, RequestId } from './schemas/types.js';
