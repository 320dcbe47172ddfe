// The tasks as Redis holds them: the keys under the store's prefix, and the Lua steps on them.
import { createHash } from 'node:crypto';
import type { TaskRecord } from '@mcp-inflight/server/tasks';
import { messageOf, type RedisClient } from './connection.js';

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

/** One task as read from Redis: its record, and what the store keeps beside it. */
export interface Stored {
  record: TaskRecord;
  /** Bumped by every write; a write applies only to the version it read. */
  version: number;
  /** When its TTL passes, in ms since the epoch. */
  expiresAt: number;
  /** The instance running it. */
  instance: string;
  /** Its place in creation order, across instances. */
  seq: number;
  /** Whether that instance's lease is still held. */
  leaseAlive: boolean;
}

/** What a new task is created with, besides its record. */
export interface CreateLimits {
  /** Now, in ms since the epoch: tasks whose TTL passed before it leave the cap's count. */
  now: number;
  /** The most tasks kept at once by all instances. */
  maxTasks: number;
  /** When the task's TTL passes, in ms since the epoch. */
  expiresAt: number;
  /** The instance that runs it (its lease is taken with the task). */
  instance: string;
  /** When Redis forgets the task, in ms since the epoch (later than `expiresAt`, for "Task has expired"). */
  forgetAt: number;
  /** How long the index and the sequence live without a new task, in ms. */
  indexTtlMs: number;
  /** The instance's lease, in ms. */
  leaseMs: number;
}

/**
 * A store's tasks in Redis: every key under the prefix (a hash per task, the index of live tasks by
 * expiry, the creation sequence, one lease per instance), and the steps on them, each one round trip.
 */
export class StoredTasks {
  readonly #client: RedisClient;
  readonly #prefix: string;

  constructor(client: RedisClient, prefix: string) {
    this.#client = client;
    this.#prefix = prefix;
  }

  key(name: string): string {
    return `${this.#prefix}${name}`;
  }

  /** The task's hash, and the channel its changes are published on. */
  taskKey(taskId: string): string {
    return `${this.#prefix}task:${taskId}`;
  }

  leaseKey(instance: string): string {
    return `${this.#prefix}lease:${instance}`;
  }

  /** Makes the task unless the cap is reached (then `false`), taking the instance's lease with it. */
  async create(record: TaskRecord, limits: CreateLimits): Promise<boolean> {
    const seq = await this.#eval(
      'CREATE',
      [this.key('tasks'), this.taskKey(record.taskId), this.key('seq'), this.leaseKey(limits.instance)],
      [
        limits.now,
        limits.maxTasks,
        limits.expiresAt,
        JSON.stringify(record),
        limits.instance,
        limits.forgetAt,
        limits.indexTtlMs,
        limits.leaseMs,
        record.taskId,
      ],
    );
    return Number(seq) !== 0;
  }

  /** The ids of the tasks whose TTL has not passed at `now`, oldest expiry first. */
  async liveIds(now: number): Promise<string[]> {
    return (await this.#client.sendCommand([
      'ZRANGEBYSCORE',
      this.key('tasks'),
      `(${now}`,
      '+inf',
    ])) as string[];
  }

  /** The tasks, each with its instance's lease, in one round trip; `undefined` for one Redis no longer has. */
  async read(taskIds: readonly string[]): Promise<Array<Stored | undefined>> {
    if (taskIds.length === 0) return [];
    const rows = (await this.#eval(
      'READ',
      taskIds.map((id) => this.taskKey(id)),
      [this.leaseKey('')],
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

  /**
   * Compare-and-set: writes `record` if the task is still at `version`, and publishes it to the watchers
   * on every instance in the same step. Resolves with the new version, or 0 if another write came first.
   */
  async write(taskId: string, version: number, record: TaskRecord | undefined): Promise<number> {
    const key = this.taskKey(taskId);
    return Number(await this.#eval('WRITE', [key], [version, JSON.stringify(record), key]));
  }

  /** Takes or renews `instance`'s lease for `leaseMs`. */
  async renewLease(instance: string, leaseMs: number): Promise<void> {
    await this.#client.sendCommand(['SET', this.leaseKey(instance), '1', 'PX', String(leaseMs)]);
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
}
