// Test doubles shaped like the SDK objects the helpers take. Pure: no I/O, no timers of their own.
import type {
  ProgressNotificationLike,
  SdkRequestOptions,
  V1HandlerExtra,
  V2HandlerContext,
} from '../../src/index.js';

/** A v1 `extra` whose sends are recorded. */
export function fakeV1Extra(
  meta: Record<string, unknown> | undefined,
  signal = new AbortController().signal,
) {
  const sent: ProgressNotificationLike['params'][] = [];
  const extra: V1HandlerExtra = {
    signal,
    ...(meta ? { _meta: meta } : {}),
    sendNotification: async (notification) => {
      sent.push(notification.params);
    },
  };
  return { extra, sent };
}

/** A v2 `ctx` whose sends are recorded. */
export function fakeV2Ctx(meta: Record<string, unknown> | undefined, envelope?: Record<string, unknown>) {
  const controller = new AbortController();
  const sent: ProgressNotificationLike['params'][] = [];
  const ctx: V2HandlerContext = {
    mcpReq: {
      id: 1,
      signal: controller.signal,
      ...(meta ? { _meta: meta } : {}),
      ...(envelope ? { envelope } : {}),
      notify: async (notification) => {
        sent.push(notification.params);
      },
    },
  };
  return { ctx, sent, controller };
}

/**
 * An SDK call in flight: captures the options it was given and settles when told; like both SDKs, it
 * rejects with the timeout code (-32001) when its signal aborts.
 */
export function fakeSdkCall<T = unknown>() {
  let sdk: SdkRequestOptions | undefined;
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  let calls = 0;
  const run = (options: SdkRequestOptions): Promise<T> => {
    calls++;
    sdk = options;
    return new Promise<T>((res, rej) => {
      resolve = res;
      reject = rej;
      options.signal.addEventListener('abort', () =>
        rej(Object.assign(new Error(`MCP error -32001: ${String(options.signal.reason)}`), { code: -32001 })),
      );
    });
  };
  return {
    run,
    get sdk() {
      if (!sdk) throw new Error('the SDK call was never made');
      return sdk;
    },
    get calls() {
      return calls;
    },
    resolve: (value: T) => resolve(value),
    reject: (error: unknown) => reject(error),
  };
}

/** Lets pending promise callbacks run (no timers involved). */
export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
}
