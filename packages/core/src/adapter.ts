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
  type AdmissionStats,
  DEFAULT_MAX_IN_FLIGHT,
  DEFAULT_MAX_QUEUED_BYTES,
  QUEUED_REQUEST_OVERHEAD_BYTES,
} from './admission/admission.js';
export { MAX_TIMER_MS } from './clock/clock.js';
export { type Nap, nap, pause, settleWithin } from './clock/pause.js';
export { checkContent, type EmbeddedBlob, type EmbeddedText } from './content/content.js';
export { linkSignal } from './deadline/link-signal.js';
export type { Channel, SendIntent } from './endpoint/channel.js';
export { batchTooLarge } from './endpoint/endpoint.js';
export type { Direction } from './endpoint/events.js';
export { errorResponseFor } from './endpoint/inbound.js';
export {
  type JsonPiece,
  jsonPieces,
  type KeepStrings,
  KeptString,
  keepStrings,
  piecesLength,
} from './endpoint/kept-strings.js';
export { expectCapability, SERVER_INFO_META_KEY } from './endpoint/lifecycle.js';
export {
  classify,
  errorResponse,
  hasTask,
  type JsonRpcMessage,
  relayedParams,
  resultResponse,
} from './endpoint/messages.js';
export type { TaskRouteHooks } from './endpoint/outbound.js';
export { CANCEL_CODES, JSONRPC_CODE_BY_CAUSE } from './errors/causes.js';
export { inflightErrorFromJsonRpc, type JsonRpcErrorObject } from './errors/inflight-error.js';
export {
  declareParamHeaders,
  type ParamHeader,
  paramHeaderMismatch,
  paramHeadersOf,
  paramHeaderValue,
  servedParamHeaders,
  X_MCP_HEADER,
} from './headers/param-headers.js';
export {
  filterFor,
  filterWants,
  isEmptyFilter,
  LIST_CHANGED,
  LISTEN_ACK_METHOD,
  LISTEN_METHOD,
  type ListenFilter,
  offeredBy,
  RESOURCE_UPDATED,
  SUBSCRIPTION_ID_META_KEY,
} from './listen/filter.js';
export type { Role } from './policy/era-cancel-policy.js';
export type { ProgressRoute } from './relay/progress-relay.js';
export {
  allowsBatches,
  CLIENT_CAPABILITIES_META_KEY,
  DEFAULT_HTTP_REVISION,
  hasStreamableHttp,
  isLegacy,
  LATEST_LEGACY_REVISION,
  MODERN_REVISION,
  metaVersionOf,
  negotiateLegacy,
  PROTOCOL_VERSION_META_KEY,
} from './revisions/revisions.js';
export { isTokenOrId } from './schemas/guards.js';
export type { ProgressParams } from './schemas/types.js';
export {
  createdTaskOf,
  declaresTasksExtension,
  isTerminalStatus,
  RELATED_TASK_META_KEY,
  TASKS_EXTENSION,
  type TaskFields,
  type TaskState,
  type TaskStatus,
  taskStateOf,
  withTasksExtension,
} from './tasks/task-state.js';
export { QuietTimer } from './timers/quiet-timer.js';
export { TimerQueue } from './timers/timer-queue.js';
export { BoundedSet } from './util/bounded-set.js';
export { IdTable } from './util/id-table.js';
