// Structural shapes of the SDK objects we are handed. Neither SDK major is imported here (both are optional
// peers): anything with these members works, so v1 and v2 objects, and test doubles, all fit.
import type { ProgressToken } from '@mcp-inflight/core';

/** `notifications/progress` as we send it. */
export interface ProgressNotificationLike {
  method: 'notifications/progress';
  params: { progressToken: ProgressToken; progress: number; total?: number; message?: string };
}

/** `_meta` of an inbound request, as both SDKs expose it. */
export interface RequestMetaLike {
  progressToken?: ProgressToken;
  [key: string]: unknown;
}

/**
 * The `extra` argument of an SDK v1 request handler (`RequestHandlerExtra`): only what we read.
 * Method syntax keeps the check lenient for the SDK's wider notification union.
 */
export interface V1HandlerExtra {
  signal: AbortSignal;
  _meta?: RequestMetaLike;
  requestId?: string | number;
  requestInfo?: { headers?: Record<string, string | string[] | undefined> };
  sendNotification(notification: ProgressNotificationLike): Promise<void>;
}

/** The `ctx` argument of an SDK v2 request handler (`ServerContext`): only what we read. */
export interface V2HandlerContext {
  mcpReq: {
    id?: string | number;
    signal: AbortSignal;
    _meta?: RequestMetaLike;
    envelope?: Record<string, unknown>;
    notify(notification: ProgressNotificationLike): Promise<void>;
  };
}

/** What an SDK request handler receives as its last argument: v1 `extra` or v2 `ctx`. */
export type HandlerContext = V1HandlerExtra | V2HandlerContext;

/** A request as both SDKs take it. */
export interface RequestLike {
  method: string;
  params?: Record<string, unknown> & { _meta?: Record<string, unknown> };
}

/** Progress as an SDK `onprogress` callback receives it (the token already stripped). */
export interface Progress {
  progress: number;
  total?: number;
  message?: string;
}

/**
 * The per-request options both SDK majors accept (`RequestOptions`): what we pass to every call so that our
 * deadline, not the SDK's timer, decides when it ends.
 */
export interface SdkRequestOptions {
  /** Aborted by our deadline with the wire reason; the SDK then cancels on the wire, era-correctly. */
  signal: AbortSignal;
  /** Always set, so the SDK attaches a progress token and progress resets our idle window (SDK #2076). */
  onprogress: (progress: Progress) => void;
  /** Effectively infinite: our ceiling fires first, on its own timer (SDK #2695). */
  timeout: number;
  resetTimeoutOnProgress: false;
}

/**
 * The SDK `Client` members we call, v1 or v2. v1's `request` takes a result schema second; v2's takes
 * options second for spec methods. Method syntax keeps both SDKs' overloads assignable.
 */
export interface ClientLike {
  request(request: RequestLike, schemaOrOptions?: unknown, options?: unknown): Promise<unknown>;
  callTool?(params: never, schemaOrOptions?: unknown, options?: unknown): Promise<unknown>;
  onerror?: ((error: Error) => void) | undefined;
}

/** Whether a client is SDK v2: only v2 has eras (`getProtocolEra`). */
export function isV2Client(client: object): boolean {
  return typeof (client as { getProtocolEra?: unknown }).getProtocolEra === 'function';
}
