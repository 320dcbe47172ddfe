// The store's and the directory's connections to Redis, and what they say of its failures.
import { JsonRpcError, systemClock } from '@mcp-inflight/core';
import { settleWithin } from '@mcp-inflight/core/adapter';
import { createClient } from '@redis/client';

/**
 * Two connected clients (commands, and a subscriber for pub/sub); rejects naming the URL's host when the
 * first connection fails or takes longer than `connectTimeoutMs` (default 5 s).
 */
export async function connectPair(options: {
  url: string;
  connectTimeoutMs?: number | undefined;
  onError?: ((error: Error) => void) | undefined;
}) {
  let everReady = false;
  const client = createClient({
    url: options.url,
    // A call while Redis is away fails at once (-32603), never waits in a queue.
    disableOfflineQueue: true,
    socket: {
      connectTimeout: options.connectTimeoutMs ?? 5_000,
      // The first connection fails fast; once up, reconnect for ever, at most 1 s apart.
      reconnectStrategy: (retries: number, cause: Error) =>
        everReady ? Math.min(50 * 2 ** Math.min(retries, 5), 1_000) : cause,
    },
  });
  const onError = options.onError ?? noop;
  client.on('error', (error: Error) => onError(error));
  const subscriber = client.duplicate();
  subscriber.on('error', (error: Error) => onError(error));
  try {
    await client.connect();
    everReady = true;
    await subscriber.connect();
  } catch (error) {
    client.destroy();
    subscriber.destroy();
    throw new Error(`cannot reach Redis at ${where(options.url)}: ${messageOf(error)}`);
  }
  return { client, subscriber };
}

/** How long `close()` lets work in flight and the connections' own goodbye take before it drops them. */
const CLOSE_GRACE_MS = 2_000;

/** What {@link closePair} needs of a client. */
export interface Closable {
  readonly isOpen: boolean;
  readonly isReady: boolean;
  close(): Promise<unknown>;
  destroy(): void;
}

/** What the task store uses of a node-redis connection. */
export interface RedisClient extends Closable {
  sendCommand(args: readonly string[]): Promise<unknown>;
  subscribe(channel: string, listener: (message: string) => void): Promise<void>;
  unsubscribe(channel: string, listener?: (message: string) => void): Promise<void>;
  on(event: 'ready', listener: () => void): unknown;
}

/**
 * Closes a store's or a directory's two connections once `pending` work has settled: gracefully while
 * Redis answers; a connection that is away (reconnecting) is dropped at once, and past the grace
 * everything is, so `close()` returns when Redis is gone mid-command as well.
 */
export async function closePair(
  clients: readonly Closable[],
  pending: Iterable<Promise<unknown>>,
): Promise<void> {
  let closed = false;
  const graceful = Promise.allSettled([...pending])
    .then(() => Promise.allSettled(clients.map(closeOne)))
    .then(() => {
      closed = true;
    });
  await settleWithin(graceful, CLOSE_GRACE_MS, systemClock);
  if (closed) return;
  for (const client of clients) {
    try {
      if (client.isOpen) client.destroy();
    } catch {
      // closed meanwhile
    }
  }
}

async function closeOne(client: Closable): Promise<void> {
  if (!client.isOpen) return;
  if (client.isReady) await client.close();
  else client.destroy();
}

/** The URL's host and port, never its password. */
export function where(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || '6379'}`;
  } catch {
    return 'a URL that does not parse';
  }
}

/** One line for a connection error (a refused connect is an AggregateError of one error per address). */
export function messageOf(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return messageOf(error.errors[0]);
  const message = error instanceof Error ? error.message : String(error);
  return message || (error as { code?: string })?.code || 'unknown error';
}

/**
 * The `data.cause` of the -32603 a store call fails with while Redis cannot be reached.
 *
 * @example
 * ```ts
 * import { TASK_STORE_UNAVAILABLE } from '@mcp-inflight/redis';
 * declare const error: { code: number; data?: { cause?: string } };
 * if (error.data?.cause === TASK_STORE_UNAVAILABLE) console.log('Redis is away; retry later');
 * ```
 */
export const TASK_STORE_UNAVAILABLE = 'TASK_STORE_UNAVAILABLE';

/** Runs a store step; a Redis failure becomes -32603 with {@link TASK_STORE_UNAVAILABLE} (the directory's too). */
export async function guard<T>(step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (error instanceof JsonRpcError) throw error;
    throw new JsonRpcError(-32603, `the task store is unavailable: ${messageOf(error)}`, {
      cause: TASK_STORE_UNAVAILABLE,
    });
  }
}

export function noop(): void {}
