import { JsonRpcError } from '@mcp-inflight/core';
import type { TaskRecord } from '@mcp-inflight/server/tasks';
import { taskStoreContract } from '@mcp-inflight/server/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  RedisTaskStore,
  type RedisTaskStoreOptions,
  TASK_OWNER_LOST,
  TASK_STORE_UNAVAILABLE,
} from '../../src/index.js';
import { freePort, startRedis } from './services.mjs';

// The Redis task store against a real redis-server (from PATH, on a free port, --appendonly yes), started
// and stopped here. `pnpm test:services` runs it; `pnpm test` does not.

let redis: Awaited<ReturnType<typeof startRedis>>;
const stores: RedisTaskStore[] = [];
let prefixes = 0;

beforeAll(async () => {
  // Never killed, so it needs no fsync per write; the 150 ms leases below must not wait on the disk.
  redis = await startRedis({ appendfsync: 'everysec' });
});
afterAll(async () => {
  await redis?.stop();
});
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
});

async function open(options: Partial<RedisTaskStoreOptions> = {}): Promise<RedisTaskStore> {
  const store = await RedisTaskStore.connect({ url: redis.url, ...options });
  stores.push(store);
  return store;
}

// Each case gets its own prefix (a fresh table), and a second connection as "another instance".
// The peer is made right after its store, with the same prefix and time base.
let lastMade: RedisTaskStoreOptions | undefined;
taskStoreContract(
  'RedisTaskStore',
  { describe, it },
  (settings) => {
    const t0 = Date.now();
    lastMade = {
      url: redis.url,
      ...settings,
      prefix: `contract-${++prefixes}:`,
      now: () => t0 + settings.clock.now(),
    };
    return open(lastMade);
  },
  {
    peer: () => open(lastMade as RedisTaskStoreOptions),
    settle: async () => {
      for (const store of stores) await store.sync();
    },
  },
);

/** Polls `read` until `done`; after `withinMs` it fails naming what it last read, not at vitest's timeout. */
const until = async (
  read: () => Promise<TaskRecord | undefined>,
  done: (t: TaskRecord) => boolean,
  withinMs = 20_000,
) => {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const task = await read();
    if (task && done(task)) return task;
    if (Date.now() > deadline)
      throw new Error(`not there after ${withinMs} ms; last read: ${task ? task.status : 'no task'}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

describe('RedisTaskStore across instances', () => {
  it('a cancel on one instance reaches the watcher on the instance running the task', async () => {
    const prefix = `cancel-${++prefixes}:`;
    const a = await open({ prefix });
    const b = await open({ prefix });
    const task = (await a.createTask(undefined, 30_000)) as TaskRecord;
    const seen: string[] = [];
    await a.watchTask(task.taskId, (t) => seen.push(t.status));
    await b.finishTask(task.taskId, { status: 'cancelled', statusMessage: 'cancelled' });
    await a.sync();
    expect(seen).toEqual(['cancelled']);
  });

  it('input answered on one instance reaches the work on the other', async () => {
    const prefix = `input-${++prefixes}:`;
    const a = await open({ prefix });
    const b = await open({ prefix });
    const task = (await a.createTask(undefined, 30_000)) as TaskRecord;
    const seen: TaskRecord[] = [];
    await a.watchTask(task.taskId, (t) => seen.push(t));
    const ask = { method: 'elicitation/create', params: { message: 'Sure?' } };
    await a.updateTask(task.taskId, { status: 'input_required', inputRequests: { q: ask } });
    expect((await b.getTask(undefined, task.taskId))?.inputRequests).toEqual({ q: ask });
    await b.answerTask(task.taskId, { q: { action: 'accept' } });
    await a.sync();
    expect(seen.at(-1)).toMatchObject({ status: 'working', inputResponses: { q: { action: 'accept' } } });
  });

  it('a dead instance: its running task ends failed, saying so, once its lease passes; its ended ones stay', async () => {
    const prefix = `lease-${++prefixes}:`;
    const dying = await open({ prefix, leaseMs: 300 });
    const other = await open({ prefix, leaseMs: 300 });
    const running = (await dying.createTask(undefined, 60_000)) as TaskRecord;
    const done = (await dying.createTask(undefined, 60_000)) as TaskRecord;
    await dying.finishTask(done.taskId, { status: 'completed', result: { content: [] } });
    expect((await other.getTask(undefined, running.taskId))?.status).toBe('working');
    dying.destroy(); // no goodbye: the lease is left to pass
    const failed = await until(
      () => other.getTask(undefined, running.taskId),
      (t) => t.status === 'failed',
    );
    expect(failed.error).toMatchObject({ code: -32603, data: { cause: TASK_OWNER_LOST } });
    expect(failed.statusMessage).toMatch(/instance running the task stopped renewing its lease/);
    expect(await other.getTask(undefined, done.taskId)).toMatchObject({
      status: 'completed',
      result: { content: [] },
    });
  });

  it('a live instance keeps its tasks past many lease periods', async () => {
    const prefix = `renew-${++prefixes}:`;
    const owner = await open({ prefix, leaseMs: 150 });
    const other = await open({ prefix, leaseMs: 150 });
    const task = (await owner.createTask(undefined, 60_000)) as TaskRecord;
    for (let i = 0; i < 10; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect((await other.getTask(undefined, task.taskId))?.status).toBe('working');
    }
  });

  it('an expired task is told apart from one that never was; its keys expire in Redis', async () => {
    const prefix = `expiry-${++prefixes}:`;
    const store = await open({ prefix, expiredMemoryMs: 400 });
    const task = (await store.createTask(undefined, 200)) as TaskRecord;
    await until(
      async () => ((await store.getTask(undefined, task.taskId)) ? undefined : task),
      () => true,
    );
    expect(await store.hasExpired(undefined, task.taskId)).toBe(true);
    expect(await store.hasExpired(undefined, 'never-was')).toBe(false);
    // Once the memory passes, nothing of the task is left in Redis.
    const { createClient } = await import('@redis/client');
    const client = createClient({ url: redis.url });
    await client.connect();
    try {
      for (;;) {
        const keys = await client.keys(`${prefix}task:*`);
        if (keys.length === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(await store.hasExpired(undefined, task.taskId)).toBe(false);
    } finally {
      await client.close();
    }
  });
});

describe('RedisTaskStore when Redis goes away', () => {
  it('an unreachable URL: connect rejects with a one-line message naming the host', async () => {
    const port = await freePort();
    await expect(
      RedisTaskStore.connect({ url: `redis://127.0.0.1:${port}`, connectTimeoutMs: 2_000 }),
    ).rejects.toThrow(new RegExp(`^cannot reach Redis at 127\\.0\\.0\\.1:${port}: `));
  });

  it('calls fail with -32603 and a cause while it is down; the store reconnects and nothing completed is lost', async () => {
    const own = await startRedis();
    try {
      const store = await RedisTaskStore.connect({ url: own.url, prefix: 'away:', leaseMs: 60_000 });
      stores.push(store);
      const done = (await store.createTask(undefined, 60_000)) as TaskRecord;
      await store.finishTask(done.taskId, {
        status: 'completed',
        result: { content: [{ type: 'text', text: 'kept' }] },
      });
      await own.kill(); // SIGKILL: the AOF has what was acknowledged
      const error = await store.getTask(undefined, done.taskId).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(JsonRpcError);
      expect(error).toMatchObject({ code: -32603, data: { cause: TASK_STORE_UNAVAILABLE } });
      expect((error as Error).message).toMatch(/^the task store is unavailable: /);
      await own.start();
      let lastError = 'none';
      const back = await until(
        () =>
          store.getTask(undefined, done.taskId).catch((error: unknown) => {
            lastError = String(error);
            return undefined;
          }),
        () => true,
      ).catch((error: Error) => {
        throw new Error(`${error.message}; the last call's error: ${lastError}`);
      });
      expect(back).toMatchObject({
        status: 'completed',
        result: { content: [{ type: 'text', text: 'kept' }] },
      });
      // The subscriber is back too: a watch made now hears a change.
      const next = (await store.createTask(undefined, 60_000)) as TaskRecord;
      const seen: string[] = [];
      await store.watchTask(next.taskId, (t) => seen.push(t.status));
      await store.finishTask(next.taskId, { status: 'completed', result: {} });
      await store.sync();
      expect(seen).toEqual(['completed']);
    } finally {
      await own.stop();
    }
  });

  it('close() returns while Redis is away: the reconnecting connections are dropped, not waited on', async () => {
    const own = await startRedis();
    const store = await RedisTaskStore.connect({ url: own.url, prefix: 'gone:', leaseMs: 60_000 });
    try {
      await own.stop();
      // Once a call has failed, both connections are reconnecting for ever (at most 1 s apart).
      await expect(store.getTask(undefined, 'nope')).rejects.toMatchObject({ code: -32603 });
      await store.close();
      await store.close(); // and again: a no-op
    } finally {
      await own.stop();
    }
  });
});
