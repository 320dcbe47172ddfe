/**
 * `@mcp-inflight/server/listen`: the server side of 2026-07-28 listen streams (`subscriptions/listen`): a
 * hub that serves the request on every endpoint and publishes notifications to the streams that asked for
 * them. On its own entry, so a server that has none pays nothing for it. (The client side is part of every
 * client.)
 *
 * @module @mcp-inflight/server/listen
 */

export {
  ListenStreams,
  type ListenStreamsOptions,
  type ListenStreamsStats,
} from './listen/listen-streams.js';
