import type { RequestId } from '../schemas/types.js';
import type { JsonRpcMessage } from './messages.js';

/**
 * Where an {@link Endpoint} writes. Adapters implement it: stdio writes one line per message; HTTP
 * writes a message to the response stream of the request it relates to.
 *
 * @example
 * ```ts
 * import { Endpoint } from '@mcp-inflight/core';
 * import { type Channel, type JsonRpcMessage } from '@mcp-inflight/core/adapter';
 * const written: (JsonRpcMessage | JsonRpcMessage[])[] = [];
 * // Like stdio: one stream for everything, so neither optional member is needed.
 * const channel: Channel = { write: (message) => void written.push(message) };
 * const endpoint = new Endpoint({ role: 'client', transport: 'stdio', channel });
 * ```
 */
export interface Channel {
  /**
   * Writes one message (or a 2025-03-26 batch array). `related` is the id of the inbound request the
   * message belongs to (its progress, its response); HTTP uses it to pick that request's stream, and a
   * response whose id equals `related` ends that stream.
   */
  write(message: JsonRpcMessage | JsonRpcMessage[], related?: RequestId): void;
  /**
   * Carries out the cancel of an outbound request that core's policy chose: send `notification` (stdio,
   * legacy HTTP [CN25]), or, when it is undefined, close that request's response stream and send nothing
   * (2026-07-28 HTTP [CN24]). A channel decides nothing here and inspects no message. Without this
   * method core writes the notification with `write`, and a close-stream cancel has nothing to close.
   */
  cancelRequest?(id: RequestId, notification: JsonRpcMessage | undefined): void;
  /**
   * An inbound request ended with no response and none will follow (the peer cancelled it, a cancel came
   * before it, its stream was dropped) [CN9]. HTTP ends that request's stream here; stdio has nothing to do.
   */
  suppressed?(id: RequestId): void;
}
