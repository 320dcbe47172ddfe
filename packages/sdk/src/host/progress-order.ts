type OnMessage = (message: unknown, extra?: unknown) => void;

interface TransportLike {
  onmessage?: OnMessage | undefined;
}

const wrappers = new WeakMap<object, OnMessage>();

/**
 * Makes an SDK client see a request's progress before its response when both arrive together (one stdio
 * chunk, one SSE batch). Both SDK majors hand each notification to its handler one microtask later but a
 * response at once, so the response unregisters the request and the final progress ("4 of 4") is dropped
 * as "unknown token"; the SDK's own test matrix lists this as a known failure. Here a response is handed on
 * one microtask later too, behind the notifications that came before it. Call after `connect()` (the SDK
 * sets the handler there); safe to call again, and it re-applies after a reconnect.
 * {@link callWithDeadline} and {@link relayRequest} call it for you.
 *
 * @example
 * ```ts
 * import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
 * import { keepProgressOrder } from '@mcp-inflight/sdk';
 * declare const client: Client; // connected
 * keepProgressOrder(client); // returns whether the client's transport is now covered
 * ```
 */
export function keepProgressOrder(client: object): boolean {
  const transport = (client as { transport?: unknown }).transport as TransportLike | undefined;
  if (typeof transport !== 'object' || transport === null) return false;
  const current = transport.onmessage;
  if (typeof current !== 'function') return false;
  if (wrappers.get(transport) === current) return true;
  const wrapped: OnMessage = (message, extra) => {
    if (isResponse(message)) queueMicrotask(() => current.call(transport, message, extra));
    else current.call(transport, message, extra);
  };
  wrappers.set(transport, wrapped);
  transport.onmessage = wrapped;
  return true;
}

// A response has an id and a result or error, and no method.
function isResponse(message: unknown): boolean {
  if (typeof message !== 'object' || message === null) return false;
  const m = message as { method?: unknown; result?: unknown; error?: unknown };
  return m.method === undefined && (m.result !== undefined || m.error !== undefined);
}
