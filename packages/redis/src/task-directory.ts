import { randomUUID } from 'node:crypto';
import { JsonRpcError, systemClock } from '@mcp-inflight/core';
import { nap } from '@mcp-inflight/core/adapter';
import { type Closable, closePair, connectPair, guard, noop } from './connection.js';
import { TASK_OWNER_LOST } from './task-store.js';

/**
 * Options for {@link RedisTaskDirectory}.
 *
 * @example
 * ```ts
 * import type { RedisTaskDirectoryOptions } from '@mcp-inflight/redis';
 * const options: RedisTaskDirectoryOptions = { url: 'redis://127.0.0.1:6379', leaseMs: 5_000 };
 * ```
 */
export interface RedisTaskDirectoryOptions {
  /** The Redis URL (`redis://[user:password@]host:port[/db]`, `rediss://` for TLS). */
  url: string;
  /** Prefix of every key and channel; instances that share tasks share it. @default 'mcp-inflight:' */
  prefix?: string;
  /** How long this instance's lease lasts without renewal, in ms (renewed at a third). @default 10_000 */
  leaseMs?: number;
  /** How long a request forwarded to the holding instance may take to be answered, in ms. @default 30_000 */
  forwardTimeoutMs?: number;
  /** How long the first connection may take, in ms. @default 5_000 */
  connectTimeoutMs?: number;
  /** Told of each connection error. @default ignored: calls report it */
  onError?: (error: Error) => void;
}

/** A forwarded request's answer: the holder's result, or that no instance holds the task. */
export type Forwarded = { held: false } | { held: true; result: unknown };

interface Claim {
  instance: string;
  createdAt: string;
  ttlMs: number;
  /** The terminal `tasks/get` answer, once the holder saw one. */
  answer?: Record<string, unknown>;
}

interface Conn extends Closable {
  sendCommand(args: readonly string[]): Promise<unknown>;
  subscribe(channel: string, listener: (message: string) => void): Promise<void>;
  on(event: 'ready', listener: () => void): unknown;
}

/**
 * Which instance holds each relayed task, for proxies behind a load balancer (rule 15): the instance that
 * relays a task `claim`s its id; a `tasks/get`, `tasks/update` or `tasks/cancel` that lands on another
 * instance is `forward`ed to the holder over Redis pub/sub and answered there, or answered from Redis
 * once the task ended (`settle`); when the holder's lease passes, its tasks read `failed` with
 * {@link TASK_OWNER_LOST}. Claims expire with their task's TTL.
 *
 * @example
 * ```ts
 * import { RedisTaskDirectory } from '@mcp-inflight/redis';
 * const directory = await RedisTaskDirectory.connect({ url: 'redis://127.0.0.1:6379' });
 * directory.serve(async (method, params) => ({ method, params })); // answer for the tasks held here
 * await directory.close();
 * ```
 */
export class RedisTaskDirectory {
  /** This instance's id: its claims and its lease name it. */
  readonly instance = randomUUID();
  /** How long this instance's lease lasts without renewal, in ms. */
  readonly leaseMs: number;
  readonly #client: Conn;
  readonly #subscriber: Conn;
  readonly #prefix: string;
  readonly #forwardTimeoutMs: number;
  readonly #waiting = new Map<string, (reply: { result?: unknown; error?: JsonRpcErrorShape }) => void>();
  #answer: ((method: string, params: Record<string, unknown>) => Promise<unknown>) | undefined;
  #lease: ReturnType<typeof setTimeout> | undefined;
  #closed = false;

  private constructor(options: RedisTaskDirectoryOptions, client: Conn, subscriber: Conn) {
    this.#client = client;
    this.#subscriber = subscriber;
    this.#prefix = options.prefix ?? 'mcp-inflight:';
    this.leaseMs = options.leaseMs ?? 10_000;
    this.#forwardTimeoutMs = options.forwardTimeoutMs ?? 30_000;
  }

  /** Connects (commands and a subscriber), takes the lease; rejects naming the host when Redis cannot be reached. */
  static async connect(options: RedisTaskDirectoryOptions): Promise<RedisTaskDirectory> {
    const { client, subscriber } = await connectPair(options);
    const directory = new RedisTaskDirectory(
      options,
      client as unknown as Conn,
      subscriber as unknown as Conn,
    );
    await subscriber.subscribe(directory.#channel(directory.instance), (message) =>
      directory.#heard(message),
    );
    await directory.#renew();
    directory.#armLease();
    client.on('ready', () => void directory.#renew().catch(noop));
    return directory;
  }

  /** Records that this instance holds `taskId` for `ttlMs` (before its `CreateTaskResult` goes out). */
  async claim(taskId: string, ttlMs: number): Promise<void> {
    const claim: Claim = { instance: this.instance, createdAt: new Date().toISOString(), ttlMs };
    await guard(() =>
      this.#client.sendCommand([
        'SET',
        this.#key(taskId),
        JSON.stringify(claim),
        'PX',
        String(Math.max(1, ttlMs)),
      ]),
    );
  }

  /** Keeps the task's terminal `tasks/get` answer, so any instance gives it even after this one is gone. */
  async settle(taskId: string, answer: Record<string, unknown>): Promise<void> {
    await guard(async () => {
      const raw = (await this.#client.sendCommand(['GET', this.#key(taskId)])) as string | null;
      if (!raw) return;
      const claim = JSON.parse(raw) as Claim;
      await this.#client.sendCommand([
        'SET',
        this.#key(taskId),
        JSON.stringify({ ...claim, answer }),
        'KEEPTTL',
      ]);
    });
  }

  /**
   * Answers `method` for `taskId` held by another instance: from Redis once it ended, `failed`
   * ({@link TASK_OWNER_LOST}) once its holder's lease has passed, else by the holder itself (its error,
   * if it answers one). `{ held: false }` when no instance holds it (never was, or its TTL passed).
   */
  async forward(taskId: string, method: string, params: Record<string, unknown>): Promise<Forwarded> {
    const raw = (await guard(() => this.#client.sendCommand(['GET', this.#key(taskId)]))) as string | null;
    if (!raw) return { held: false };
    const claim = JSON.parse(raw) as Claim;
    const ended = method === 'tasks/get' ? claim.answer : claim.answer && {};
    if (ended) return { held: true, result: ended };
    if (!(await this.#alive(claim.instance))) return this.#lost(taskId, method, claim);
    const rpc = randomUUID();
    const reply = new Promise<{ result?: unknown; error?: JsonRpcErrorShape }>((resolve) => {
      const timer = setTimeout(
        () =>
          resolve({
            error: {
              code: -32603,
              message: `the proxy instance holding the task did not answer within ${this.#forwardTimeoutMs} ms`,
              data: { cause: TASK_OWNER_LOST },
            },
          }),
        this.#forwardTimeoutMs,
      );
      this.#waiting.set(rpc, (answer) => {
        clearTimeout(timer);
        resolve(answer);
      });
    });
    // A holder that dies while asked never answers: its lease passing ends the wait.
    let watching = true;
    const leaseGone = (async (): Promise<Forwarded | undefined> => {
      while (watching) {
        await nap(Math.min(1_000, Math.max(50, Math.floor(this.leaseMs / 3))), systemClock).slept;
        if (watching && !(await this.#alive(claim.instance).catch(() => true)))
          return this.#lost(taskId, method, claim);
      }
      return undefined;
    })();
    try {
      const request = { rpc, from: this.instance, method, params };
      await guard(() =>
        this.#client.sendCommand(['PUBLISH', this.#channel(claim.instance), JSON.stringify(request)]),
      );
      type Reply = Forwarded | { result?: unknown; error?: JsonRpcErrorShape };
      const first: Reply = await Promise.race<Reply>([
        reply,
        leaseGone.then((lost): Promise<Reply> | Reply => lost ?? reply),
      ]);
      if ('held' in first) return first;
      if (first.error) throw new JsonRpcError(first.error.code, first.error.message, first.error.data);
      return { held: true, result: first.result };
    } finally {
      watching = false;
      this.#waiting.delete(rpc);
    }
  }

  async #alive(instance: string): Promise<boolean> {
    return Number(await guard(() => this.#client.sendCommand(['EXISTS', this.#leaseKey(instance)]))) === 1;
  }

  /** The answer for a task whose holder's lease passed: `failed`, kept for every instance. */
  async #lost(taskId: string, method: string, claim: Claim): Promise<Forwarded> {
    const message = 'the proxy instance relaying the task stopped renewing its lease';
    const answer = {
      taskId,
      status: 'failed',
      statusMessage: message,
      createdAt: claim.createdAt,
      lastUpdatedAt: new Date().toISOString(),
      ttlMs: claim.ttlMs,
      error: { code: -32603, message, data: { cause: TASK_OWNER_LOST, instance: claim.instance } },
    };
    await this.settle(taskId, answer).catch(noop);
    return { held: true, result: method === 'tasks/get' ? answer : {} };
  }

  /** Answers the requests other instances forward for the tasks this one holds. */
  serve(answer: (method: string, params: Record<string, unknown>) => Promise<unknown>): void {
    this.#answer = answer;
  }

  /** Stops renewing the lease and closes both connections. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#lease);
    await closePair([this.#subscriber, this.#client], []);
  }

  #heard(message: string): void {
    let parsed: {
      rpc?: string;
      from?: string;
      method?: string;
      params?: Record<string, unknown>;
      reply?: boolean;
      result?: unknown;
      error?: JsonRpcErrorShape;
    };
    try {
      parsed = JSON.parse(message);
    } catch {
      return;
    }
    const rpc = parsed.rpc;
    if (typeof rpc !== 'string') return;
    if (parsed.reply) {
      this.#waiting.get(rpc)?.({ result: parsed.result, ...(parsed.error ? { error: parsed.error } : {}) });
      return;
    }
    const { from, method, params } = parsed;
    if (typeof from !== 'string' || typeof method !== 'string') return;
    const answer = this.#answer;
    const answered = answer
      ? answer(method, params ?? {}).then(
          (result) => ({ rpc, reply: true, result }),
          (error: unknown) => ({ rpc, reply: true, error: errorShape(error) }),
        )
      : Promise.resolve({
          rpc,
          reply: true,
          error: { code: -32602, message: 'Failed to retrieve task: Task not found' },
        });
    void answered
      .then((reply) => this.#client.sendCommand(['PUBLISH', this.#channel(from), JSON.stringify(reply)]))
      .catch(noop); // Redis away: the asker's own timeout answers it
  }

  async #renew(): Promise<void> {
    await this.#client.sendCommand(['SET', this.#leaseKey(this.instance), '1', 'PX', String(this.leaseMs)]);
  }

  #armLease(): void {
    if (this.#closed) return;
    this.#lease = setTimeout(
      () => {
        void this.#renew()
          .catch(noop)
          .finally(() => this.#armLease());
      },
      Math.max(1, Math.floor(this.leaseMs / 3)),
    );
    this.#lease.unref?.();
  }

  #key(taskId: string): string {
    return `${this.#prefix}relay:${taskId}`;
  }

  #leaseKey(instance: string): string {
    return `${this.#prefix}relay-lease:${instance}`;
  }

  #channel(instance: string): string {
    return `${this.#prefix}relay-instance:${instance}`;
  }
}

interface JsonRpcErrorShape {
  code: number;
  message: string;
  data?: unknown;
}

function errorShape(error: unknown): JsonRpcErrorShape {
  if (error instanceof JsonRpcError) return { code: error.code, message: error.message, data: error.data };
  return { code: -32603, message: error instanceof Error ? error.message : String(error) };
}
