/**
 * `@mcp-inflight/http/fetch`: everything that needs only the Fetch API (no node:* imports): the client for
 * browsers (tested in headless Chromium) and the Fetch-standard handler. Node users can import the same
 * names from `@mcp-inflight/http`.
 *
 * @module @mcp-inflight/http/fetch
 */

export { HttpClient, type HttpClientOptions, type HttpClientWarning } from './client/http-client.js';
export { type SseEvent, SseParser, type SseParserOptions } from './client/sse-parser.js';
export { TRANSPORT_FAILURE_CODE } from './client/wire.js';
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
