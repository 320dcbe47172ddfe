import { type ClientLike, isV2Client, type RequestLike, type SdkRequestOptions } from '../shapes.js';
import { absorbLateMessages } from './late-messages.js';
import { keepProgressOrder } from './progress-order.js';
import { type DeadlineCallOptions, withDeadline } from './with-deadline.js';

/**
 * Options for {@link callWithDeadline}.
 *
 * @example
 * ```ts
 * import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
 * import { ListToolsResultSchema } from '@modelcontextprotocol/sdk/types.js';
 * import { type CallWithDeadlineOptions, callWithDeadline } from '@mcp-inflight/sdk';
 * declare const client: Client;
 * const options: CallWithDeadlineOptions = {
 *   resultSchema: ListToolsResultSchema, // without one, v1 returns a non-tools/call result unvalidated
 *   idleMs: 10_000,
 *   absorbLate: false, // this client's onerror wants to see late traffic too
 * };
 * const tools = await callWithDeadline(client, { method: 'tools/list' }, options);
 * ```
 */
export interface CallWithDeadlineOptions extends DeadlineCallOptions {
  /**
   * The result schema to validate with: any zod schema for v1, any Standard Schema for v2. Without it,
   * `tools/call` goes through `client.callTool` (SDK validation included), other spec methods through v2's
   * own per-method validation, and on v1 the result comes back as the server sent it.
   */
  resultSchema?: unknown;
  /** Install {@link absorbLateMessages} on the client (once), so late traffic stays off `onerror`. @default true */
  absorbLate?: boolean;
}

/**
 * The result of `tools/call`, as far as this package needs to name it.
 *
 * @example
 * ```ts
 * import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
 * import { type CallToolResultLike, callWithDeadline } from '@mcp-inflight/sdk';
 * declare const client: Client;
 * const request = { method: 'tools/call' as const, params: { name: 'work' } };
 * const result: CallToolResultLike = await callWithDeadline(client, request);
 * // A tool's own failure is a result, not a rejection: only the call ending early rejects.
 * if (result.isError) console.error('the tool failed', result.content);
 * ```
 */
export interface CallToolResultLike {
  /** The result's content blocks. */
  content?: unknown[];
  /** A tool execution error the model should see (not a protocol error). */
  isError?: boolean;
  /** Structured output, when the tool declares an output schema. */
  structuredContent?: unknown;
  [key: string]: unknown;
}

/**
 * A schema both SDK majors accept and that accepts anything: v1 calls `safeParse` on a non-zod-4 schema,
 * v2 calls a Standard Schema's `validate`. Used where the SDK insists on a schema but the caller (or a
 * proxy, which must pass results through untouched) gave none.
 *
 * @example
 * ```ts
 * import type { Client } from '@modelcontextprotocol/client';
 * import { passthroughSchema } from '@mcp-inflight/sdk';
 * declare const client: Client; // SDK v2
 * const raw = await client.request({ method: 'acme/stats' }, passthroughSchema); // a custom method, unvalidated
 * ```
 */
export const passthroughSchema = {
  /** SDK v1's check: every value passes, unchanged. */
  safeParse: (data: unknown) => ({
    /** Always `true`. */
    success: true as const,
    /** The value, unchanged. */
    data,
  }),
  /** SDK v2's check, as a Standard Schema: every value passes, unchanged. */
  '~standard': {
    /** The Standard Schema version. */
    version: 1 as const,
    /** Who made the schema. */
    vendor: 'mcp-inflight',
    /** Every value passes, unchanged. */
    validate: (value: unknown) => ({
      /** The value, unchanged. */
      value,
    }),
  },
};

/**
 * Sends one request through an SDK `Client` (v1 or v2) under a deadline: an idle window that progress
 * resets even with no callback, a ceiling on its own timer that cancels on the wire with a reason naming it,
 * and rejections a caller can tell apart ({@link InflightError} codes CANCELLED, IDLE_TIMEOUT, CEILING,
 * DISCONNECTED, and UPSTREAM_CLOSED when a proxy says so). Progress is always asked for.
 *
 * @example
 * ```ts
 * import { Client } from '@modelcontextprotocol/sdk/client/index.js';
 * import { InflightError } from '@mcp-inflight/core';
 * import { callWithDeadline } from '@mcp-inflight/sdk';
 *
 * async function run(client: Client, stop: AbortSignal) {
 *   try {
 *     const result = await callWithDeadline(
 *       client,
 *       { method: 'tools/call', params: { name: 'work', arguments: { steps: 20 } } },
 *       { idleMs: 5_000, ceilingMs: 60_000, signal: stop, onprogress: (p) => console.log(p.progress, p.total) },
 *     );
 *     return result.content;
 *   } catch (error) {
 *     if (error instanceof InflightError) console.log(error.code); // 'CANCELLED' | 'IDLE_TIMEOUT' | 'CEILING' | …
 *     throw error;
 *   }
 * }
 * ```
 */
export function callWithDeadline(
  client: ClientLike,
  request: RequestLike & { method: 'tools/call' },
  options?: CallWithDeadlineOptions,
): Promise<CallToolResultLike>;
export function callWithDeadline<T = unknown>(
  client: ClientLike,
  request: RequestLike,
  options?: CallWithDeadlineOptions,
): Promise<T>;
export function callWithDeadline(
  client: ClientLike,
  request: RequestLike,
  options: CallWithDeadlineOptions = {},
): Promise<unknown> {
  if (options.absorbLate !== false) absorbLateMessages(client);
  keepProgressOrder(client);
  const v2 = isV2Client(client);
  return withDeadline((sdk) => sendThrough(client, v2, request, options.resultSchema, sdk), options);
}

/** Picks the SDK entry point for the request and major. */
function sendThrough(
  client: ClientLike,
  v2: boolean,
  request: RequestLike,
  resultSchema: unknown,
  sdkOptions: SdkRequestOptions,
): Promise<unknown> {
  // The client never cancels initialize [CN7], and SDK v1 would on an aborted signal: for initialize the SDK
  // gets no signal, and a limit or a caller's stop only ends the wait here.
  const { signal: _never, ...withoutSignal } = sdkOptions;
  const sdk = request.method === 'initialize' ? withoutSignal : sdkOptions;
  const callTool = client.callTool as ((...args: unknown[]) => Promise<unknown>) | undefined;
  if (request.method === 'tools/call' && resultSchema === undefined && typeof callTool === 'function') {
    // v1: callTool(params, resultSchema?, options); v2: callTool(params, options).
    return v2
      ? callTool.call(client, request.params, sdk)
      : callTool.call(client, request.params, undefined, sdk);
  }
  if (v2)
    return resultSchema === undefined
      ? client.request(request, sdk)
      : client.request(request, resultSchema, sdk);
  return client.request(request, resultSchema ?? passthroughSchema, sdk);
}
