/**
 * The public surface of `@mcp-inflight/core`: explicit named exports only.
 *
 * @module @mcp-inflight/core
 */

export {
  type CallToolResult,
  type ClientTransport,
  LifecycleClient,
  type McpClient,
} from './client/client.js';
export { connectLifecycle, type LifecycleHooks } from './client/connect-lifecycle.js';
export {
  type ClientIdentity,
  type ConnectOptions,
  NegotiationError,
  type ServerHandshake,
} from './client/handshake.js';
export { type Clock, MAX_TIMER_MS, systemClock, type TimerHandle, timersOf } from './clock/clock.js';
export { pause } from './clock/pause.js';
export { DeadlineController, type DeadlineOptions } from './deadline/deadline-controller.js';
export { type WithTimeoutOptions, withTimeout } from './deadline/with-timeout.js';
export type { Channel } from './endpoint/channel.js';
export type {
  HandlerLimits,
  NotificationHandler,
  RequestContext,
  RequestHandler,
  TaskContext,
} from './endpoint/context.js';
export {
  batchTooLarge,
  DEFAULT_MAX_BATCH_ELEMENTS,
  Endpoint,
  type EndpointOptions,
  type EndpointStats,
} from './endpoint/endpoint.js';
export type { Direction, EndpointEvents, Outcome } from './endpoint/events.js';
export { errorResponseFor } from './endpoint/inbound.js';
export { SERVER_INFO_META_KEY, type ServerIdentity, serveLifecycle } from './endpoint/lifecycle.js';
export {
  type Classified,
  classify,
  errorResponse,
  forwardedParams,
  hasTask,
  JsonRpcError,
  type JsonRpcMessage,
  metaOf,
  resultResponse,
} from './endpoint/messages.js';
export type { RequestOptions, TaskRouteHooks } from './endpoint/outbound.js';
export {
  allowsBatches,
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  DEFAULT_HTTP_REVISION,
  hasProgressMessage,
  hasStreamableHttp,
  isLegacy,
  isRevision,
  LATEST_LEGACY_REVISION,
  MODERN_REVISION,
  metaVersionOf,
  negotiateLegacy,
  PROTOCOL_VERSION_META_KEY,
  REVISIONS,
  type Revision,
  revisionOf,
  revisionOfHeader,
} from './eras/eras.js';
export { CANCEL_CODES, type CancelCode, JSONRPC_CODE_BY_CAUSE, JsonRpcErrorCode } from './errors/causes.js';
export {
  InflightError,
  type InflightErrorDetails,
  inflightErrorFromJsonRpc,
  type JsonRpcErrorObject,
} from './errors/inflight-error.js';
export {
  type CancelSignal,
  EraCancelPolicy,
  eraCancelPolicy,
  type OutboundRequest,
  type PolicyAnswer,
  type Role,
  type Transport,
} from './policy/era-cancel-policy.js';
export {
  DEFAULT_MIN_INTERVAL_MS,
  type DropReason,
  ProgressRelay,
  type ProgressRelayEvents,
  type ProgressRelayStats,
  ProgressRoute,
  type RouteOptions,
} from './relay/progress-relay.js';
export { isCancelledParams, isProgressParams, isTokenOrId } from './schemas/guards.js';
// The zod schemas live on `@mcp-inflight/core/schemas`, so this entry never loads zod.
export type { CancelledParams, ProgressParams, ProgressToken, RequestId } from './schemas/types.js';
export { QuietTimer } from './timers/quiet-timer.js';
export { type QueuedTimer, TimerQueue } from './timers/timer-queue.js';
export { DuplicateTokenError, type TokenLease, TokenRegistry } from './tokens/token-registry.js';
export { BoundedSet } from './util/bounded-set.js';
