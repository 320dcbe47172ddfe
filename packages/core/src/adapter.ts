/**
 * `@mcp-inflight/core/adapter`: what a transport, SDK bridge or proxy author needs beyond the root entry:
 * the channel an `Endpoint` writes through, message classification and error responses, the envelope keys
 * and revision readers, the timers and bounded sets core runs on, and the task-state readers. Users who
 * only call tools never import it.
 *
 * @module @mcp-inflight/core/adapter
 */

export {
  Admission,
  type AdmissionOptions,
  type AdmissionState,
  type AdmissionStats,
  type AdmissionTicket,
  DEFAULT_MAX_IN_FLIGHT,
  DEFAULT_MAX_QUEUED_BYTES,
  OVERLOADED_MESSAGE,
  QUEUED_REQUEST_OVERHEAD_BYTES,
} from './admission/admission.js';
export { type ClientTransport, LifecycleClient } from './client/client.js';
export type { LifecycleHooks } from './client/connect-lifecycle.js';
export type { ServerHandshake } from './client/handshake.js';
export { MAX_TIMER_MS, timersOf } from './clock/clock.js';
export { pause, settleWithin } from './clock/pause.js';
export type { Channel, SendIntent } from './endpoint/channel.js';
export type { TaskContext } from './endpoint/context.js';
export { batchTooLarge, DEFAULT_MAX_BATCH_ELEMENTS } from './endpoint/endpoint.js';
export type { Direction, Outcome } from './endpoint/events.js';
export { errorResponseFor } from './endpoint/inbound.js';
export {
  type JsonPiece,
  jsonPieces,
  type KeepStrings,
  KeptString,
  keepStrings,
  piecesLength,
} from './endpoint/kept-strings.js';
export { SERVER_INFO_META_KEY } from './endpoint/lifecycle.js';
export {
  type Classified,
  classify,
  errorResponse,
  hasTask,
  type JsonRpcMessage,
  metaOf,
  relayedParams,
  resultResponse,
} from './endpoint/messages.js';
export type { TaskRouteHooks } from './endpoint/outbound.js';
export {
  allowsBatches,
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  DEFAULT_HTTP_REVISION,
  hasProgressMessage,
  hasStreamableHttp,
  isLegacy,
  LATEST_LEGACY_REVISION,
  MODERN_REVISION,
  metaVersionOf,
  negotiateLegacy,
  PROTOCOL_VERSION_META_KEY,
  revisionOfHeader,
} from './eras/eras.js';
export { CANCEL_CODES, JSONRPC_CODE_BY_CAUSE } from './errors/causes.js';
export { inflightErrorFromJsonRpc, type JsonRpcErrorObject } from './errors/inflight-error.js';
export type { OutboundRequest, PolicyAnswer, Role } from './policy/era-cancel-policy.js';
export {
  DEFAULT_MIN_INTERVAL_MS,
  type DropReason,
  type ProgressRelayEvents,
  type ProgressRelayStats,
  type ProgressRoute,
  type RouteOptions,
} from './relay/progress-relay.js';
export { isCancelledParams, isProgressParams, isTokenOrId } from './schemas/guards.js';
export type { CancelledParams, ProgressParams } from './schemas/types.js';
export { IdleWindow } from './tasks/idle-window.js';
export { createdTaskOf, taskStateOf } from './tasks/task-state.js';
export { QuietTimer } from './timers/quiet-timer.js';
export { type QueuedTimer, TimerQueue } from './timers/timer-queue.js';
export {
  declareParamHeaders,
  type ParamHeader,
  type ParamHeaders,
  paramHeaderMismatch,
  paramHeadersOf,
  paramHeaderValue,
  servedParamHeaders,
  X_MCP_HEADER,
} from './tools/param-headers.js';
export { BoundedSet } from './util/bounded-set.js';
export { copyWith } from './util/copy-with.js';
export { IdTable } from './util/id-table.js';
