/**
 * The public surface of `@mcp-inflight/core`: what users call. The four modules the design names
 * (`TokenRegistry`, `ProgressRelay`, `DeadlineController`, `EraCancelPolicy`), the `Endpoint` they compose
 * into, the server's lifecycle, the error, the clock and the revisions. What a transport or proxy author
 * needs beyond this is on `@mcp-inflight/core/adapter`; the client shape is `@mcp-inflight/client`, the tool
 * layer `@mcp-inflight/server`.
 *
 * @module @mcp-inflight/core
 */

export { type Clock, systemClock, type TimerHandle } from './clock/clock.js';
export type {
  AudioContent,
  CallToolResult,
  ContentBlock,
  EmbeddedResource,
  ImageContent,
  ResourceLink,
  TextContent,
  UnknownContent,
} from './content/content.js';
export { DeadlineController, type DeadlineOptions } from './deadline/deadline-controller.js';
export { type WithTimeoutOptions, withTimeout } from './deadline/with-timeout.js';
export type {
  HandlerLimits,
  NotificationHandler,
  RequestContext,
  RequestHandler,
} from './endpoint/context.js';
export {
  Endpoint,
  type EndpointOptions,
  type EndpointStats,
} from './endpoint/endpoint.js';
export type { EndpointEvents } from './endpoint/events.js';
export { type ServerIdentity, serveLifecycle } from './endpoint/lifecycle.js';
export { JsonRpcError } from './endpoint/messages.js';
export type { RequestOptions } from './endpoint/outbound.js';
export { type CancelCode, JsonRpcErrorCode } from './errors/causes.js';
export {
  InflightError,
  type InflightErrorDetails,
} from './errors/inflight-error.js';
export {
  type CancelMethod,
  EraCancelPolicy,
  eraCancelPolicy,
  type TransportKind,
} from './policy/era-cancel-policy.js';
export { isCancel } from './policy/is-cancel.js';
export { ProgressRelay } from './relay/progress-relay.js';
export {
  isRevision,
  REVISIONS,
  type Revision,
  revisionOf,
} from './revisions/revisions.js';
// The zod schemas live on `@mcp-inflight/core/schemas`, so this entry never loads zod.
export type { ProgressToken, RequestId } from './schemas/types.js';
export { DuplicateTokenError, TokenRegistry } from './tokens/token-registry.js';
