import { randomUUID } from 'node:crypto';
import { type Clock, systemClock, type TimerHandle } from '@mcp-inflight/core';
import { isTerminalStatus, nap } from '@mcp-inflight/core/adapter';
import {
  type SharedTaskStore,
  type TaskChange,
  type TaskOutcome,
  type TaskRecord,
  taskSteps,
} from '@mcp-inflight/server/tasks';
import { closePair, connectPair, guard, noop, type RedisClient } from './connection.js';
import { type Stored, StoredTasks } from './stored-tasks.js';
import { TaskWatches } from './task-watches.js';

/**
 * The `data.cause` of the error a task ends `failed` with when the instance running it stopped renewing
 * its lease (it died, or lost Redis for longer than the lease).
 *
 * @example
 * ```ts
 * import { TASK_OWNER_LOST } from '@mcp-inflight/redis';
 * declare const task: { status: string; error?: { data?: { cause?: string } } };
 * if (task.error?.data?.cause === TASK_OWNER_LOST) console.log('its instance died; call again');
 * ```
 */
export const TASK_OWNER_LOST = 'TASK_OWNER_LOST';

/**
 * Options for {@link RedisTaskStore}: the limits of the in-memory store's options (they hold across every
 * instance sharing the prefix), and the instance's lease.
 *
 * @example
 * ```ts
 * import type { RedisTaskStoreOptions } from '@mcp-inflight/redis';
 * const options: RedisTaskStoreOptions = { url: 'redis://127.0.0.1:6379', leaseMs: 5_000, maxTasks: 10_000 };
 * ```
 */
export interface RedisTaskStoreOptions {
  /** The Redis URL (`redis://[user:password@]host:port[/db]`, `rediss://` for TLS). */
  url: string;
  /** Prefix of every key and channel; instances that share tasks share it. @default 'mcp-inflight:' */
  prefix?: string;
  /** The clock TTL and lease timers run on. @default systemClock */
  clock?: Clock;
  /**
   * Wall-clock time in ms since the epoch: expiries are compared across instances, so it must mean the
   * same on each. @default Date.now
   */
  now?: () => number;
  /** The lifetime of a task whose requestor named none, in ms. @default 60_000 */
  defaultTtlMs?: number;
  /** The longest lifetime granted, whatever was asked [T25]. @default 3_600_000 */
  maxTtlMs?: number;
  /** The polling interval suggested to requestors, in ms. @default 1_000 */
  pollIntervalMs?: number;
  /** The most tasks kept at once by all instances together; one more is refused. @default 1_000 */
  maxTasks?: number;
  /**
   * How long this instance's lease lasts without renewal, in ms (it renews at a third of it). Once it
   * passes, the tasks it ran end `failed` with {@link TASK_OWNER_LOST} when next read. @default 10_000
   */
  leaseMs?: number;
  /**
   * How long Redis keeps a task after its TTL, in ms, so a late `tasks/get` hears "Task has expired"
   * rather than "Task not found". @default 600_000
   */
  expiredMemoryMs?: number;
  /** How long the first connection may take before {@link RedisTaskStore.connect} rejects, in ms. @default 5_000 */
  connectTimeoutMs?: number;
  /** Told of each connection error (Redis away, reconnecting). @default ignored: store calls report it */
  onError?: (error: Error) => void;
}

/**
 * The {@link SharedTaskStore} on Redis, for instances behind a load balancer (rule 15): any instance
 * answers `tasks/get`, `tasks/update` and `tasks/cancel` for any task; a cancel, an answer or a TTL
 * expiry made on one reaches the work on the instance that runs it (pub/sub, one channel per watched
 * task); the TTL and the cap hold across instances, and every key expires in Redis. Each instance holds
 * a lease it renews while open; a task whose instance let its lease pass ends `failed` (cause
 * {@link TASK_OWNER_LOST}) when next read, never "not found". While Redis is away every call rejects at
 * once with -32603 (cause {@link TASK_STORE_UNAVAILABLE}); the client reconnects by itself, and watches
 * catch up on what they missed.
 *
 * @example
 * ```ts
 * import { serveTasks } from '@mcp-inflight/server/tasks';
 * import { RedisTaskStore } from '@mcp-inflight/redis';
 * const store = await RedisTaskStore.connect({ url: 'redis://127.0.0.1:6379', leaseMs: 5_000 });
 * // serveTasks(endpoint, store, call) on every instance, then at shutdown:
 * await store.close();
 * ```
 */
export class RedisTaskStore implements SharedTaskStore {
  /** This instance's id: its lease, and the tasks it runs, name it. */
  readonly instance = randomUUID();
  /** The polling interval suggested to requestors, in ms. */
  readonly pollIntervalMs: number;
  /** The lifetime of a task whose requestor named none, in ms. */
  readonly defaultTtlMs: number;
  /** The longest lifetime granted, in ms. */
  readonly maxTtlMs: number;
  /** The most tasks kept at once by all instances. */
  readonly maxTasks: number;
  /** How long this instance's lease lasts without renewal, in ms. */
  readonly leaseMs: number;
  readonly #client: RedisClient;
  readonly #subscriber: RedisClient;
  readonly #tasks: StoredTasks;
  readonly #watches: TaskWatches;
  readonly #clock: Clock;
  readonly #now: () => number;
  readonly #expiredMemoryMs: number;
  /** {@link sync}'s markers on their way round, by value. */
  readonly #markers = new Map<string, () => void>();
  #lease: TimerHandle | undefined;
  #closed = false;

  private constructor(options: RedisTaskStoreOptions, client: RedisClient, subscriber: RedisClient) {
    this.#client = client;
    this.#subscriber = subscriber;
    this.#tasks = new StoredTasks(client, options.prefix ?? 'mcp-inflight:');
    this.#clock = options.clock ?? systemClock;
    this.#now = options.now ?? Date.now;
    this.#watches = new TaskWatches({ tasks: this.#tasks, subscriber, clock: this.#clock, now: this.#now });
    this.defaultTtlMs = options.defaultTtlMs ?? 60_000;
    this.maxTtlMs = options.maxTtlMs ?? 3_600_000;
    this.pollIntervalMs = options.pollIntervalMs ?? 1_000;
    this.maxTasks = options.maxTasks ?? 1_000;
    this.leaseMs = options.leaseMs ?? 10_000;
    this.#expiredMemoryMs = options.expiredMemoryMs ?? 600_000;
  }

  /**
   * Connects to Redis (two connections: commands, and the subscriber for watches), takes the instance's
   * lease, and resolves with the store; rejects with an `Error` naming the URL's host if the first
   * connection fails or takes longer than `connectTimeoutMs`.
   */
  static async connect(options: RedisTaskStoreOptions): Promise<RedisTaskStore> {
    const { client, subscriber } = await connectPair(options);
    const store = new RedisTaskStore(
      options,
      client as unknown as RedisClient,
      subscriber as unknown as RedisClient,
    );
    await subscriber.subscribe(store.#tasks.key(`sync:${store.instance}`), (marker) =>
      store.#markers.get(marker)?.(),
    );
    await store.#renew();
    store.#armLease();
    client.on('ready', () => void store.#renew().catch(noop));
    // Messages sent while the subscriber was away are lost: read each watched task again.
    subscriber.on('ready', () => void store.#watches.catchUp());
    return store;
  }

  async createTask(
    owner: string | undefined,
    requestedTtlMs: number | undefined,
  ): Promise<TaskRecord | undefined> {
    return guard(async () => {
      const asked =
        typeof requestedTtlMs === 'number' && requestedTtlMs > 0 ? requestedTtlMs : this.defaultTtlMs;
      const ttlMs = Math.min(Math.floor(asked), this.maxTtlMs);
      const now = this.#now();
      const iso = new Date(now).toISOString();
      const record: TaskRecord = {
        taskId: randomUUID(),
        ...(owner === undefined ? {} : { owner }),
        createdAt: iso,
        ttlMs,
        status: 'working',
        lastUpdatedAt: iso,
      };
      const expiresAt = now + ttlMs;
      const made = await this.#tasks.create(record, {
        now,
        maxTasks: this.maxTasks,
        expiresAt,
        instance: this.instance,
        forgetAt: expiresAt + this.#expiredMemoryMs,
        indexTtlMs: this.maxTtlMs + this.#expiredMemoryMs,
        leaseMs: this.leaseMs,
      });
      return made ? record : undefined;
    });
  }

  async getTask(owner: string | undefined, taskId: string): Promise<TaskRecord | undefined> {
    return guard(async () => {
      const stored = await this.#live(taskId);
      return stored && visible(stored.record, owner) ? stored.record : undefined;
    });
  }

  /**
   * Whether `taskId` named a task `owner` could see whose TTL has passed (Redis keeps it
   * `expiredMemoryMs` longer), so `tasks/get` can say "Task has expired".
   */
  async hasExpired(owner: string | undefined, taskId: string): Promise<boolean> {
    return guard(async () => {
      const [stored] = await this.#tasks.read([taskId]);
      return stored !== undefined && visible(stored.record, owner) && stored.expiresAt <= this.#now();
    });
  }

  async listTasks(owner: string | undefined): Promise<TaskRecord[]> {
    return guard(async () => {
      const ids = await this.#tasks.liveIds(this.#now());
      const found: Stored[] = [];
      for (const stored of await this.#tasks.read(ids)) {
        const live = stored && (await this.#checked(stored));
        if (live && visible(live.record, owner)) found.push(live);
      }
      return found.sort((a, b) => a.seq - b.seq).map((s) => s.record);
    });
  }

  async updateTask(taskId: string, change: TaskChange): Promise<TaskRecord | undefined> {
    return guard(() =>
      this.#step(
        taskId,
        (was, iso) => taskSteps.change(was, change, iso),
        (was) => !isTerminalStatus(was.status),
      ),
    );
  }

  async answerTask(
    taskId: string,
    inputResponses: Parameters<typeof taskSteps.answer>[1],
  ): Promise<TaskRecord | undefined> {
    return guard(() =>
      this.#step(
        taskId,
        (was, iso) => taskSteps.answer(was, inputResponses, iso),
        () => true,
      ),
    );
  }

  async finishTask(taskId: string, outcome: TaskOutcome): Promise<TaskRecord | undefined> {
    return guard(async () => {
      let ended: TaskRecord | undefined;
      await this.#step(
        taskId,
        (was, iso) => (ended = taskSteps.finish(was, outcome, iso)),
        (was) => !isTerminalStatus(was.status),
      );
      return ended;
    });
  }

  async watchTask(taskId: string, listener: (task: TaskRecord) => void): Promise<() => void> {
    return guard(() => this.#watches.watch(taskId, listener));
  }

  /**
   * Resolves once every change published before it (by any instance) has reached this instance's
   * watchers: a marker goes round through Redis on the subscriber's own connection, which delivers in
   * order. Tests and graceful drains wait on it.
   */
  async sync(): Promise<void> {
    await Promise.allSettled([...this.#watches.pending]);
    const marker = randomUUID();
    const back = new Promise<void>((resolve) => this.#markers.set(marker, resolve));
    try {
      await guard(async () => {
        // A marker lost to a reconnect of the subscriber is sent again.
        for (let heard = false; !heard; ) {
          await this.#client.sendCommand(['PUBLISH', this.#tasks.key(`sync:${this.instance}`), marker]);
          const wait = nap(250, systemClock);
          heard = await Promise.race([back.then(() => true), wait.slept.then(() => false)]);
          wait.wake();
        }
      });
    } finally {
      this.#markers.delete(marker);
    }
  }

  /** Stops renewing the lease and closes both connections; tasks this instance still runs fail once it passes. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#lease?.clear();
    this.#watches.close();
    await closePair([this.#subscriber, this.#client], this.#watches.pending);
  }

  /** Drops both connections at once, as a crash would (the lease is left to pass): for tests of failover. */
  destroy(): void {
    this.#closed = true;
    this.#lease?.clear();
    this.#watches.destroy();
    this.#subscriber.destroy();
    this.#client.destroy();
  }

  /** A read, a step in JS, a compare-and-set on the version read; again if another instance wrote between. */
  async #step(
    taskId: string,
    next: (was: TaskRecord, iso: string) => TaskRecord | undefined,
    applies: (was: TaskRecord) => boolean,
  ): Promise<TaskRecord | undefined> {
    for (;;) {
      const stored = await this.#live(taskId);
      if (!stored || !applies(stored.record)) return undefined;
      const changed = next(stored.record, new Date(this.#now()).toISOString());
      if (!changed) return stored.record;
      if ((await this.#tasks.write(taskId, stored.version, changed)) !== 0) return changed;
    }
  }

  /** The task if its TTL has not passed, failed first if its instance's lease has. */
  async #live(taskId: string): Promise<Stored | undefined> {
    const [stored] = await this.#tasks.read([taskId]);
    return stored && this.#checked(stored);
  }

  async #checked(stored: Stored): Promise<Stored | undefined> {
    if (stored.expiresAt <= this.#now()) return undefined;
    if (stored.leaseAlive || isTerminalStatus(stored.record.status)) return stored;
    const lost: TaskOutcome = {
      status: 'failed',
      error: {
        code: -32603,
        message: 'the instance running the task stopped renewing its lease',
        data: { cause: TASK_OWNER_LOST, instance: stored.instance },
      },
      statusMessage: 'the instance running the task stopped renewing its lease',
    };
    const ended = taskSteps.finish(stored.record, lost, new Date(this.#now()).toISOString());
    const wrote = await this.#tasks.write(stored.record.taskId, stored.version, ended);
    if (wrote !== 0 && ended) return { ...stored, record: ended, version: wrote };
    return this.#live(stored.record.taskId); // changed meanwhile: read what stands
  }

  async #renew(): Promise<void> {
    await this.#tasks.renewLease(this.instance, this.leaseMs);
  }

  #armLease(): void {
    if (this.#closed) return;
    this.#lease = this.#clock.setTimer(
      () => {
        // A renewal that fails (Redis away) is tried again at the next beat; the lease has two more.
        void this.#renew()
          .catch(noop)
          .finally(() => this.#armLease());
      },
      Math.max(1, Math.floor(this.leaseMs / 3)),
    );
  }
}

function visible(record: TaskRecord, owner: string | undefined): boolean {
  return record.owner === undefined || record.owner === owner;
}
