import { randomUUID } from 'node:crypto';
import { JsonRpcError, systemClock } from '@mcp-inflight/core';
import { nap } from '@mcp-inflight/core/adapter';
import { type Closable, closePair, connectPair, noop } from './connection.js';
import {
  type Answerer,
  type Claim,
  errorShape,
  expiryOf,
  type Forwarded,
  type JsonRpcErrorShape,
  type KeptClaim,
  stringsOf,
} from './directory-wire.js';
import { type StoreEvent, type StoreHealth, StoreLink } from './store-link.js';
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
  /**
   * How long a command may go unanswered before Redis is taken as away, in ms (a stopped Redis keeps its
   * socket open). @default 2_000
   */
  commandTimeoutMs?: number;
  /** While Redis is away, how often the writes kept for it are tried again, in ms. @default 500 */
  retryMs?: number;
  /**
   * The most writes kept while Redis is away; a task claimed beyond it is refused at creation (-32603,
   * `TASK_STORE_UNAVAILABLE`). @default 10_000
   */
  maxPendingWrites?: number;
  /** Told when Redis goes away, when it is back with every kept write in it, and of a write given up. */
  onStore?: (event: StoreEvent) => void;
}

/** How long a terminal answer that names no TTL is written again while Redis is away, in ms. */
const ANSWER_KEEP_MS = 3_600_000;
/** How often a request for a task not (yet) in Redis looks again just after an outage, in ms. */
const CATCH_UP_POLL_MS = 250;

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
 * A Redis outage loses nothing: a claim or an answer that cannot be written is kept and written again
 * once Redis is back (within its task's TTL); `health` and `onStore` tell the outage and its end. For one
 * lease after an outage, a task not yet in Redis, or whose holder's lease is not yet renewed, is looked
 * for again rather than read as unknown or lost: each live holder writes what it kept by then.
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
  readonly #link: StoreLink;
  readonly #prefix: string;
  readonly #forwardTimeoutMs: number;
  readonly #waiting = new Map<string, (reply: { result?: unknown; error?: JsonRpcErrorShape }) => void>();
  #answer: Answerer | undefined;
  #lease: ReturnType<typeof setTimeout> | undefined;
  #closed = false;

  private constructor(options: RedisTaskDirectoryOptions, client: Conn, subscriber: Conn) {
    this.#client = client;
    this.#subscriber = subscriber;
    this.#prefix = options.prefix ?? 'mcp-inflight:';
    this.leaseMs = options.leaseMs ?? 10_000;
    this.#forwardTimeoutMs = options.forwardTimeoutMs ?? 30_000;
    this.#link = new StoreLink((args) => client.sendCommand(args), {
      commandTimeoutMs: options.commandTimeoutMs ?? 2_000,
      retryMs: options.retryMs ?? 500,
      maxPendingWrites: options.maxPendingWrites ?? 10_000,
      onStore: options.onStore ?? noop,
    });
  }

  /** Connects (commands and a subscriber), takes the lease; rejects naming the host when Redis cannot be reached. */
  static async connect(options: RedisTaskDirectoryOptions): Promise<RedisTaskDirectory> {
    let made: RedisTaskDirectory | undefined;
    const { client, subscriber } = await connectPair({
      ...options,
      // Either connection failing is Redis away: counted, and the outage told once.
      onError: (error) => {
        options.onError?.(error);
        if (made) made.#link.failed(error);
      },
    });
    const directory = new RedisTaskDirectory(
      options,
      client as unknown as Conn,
      subscriber as unknown as Conn,
    );
    made = directory;
    await subscriber.subscribe(directory.#channel(directory.instance), (message) =>
      directory.#heard(message),
    );
    await directory.#renew();
    directory.#armLease();
    // Back after an outage: the lease first, then what was kept meanwhile.
    client.on('ready', () => void directory.#renew().catch(noop));
    return directory;
  }

  /** The link to Redis now: up, errors counted, writes kept for when Redis is back. */
  get health(): StoreHealth {
    return this.#link.health;
  }

  /**
   * Records that this instance holds `taskId` for `ttlMs` (before its `CreateTaskResult` goes out). While
   * Redis is away the claim is kept and written once it is back; rejects (-32603,
   * `TASK_STORE_UNAVAILABLE`) only when `maxPendingWrites` are kept already.
   */
  async claim(taskId: string, ttlMs: number): Promise<void> {
    const claim: Claim = { instance: this.instance, createdAt: new Date().toISOString(), ttlMs };
    const key = this.#key(taskId);
    await this.#link.write(key, this.#claimWrite(taskId, claim));
  }

  /**
   * Keeps the task's terminal `tasks/get` answer, so any instance gives it even after this one is gone;
   * while Redis is away, kept and written once it is back (within the task's TTL).
   */
  async settle(taskId: string, answer: Record<string, unknown>): Promise<void> {
    const key = this.#key(taskId);
    const kept = this.#link.kept(key) as KeptClaim | undefined;
    // The claim itself is still waiting for Redis: it goes with its answer.
    if (kept?.claim) return this.#link.keep(key, this.#claimWrite(taskId, { ...kept.claim, answer }));
    const expiresAt = expiryOf(answer) ?? Date.now() + ANSWER_KEEP_MS;
    await this.#link.write(key, { taskId, expiresAt, write: () => this.#addAnswer(key, answer) });
  }

  /**
   * Answers `method` for `taskId` held by another instance: from Redis once it ended, `failed`
   * ({@link TASK_OWNER_LOST}) once its holder's lease has passed, else by the holder itself (its error,
   * if it answers one), which sends it with `headers` (the asking host's `--pass-header` values).
   * `{ held: false }` when no instance holds it (never was, or its TTL passed).
   */
  async forward(
    taskId: string,
    method: string,
    params: Record<string, unknown>,
    headers?: Record<string, string>,
  ): Promise<Forwarded> {
    const claim = await this.#claimOf(taskId);
    if (!claim) return { held: false };
    const ended = method === 'tasks/get' ? claim.answer : claim.answer && {};
    if (ended) return { held: true, result: ended };
    if (!(await this.#mayLive(claim.instance))) return this.#lost(taskId, method, claim);
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
        if (watching && !(await this.#mayLive(claim.instance).catch(() => true)))
          return this.#lost(taskId, method, claim);
      }
      return undefined;
    })();
    try {
      const request = { rpc, from: this.instance, method, params, ...(headers ? { headers } : {}) };
      await this.#publish(claim.instance, JSON.stringify(request));
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

  /**
   * Publishes to the holder; while nobody hears it (the holder's subscriber is reconnecting after an
   * outage), again every {@link CATCH_UP_POLL_MS} for as long as the holder may be alive.
   */
  async #publish(instance: string, message: string): Promise<void> {
    for (let tries = 0; ; tries++) {
      const heard = Number(await this.#link.run(['PUBLISH', this.#channel(instance), message]));
      const waitedMs = tries * CATCH_UP_POLL_MS;
      if (heard > 0 || waitedMs >= this.#forwardTimeoutMs || !(await this.#mayLive(instance))) return;
      await nap(CATCH_UP_POLL_MS, systemClock).slept;
    }
  }

  /** The claim of `taskId`; just after an outage, looked for again until its holder had a lease to write it. */
  async #claimOf(taskId: string): Promise<Claim | undefined> {
    for (;;) {
      const raw = (await this.#link.run(['GET', this.#key(taskId)])) as string | null;
      if (raw) return JSON.parse(raw) as Claim;
      if (!this.#catchingUp()) return undefined;
      await nap(CATCH_UP_POLL_MS, systemClock).slept;
    }
  }

  /**
   * Within one lease of Redis coming back, a missing claim or lease proves nothing: a live holder renews
   * its lease and writes what it kept within that time (rule 15: an outage loses nothing acknowledged).
   */
  #catchingUp(): boolean {
    return Date.now() - this.#link.upSince < this.leaseMs;
  }

  async #mayLive(instance: string): Promise<boolean> {
    return this.#catchingUp() || (await this.#alive(instance));
  }

  async #alive(instance: string): Promise<boolean> {
    return Number(await this.#link.run(['EXISTS', this.#leaseKey(instance)])) === 1;
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
    // Not kept for later: any reader works it out again.
    await this.#addAnswer(this.#key(taskId), answer).catch(noop);
    return { held: true, result: method === 'tasks/get' ? answer : {} };
  }

  /** Answers the requests other instances forward for the tasks this one holds. */
  serve(answer: Answerer): void {
    this.#answer = answer;
  }

  /** Stops renewing the lease and closes both connections (what is still kept for Redis is dropped). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#lease);
    this.#link.close();
    await closePair([this.#subscriber, this.#client], []);
  }

  /** The claim as a kept write: the whole key, with what is left of the task's TTL. */
  #claimWrite(taskId: string, claim: Claim): KeptClaim {
    const key = this.#key(taskId);
    return {
      taskId,
      claim,
      expiresAt: Date.parse(claim.createdAt) + claim.ttlMs,
      write: async (leftMs) => {
        await this.#link.bounded(['SET', key, JSON.stringify(claim), 'PX', String(leftMs)]);
      },
    };
  }

  /** Adds the terminal answer to a claim in Redis (none there: its TTL passed, nothing to add to). */
  async #addAnswer(key: string, answer: Record<string, unknown>): Promise<void> {
    const raw = (await this.#link.bounded(['GET', key])) as string | null;
    if (!raw) return;
    const claim = JSON.parse(raw) as Claim;
    await this.#link.bounded(['SET', key, JSON.stringify({ ...claim, answer }), 'KEEPTTL']);
  }

  #heard(message: string): void {
    let parsed: {
      rpc?: string;
      from?: string;
      method?: string;
      params?: Record<string, unknown>;
      headers?: unknown;
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
      ? answer(method, params ?? {}, stringsOf(parsed.headers)).then(
          (result) => ({ rpc, reply: true, result }),
          (error: unknown) => ({ rpc, reply: true, error: errorShape(error) }),
        )
      : Promise.resolve({
          rpc,
          reply: true,
          error: { code: -32602, message: 'Failed to retrieve task: Task not found' },
        });
    void answered
      .then((reply) => this.#link.run(['PUBLISH', this.#channel(from), JSON.stringify(reply)]))
      .catch(noop); // Redis away: the asker's own timeout answers it
  }

  async #renew(): Promise<void> {
    await this.#link.run(['SET', this.#leaseKey(this.instance), '1', 'PX', String(this.leaseMs)]);
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
