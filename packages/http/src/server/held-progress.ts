import type { ProgressToken } from '@mcp-inflight/core';
import type { JsonRpcMessage } from '@mcp-inflight/core/adapter';

/**
 * Progress is queued like any message while at most this many bytes wait for the client; past it, and until
 * the client has read everything, only the latest value per token is held (rule 8). A client that reads
 * gets every value of a burst (one tick's worth, or a proxy's chunk from its upstream); one that falls
 * behind costs this much plus one held message per token.
 */
export const HOLD_PROGRESS_AFTER_BYTES = 64 * 1024;

/**
 * Progress held back while a stream's client is not reading: the latest value per token, in order of
 * arrival (a token held again moves to the end). Queueing every value would grow the server for as long as
 * the call runs (rule 8); a client that reads again gets the latest of each. A stream makes one when it
 * first holds a value: most calls never hold one.
 */
export class HeldProgress {
  #latest = new Map<ProgressToken, JsonRpcMessage>();

  get size(): number {
    return this.#latest.size;
  }

  /** Holds `message` as the latest for `token`, after every other token's. */
  hold(token: ProgressToken, message: JsonRpcMessage): void {
    this.#latest.delete(token); // re-insert: the held values keep their order of arrival
    this.#latest.set(token, message);
  }

  /** Takes every held value, oldest first, leaving none. */
  take(): JsonRpcMessage[] {
    const held = [...this.#latest.values()];
    this.#latest.clear();
    return held;
  }

  clear(): void {
    this.#latest.clear();
  }
}

/** The token of a `notifications/progress`, the one message a slow reader may miss all but the latest of. */
export function progressTokenOf(message: JsonRpcMessage | JsonRpcMessage[]): ProgressToken | undefined {
  if (Array.isArray(message) || message['method'] !== 'notifications/progress') return undefined;
  const token = (message['params'] as { progressToken?: unknown } | undefined)?.progressToken;
  return typeof token === 'string' || typeof token === 'number' ? token : undefined;
}
