// Structural shapes of the SDK objects we are handed. Neither SDK major is imported here (both are optional
// peers): anything with these members works, so v1 and v2 objects, and test doubles, all fit.
import type { ProgressToken } from '@mcp-inflight/core';

/**
 * `notifications/progress` as we send it.
 *
 * @example
 * ```ts
 * import type { ProgressNotificationLike, V1HandlerExtra } from '@mcp-inflight/sdk';
 * declare const extra: V1HandlerExtra;
 * // By hand, without progressReporter's ordering, coalescing and end-of-request guard:
 * const token = extra._meta?.progressToken;
 * if (token !== undefined) {
 *   const notification: ProgressNotificationLike = {
 *     method: 'notifications/progress',
 *     params: { progressToken: token, progress: 1, total: 3 },
 *   };
 *   await extra.sendNotification(notification);
 * }
 * ```
 */
export interface ProgressNotificationLike {
  /** Always `'notifications/progress'`. */
  method: 'notifications/progress';
  /** The update, under the requester's token. */
  params: {
    /** The requester's progress token. */
    progressToken: ProgressToken;
    /** Progress so far. */
    progress: number;
    /** The total, if known. */
    total?: number;
    /** A human-readable status, if any. */
    message?: string;
  };
}

/**
 * `_meta` of an inbound request, as both SDKs expose it.
 *
 * @example
 * ```ts
 * import type { RequestMetaLike, V2HandlerContext } from '@mcp-inflight/sdk';
 * declare const ctx: V2HandlerContext;
 * const meta: RequestMetaLike | undefined = ctx.mcpReq._meta;
 * // No token: send no progress at all. 0 is a real token, so never test it for truthiness.
 * const wantsProgress = meta?.progressToken !== undefined;
 * ```
 */
export interface RequestMetaLike {
  /** The requester's progress token, if it wants progress. */
  progressToken?: ProgressToken;
  [key: string]: unknown;
}

/**
 * The `extra` argument of an SDK v1 request handler (`RequestHandlerExtra`): only what we read.
 * Method syntax keeps the check lenient for the SDK's wider notification union.
 *
 * @example
 * ```ts
 * import { progressReporter, type V1HandlerExtra } from '@mcp-inflight/sdk';
 * import { Server } from '@modelcontextprotocol/sdk/server/index.js';
 * import { CallToolRequestSchema } from '@modelcontextprotocol/sdk/types.js';
 * const server = new Server({ name: 'worker', version: '1.0.0' }, { capabilities: { tools: {} } });
 * server.setRequestHandler(CallToolRequestSchema, async (_request, extra) => {
 *   const context: V1HandlerExtra = extra; // the SDK's RequestHandlerExtra fits as it is
 *   using progress = progressReporter(context);
 *   progress.report(1, 1, 'done');
 *   return { content: [] };
 * });
 * ```
 */
export interface V1HandlerExtra {
  /** Aborted when the request is cancelled. */
  signal: AbortSignal;
  /** The request's `_meta`. */
  _meta?: RequestMetaLike;
  /** The request's JSON-RPC id. */
  requestId?: string | number;
  /** The HTTP request the message came in (HTTP transports only). */
  requestInfo?: {
    /** The HTTP request's headers. */
    headers?: Record<string, string | string[] | undefined>;
  };
  /** Sends a notification related to this request. */
  sendNotification(notification: ProgressNotificationLike): Promise<void>;
}

/**
 * The `ctx` argument of an SDK v2 request handler (`ServerContext`): only what we read.
 *
 * @example
 * ```ts
 * import { progressReporter, type V2HandlerContext } from '@mcp-inflight/sdk';
 * import { McpServer } from '@modelcontextprotocol/server';
 * const server = new McpServer({ name: 'worker', version: '1.0.0' });
 * server.registerTool('ping', {}, async (ctx) => {
 *   const context: V2HandlerContext = ctx; // the SDK's ServerContext fits as it is
 *   using progress = progressReporter(context);
 *   progress.report(1, 1);
 *   return { content: [] };
 * });
 * ```
 */
export interface V2HandlerContext {
  /** The request being served. */
  mcpReq: {
    /** The request's JSON-RPC id. */
    id?: string | number;
    /** Aborted when the request is cancelled. */
    signal: AbortSignal;
    /** The request's `_meta`. */
    _meta?: RequestMetaLike;
    /** The request's 2026-07-28 envelope, when there is one. */
    envelope?: Record<string, unknown>;
    /** Sends a notification related to this request. */
    notify(notification: ProgressNotificationLike): Promise<void>;
  };
}

/**
 * What an SDK request handler receives as its last argument: v1 `extra` or v2 `ctx`.
 *
 * @example
 * ```ts
 * import type { HandlerContext } from '@mcp-inflight/sdk';
 * // Code shared by v1 and v2 handlers takes the last argument as it comes.
 * function signalOf(context: HandlerContext): AbortSignal {
 *   return 'mcpReq' in context ? context.mcpReq.signal : context.signal;
 * }
 * ```
 */
export type HandlerContext = V1HandlerExtra | V2HandlerContext;

/**
 * A request as both SDKs take it.
 *
 * @example
 * ```ts
 * import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
 * import { callWithDeadline, type RequestLike } from '@mcp-inflight/sdk';
 * declare const client: Client;
 * const request: RequestLike = { method: 'resources/read', params: { uri: 'file:///notes.md' } };
 * const contents = await callWithDeadline(client, request, { idleMs: 5_000 });
 * ```
 */
export interface RequestLike {
  /** The JSON-RPC method. */
  method: string;
  /** Its params. */
  params?: Record<string, unknown> & {
    /** The request's `_meta`. */
    _meta?: Record<string, unknown>;
  };
}

/**
 * Progress as an SDK `onprogress` callback receives it (the token already stripped).
 *
 * @example
 * ```ts
 * import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
 * import { type Progress, withDeadline } from '@mcp-inflight/sdk';
 * declare const client: Client;
 * // `total` is optional: not all work knows its size.
 * const show = ({ progress, total }: Progress) =>
 *   console.log(total === undefined ? `${progress} done` : `${Math.round((100 * progress) / total)}%`);
 * await withDeadline((sdk) => client.callTool({ name: 'work' }, undefined, sdk), { onprogress: show });
 * ```
 */
export interface Progress {
  /** Progress so far. */
  progress: number;
  /** The total, if known. */
  total?: number;
  /** A human-readable status, if any. */
  message?: string;
}

/**
 * The per-request options both SDK majors accept (`RequestOptions`): what we pass to every call so that our
 * deadline, not the SDK's timer, decides when it ends.
 *
 * @example
 * ```ts
 * import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
 * import { type SdkRequestOptions, withDeadline } from '@mcp-inflight/sdk';
 * declare const client: Client;
 * // Pass it whole: a `timeout` of your own would bring back the SDK's timer, which progress does not reset.
 * const run = (sdk: SdkRequestOptions) => client.getPrompt({ name: 'summary' }, sdk);
 * const prompt = await withDeadline(run, { ceilingMs: 20_000 });
 * ```
 */
export interface SdkRequestOptions {
  /** Aborted by our deadline with the wire reason; the SDK then cancels on the wire, era-correctly. */
  signal: AbortSignal;
  /** Always set, so the SDK attaches a progress token and progress resets our idle window (SDK #2076). */
  onprogress: (progress: Progress) => void;
  /** Effectively infinite: our ceiling fires first, on its own timer (SDK #2695). */
  timeout: number;
  /** Off: progress resets our idle window, not the SDK's timer. */
  resetTimeoutOnProgress: false;
}

/**
 * The SDK `Client` members we call, v1 or v2. v1's `request` takes a result schema second; v2's takes
 * options second for spec methods. Method syntax keeps both SDKs' overloads assignable.
 *
 * @example
 * ```ts
 * import { callWithDeadline, type ClientLike } from '@mcp-inflight/sdk';
 * import { Client } from '@modelcontextprotocol/client';
 * const client: ClientLike = new Client({ name: 'host', version: '1.0.0' }); // SDK v2; v1's Client fits too
 * // A test double needs only `request`:
 * const fake: ClientLike = { request: async () => ({ content: [{ type: 'text', text: 'ok' }] }) };
 * const result = await callWithDeadline(fake, { method: 'tools/call', params: { name: 'work' } });
 * ```
 */
export interface ClientLike {
  /** Sends a request (v1: `request, resultSchema, options`; v2: `request, options` for spec methods). */
  request(request: RequestLike, schemaOrOptions?: unknown, options?: unknown): Promise<unknown>;
  /** Calls a tool; used for `tools/call` so the SDK's own result checks apply. */
  callTool?(params: never, schemaOrOptions?: unknown, options?: unknown): Promise<unknown>;
  /** The SDK's error callback. */
  onerror?: ((error: Error) => void) | undefined;
}

/** Whether a client is SDK v2: only v2 has eras (`getProtocolEra`). */
export function isV2Client(client: object): boolean {
  return typeof (client as { getProtocolEra?: unknown }).getProtocolEra === 'function';
}
