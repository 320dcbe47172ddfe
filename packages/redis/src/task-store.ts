import { createHash, randomUUID } from 'node:crypto';
import { type Clock, JsonRpcError, systemClock, type TimerHandle } from '@mcp-inflight/core';
import { isTerminalStatus } from '@mcp-inflight/core/adapter';
import {
  type SharedTaskStore,
  type TaskChange,
  type TaskOutcome,
  type TaskRecord,
  taskSteps,
} from '@mcp-inflight/server/tasks';
import { type Closable, closePair, connectPair, messageOf, noop, pause } from './connection.js';

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

/** What the store uses of a node-redis connection. */
interface Client extends Closable {
  sendCommand(args: readonly string[]): Promise<unknown>;
  subscribe(channel: string, listener: (message: string) => void): Promise<void>;
  unsubscribe(channel: string, listener?: (message: string) => void): Promise<void>;
  on(event: 'ready', listener: () => void): unknown;
}

interface Stored {
  record: TaskRecord;
  version: number;
  expiresAt: number;
  instance: string;
  seq: number;
  leaseAlive: boolean;
}

interface Watch {
  listeners: Set<(task: TaskRecord) => void>;
  version: number;
  expiry: TimerHandle | undefined;
}

// A task's stored fields, and the lease of the instance running it, in one round trip.
const READ = `
local out = {}
for i, key in ipairs(KEYS) do
  local f = redis.call('HMGET', key, 'rec', 'v', 'exp', 'inst', 'seq')
  if f[1] then
    out[#out + 1] = {f[1], f[2], f[3], f[4], f[5], redis.call('EXISTS', ARGV[1] .. f[4])}
  else
    out[#out + 1] = false
  end
end
return out`;

// Compare-and-set on the version read, then tell the watchers on every instance, in the same step.
const WRITE = `
if redis.call('HGET', KEYS[1], 'v') ~= ARGV[1] then return 0 end
local v = tonumber(ARGV[1]) + 1
redis.call('HSET', KEYS[1], 'rec', ARGV[2], 'v', v)
redis.call('PUBLISH', ARGV[3], v .. '|' .. ARGV[2])
return v`;

// The cap counts every task whose TTL has not passed, on all instances together.
const CREATE = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
local seq = redis.call('INCR', KEYS[3])
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[9])
redis.call('HSET', KEYS[2], 'rec', ARGV[4], 'v', 1, 'exp', ARGV[3], 'inst', ARGV[5], 'seq', seq)
redis.call('PEXPIREAT', KEYS[2], ARGV[6])
redis.call('PEXPIRE', KEYS[1], ARGV[7])
redis.call('PEXPIRE', KEYS[3], ARGV[7])
redis.call('SET', KEYS[4], '1', 'PX', ARGV[8])
return seq`;

const SCRIPTS = { READ, WRITE, CREATE } as const;
const SHA = Object.fromEntries(
  Object.entries(SCRIPTS).map(([name, text]) => [name, createHash('sha1').update(text).digest('hex')]),
) as Record<keyof typeof SCRIPTS, string>;

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
  readonly #client: Client;
  readonly #subscriber: Client;
  readonly #prefix: string;
  readonly #clock: Clock;
  readonly #now: () => number;
  readonly #expiredMemoryMs: number;
  readonly #watches = new Map<string, Watch>();
  /** Steps started by timers (an expiry), which {@link sync} waits for. */
  readonly #pending = new Set<Promise<unknown>>();
  /** {@link sync}'s markers on their way round, by value. */
  readonly #markers = new Map<string, () => void>();
  #lease: TimerHandle | undefined;
  #closed = false;

  private constructor(options: RedisTaskStoreOptions, client: Client, subscriber: Client) {
    this.#client = client;
    this.#subscriber = subscriber;
    this.#prefix = options.prefix ?? 'mcp-inflight:';
    this.#clock = options.clock ?? systemClock;
    this.#now = options.now ?? Date.now;
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
    const store = new RedisTaskStore(options, client as unknown as Client, subscriber as unknown as Client);
    await subscriber.subscribe(store.#key(`sync:${store.instance}`), (marker) =>
      store.#markers.get(marker)?.(),
    );
    await store.#renew();
    store.#armLease();
    client.on('ready', () => void store.#renew().catch(noop));
    // Messages sent while the subscriber was away are lost: read each watched task again.
    subscriber.on('ready', () => void store.#catchUp());
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
      const seq = await this.#eval(
        'CREATE',
        [this.#key('tasks'), this.#taskKey(record.taskId), this.#key('seq'), this.#leaseKey(this.instance)],
        [
          now,
          this.maxTasks,
          expiresAt,
          JSON.stringify(record),
          this.instance,
          expiresAt + this.#expiredMemoryMs,
          this.maxTtlMs + this.#expiredMemoryMs,
          this.leaseMs,
          record.taskId,
        ],
      );
      return Number(seq) === 0 ? undefined : record;
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
      const [stored] = await this.#read([taskId]);
      return stored !== undefined && visible(stored.record, owner) && stored.expiresAt <= this.#now();
    });
  }

  async listTasks(owner: string | undefined): Promise<TaskRecord[]> {
    return guard(async () => {
      const ids = (await this.#client.sendCommand([
        'ZRANGEBYSCORE',
        this.#key('tasks'),
        `(${this.#now()}`,
        '+inf',
      ])) as string[];
      const found: Stored[] = [];
      for (const stored of await this.#read(ids)) {
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
    return guard(async () => {
      const own = (task: TaskRecord): void => listener(task);
      let watch = this.#watches.get(taskId);
      if (!watch) {
        const fresh: Watch = { listeners: new Set(), version: 0, expiry: undefined };
        this.#watches.set(taskId, fresh);
        watch = fresh;
        try {
          await this.#subscriber.subscribe(this.#taskKey(taskId), (message) => this.#heard(taskId, message));
          const [stored] = await this.#read([taskId]);
          if (!stored || isTerminalStatus(stored.record.status) || stored.expiresAt <= this.#now()) {
            this.#drop(taskId, fresh);
            return noop;
          }
          fresh.version = Math.max(fresh.version, stored.version);
          // The TTL is kept on this instance's clock; whichever watcher's timer fires first ends the task.
          fresh.expiry = this.#clock.setTimer(() => this.#expire(taskId), stored.expiresAt - this.#now());
        } catch (error) {
          this.#drop(taskId, fresh);
          throw error;
        }
      }
      const listeners = watch.listeners;
      listeners.add(own);
      return () => {
        listeners.delete(own);
        const current = this.#watches.get(taskId);
        if (current && current.listeners.size === 0) this.#drop(taskId, current);
      };
    });
  }

  /**
   * Resolves once every change published before it (by any instance) has reached this instance's
   * watchers: a marker goes round through Redis on the subscriber's own connection, which delivers in
   * order. Tests and graceful drains wait on it.
   */
  async sync(): Promise<void> {
    await Promise.allSettled([...this.#pending]);
    const marker = randomUUID();
    const back = new Promise<void>((resolve) => this.#markers.set(marker, resolve));
    try {
      await guard(async () => {
        // A marker lost to a reconnect of the subscriber is sent again.
        for (let heard = false; !heard; ) {
          await this.#client.sendCommand(['PUBLISH', this.#key(`sync:${this.instance}`), marker]);
          heard = await Promise.race([back.then(() => true), pause(250).then(() => false)]);
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
    for (const [taskId, watch] of [...this.#watches]) this.#drop(taskId, watch);
    await closePair([this.#subscriber, this.#client], this.#pending);
  }

  /** Drops both connections at once, as a crash would (the lease is left to pass): for tests of failover. */
  destroy(): void {
    this.#closed = true;
    this.#lease?.clear();
    for (const watch of this.#watches.values()) watch.expiry?.clear();
    this.#watches.clear();
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
      const wrote = await this.#eval(
        'WRITE',
        [this.#taskKey(taskId)],
        [stored.version, JSON.stringify(changed), this.#taskKey(taskId)],
      );
      if (Number(wrote) !== 0) return changed;
    }
  }

  /** The task if its TTL has not passed, failed first if its instance's lease has. */
  async #live(taskId: string): Promise<Stored | undefined> {
    const [stored] = await this.#read([taskId]);
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
    const key = this.#taskKey(stored.record.taskId);
    const wrote = await this.#eval('WRITE', [key], [stored.version, JSON.stringify(ended), key]);
    if (Number(wrote) !== 0 && ended) return { ...stored, record: ended, version: Number(wrote) };
    return this.#live(stored.record.taskId); // changed meanwhile: read what stands
  }

  async #read(taskIds: readonly string[]): Promise<Array<Stored | undefined>> {
    if (taskIds.length === 0) return [];
    const rows = (await this.#eval(
      'READ',
      taskIds.map((id) => this.#taskKey(id)),
      [this.#leaseKey('')],
    )) as Array<[string, string, string, string, string, number] | null>;
    return rows.map((row) =>
      row
        ? {
            record: JSON.parse(row[0]) as TaskRecord,
            version: Number(row[1]),
            expiresAt: Number(row[2]),
            instance: row[3],
            seq: Number(row[4]),
            leaseAlive: Number(row[5]) === 1,
          }
        : undefined,
    );
  }

  #heard(taskId: string, message: string): void {
    const watch = this.#watches.get(taskId);
    const bar = message.indexOf('|');
    const version = Number(message.slice(0, bar));
    if (!watch || !(version > watch.version)) return;
    this.#deliver(taskId, watch, version, JSON.parse(message.slice(bar + 1)) as TaskRecord);
  }

  #deliver(taskId: string, watch: Watch, version: number, record: TaskRecord): void {
    watch.version = version;
    for (const listener of [...watch.listeners]) listener(structuredClone(record));
    if (isTerminalStatus(record.status)) this.#drop(taskId, watch); // it never changes again [T4]
  }

  #expire(taskId: string): void {
    const done = guard(async () => {
      // Past its TTL no reader sees the task; this tells the watchers of one that had not ended.
      for (;;) {
        const [stored] = await this.#read([taskId]);
        const ended =
          stored && taskSteps.finish(stored.record, taskSteps.expired, new Date(this.#now()).toISOString());
        if (!stored || !ended) break;
        const key = this.#taskKey(taskId);
        if (Number(await this.#eval('WRITE', [key], [stored.version, JSON.stringify(ended), key])) !== 0)
          return;
      }
      const watch = this.#watches.get(taskId);
      if (watch) this.#drop(taskId, watch); // ended already: the store forgets its watchers
    })
      .catch(noop) // Redis away: a reader elsewhere sees the TTL passed all the same
      .finally(() => this.#pending.delete(done));
    this.#pending.add(done);
  }

  async #catchUp(): Promise<void> {
    const ids = [...this.#watches.keys()];
    const read = await this.#read(ids).catch(() => []);
    ids.forEach((taskId, i) => {
      const stored = read[i];
      const watch = this.#watches.get(taskId);
      if (stored && watch && stored.version > watch.version)
        this.#deliver(taskId, watch, stored.version, stored.record);
    });
  }

  #drop(taskId: string, watch: Watch): void {
    watch.expiry?.clear();
    watch.listeners.clear();
    if (this.#watches.get(taskId) !== watch) return;
    this.#watches.delete(taskId);
    if (!this.#closed) void this.#subscriber.unsubscribe(this.#taskKey(taskId)).catch(noop);
  }

  async #renew(): Promise<void> {
    await this.#client.sendCommand(['SET', this.#leaseKey(this.instance), '1', 'PX', String(this.leaseMs)]);
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

  async #eval(
    name: keyof typeof SCRIPTS,
    keys: readonly string[],
    args: ReadonlyArray<string | number>,
  ): Promise<unknown> {
    const tail = [String(keys.length), ...keys, ...args.map(String)];
    try {
      return await this.#client.sendCommand(['EVALSHA', SHA[name], ...tail]);
    } catch (error) {
      if (!messageOf(error).startsWith('NOSCRIPT')) throw error;
      return this.#client.sendCommand(['EVAL', SCRIPTS[name], ...tail]);
    }
  }

  #key(name: string): string {
    return `${this.#prefix}${name}`;
  }

  #taskKey(taskId: string): string {
    return `${this.#prefix}task:${taskId}`;
  }

  #leaseKey(instance: string): string {
    return `${this.#prefix}lease:${instance}`;
  }
}

function visible(record: TaskRecord, owner: string | undefined): boolean {
  return record.owner === undefined || record.owner === owner;
}

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
