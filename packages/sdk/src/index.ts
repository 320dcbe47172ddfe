/**
 * The public surface of `@mcp-inflight/sdk`: explicit named exports only.
 *
 * @module @mcp-inflight/sdk
 */

// Re-exported so that `catch (e) { if (e instanceof InflightError) … }` needs one import; it is core's class.
export { type CancelCode, InflightError } from '@mcp-inflight/core';
export { inflightErrorFromAbort, inflightErrorFromSdk, isConnectionClosed, WireError } from './errors.js';
export {
  type CallToolResultLike,
  type CallWithDeadlineOptions,
  callWithDeadline,
  passthroughSchema,
} from './host/call-with-deadline.js';
export {
  type AbsorbLateOptions,
  absorbLateMessages,
  type LateKind,
  type LateMessageFilter,
} from './host/late-messages.js';
export { keepProgressOrder } from './host/progress-order.js';
export { DEFAULT_CEILING_MS, DEFAULT_IDLE_MS } from './host/request-lifecycle.js';
export { type DeadlineCallOptions, withDeadline } from './host/with-deadline.js';
export { type InflightClientDefaults, withInflight } from './host/with-inflight.js';
export { type RelayRequestOptions, relayRequest } from './proxy/relay-request.js';
export { relayedRequest } from './proxy/relayed-request.js';
export { type RelayOptions, sharedRelay } from './relay-for.js';
export {
  type ProgressReporter,
  type ProgressReporterOptions,
  progressReporter,
} from './server/progress-reporter.js';
export { withProgress } from './server/with-progress.js';
export type {
  ClientLike,
  HandlerContext,
  Progress,
  ProgressNotificationLike,
  RequestLike,
  RequestMetaLike,
  SdkRequestOptions,
  V1HandlerExtra,
  V2HandlerContext,
} from './shapes.js';
