/**
 * The public surface of `@mcp-inflight/http`: explicit named exports only.
 *
 * @module @mcp-inflight/http
 */

export type { HttpClientOptions, HttpClientWarning } from './client/http-client.js';
export { type SseEvent, SseParser, type SseParserOptions } from './client/sse-parser.js';
export { TRANSPORT_FAILURE_CODE } from './client/wire.js';
export { HttpClient } from './node/http-client.js';
export { type ConnectionLimits, limitConnections } from './node/limits.js';
export { toNodeListener } from './node/node-listener.js';
export { type RunningHttpServer, type ServeHttpOptions, serveHttp } from './node/serve-http.js';
export type { HttpHandlerStats, HttpSetup, HttpSetupInfo } from './server/context.js';
export { createHttpHandler, type HttpExchange, type HttpHandler } from './server/handler.js';
export {
  type HttpServerOptions,
  type ListenStreamsLike,
  LOOPBACK_HOSTS,
  type SessionExpiry,
} from './server/options.js';
export { HTTP_ERROR_CODES } from './shared/error-codes.js';
export { decodeHeaderValue, encodeHeaderValue } from './shared/header-value.js';
