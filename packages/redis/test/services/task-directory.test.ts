import { JsonRpcError } from '@mcp-inflight/core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  RedisTaskDirectory,
  type RedisTaskDirectoryOptions,
  type StoreEvent,
  TASK_STORE_UNAVAILABLE,
} from '../../src/index.js';
import { startRedis } from './services.mjs';

// The proxies' task directory against a real redis-server (on a free port, started and stopped here):
// what it keeps while Redis is away (a claim, an answer), what it refuses past its keep, and the asking
// host's passed headers carried to the holder. Each case has a prefix of its own.

let redis: Awaited<ReturnType<typeof startRedis>>;
const directories: RedisTaskDirectory[] = [];
let prefixes = 0;

beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis?.stop();
});
afterEach(async () => {
  await Promise.all(directories.splice(0).map((d) => d.close()));
  const child = redis.child as unknown as { exitCode: number | null; signalCode: string | null };
  if (child.exitCode !== null || child.signalCode !== null) await redis.start();
});

async function pair(options: Partial<RedisTaskDirectoryOptions> = {}) {
  const prefix = `directory-${++prefixes}:`;
  const events: StoreEvent[] = [];
  const open = async (extra: Partial<RedisTaskDirectoryOptions> = {}) => {
    const d = await RedisTaskDirectory.connect({ url: redis.url, prefix, ...options, ...extra });
    directories.push(d);
    return d;
  };
  const holder = await open({ onStore: (e) => events.push(e) });
  const asker = await open();
  return { holder, asker, events };
}

const until = async (check: () => boolean, ms = 20_000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('not in time');
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('RedisTaskDirectory through a Redis outage', () => {
  it('a claim and its answer made while Redis is killed are written once it is back; the other instance reads the answer', async () => {
    const { holder, asker, events } = await pair();
    await redis.kill();
    await holder.claim('t1', 60_000);
    await holder.settle('t1', {
      taskId: 't1',
      status: 'completed',
      createdAt: new Date().toISOString(),
      ttlMs: 60_000,
    });
    expect(holder.health).toMatchObject({ up: false, pendingWrites: 1 });
    expect(holder.health.errors).toBeGreaterThan(0);
    await redis.start();
    await until(() => holder.health.up);
    expect(holder.health.pendingWrites).toBe(0);
    expect(events.map((e) => e.type)).toEqual(['store-down', 'store-up']);
    expect(events[1]).toMatchObject({ type: 'store-up', writtenAfter: 1 });
    await expect(asker.forward('t1', 'tasks/get', { taskId: 't1' })).resolves.toEqual({
      held: true,
      result: expect.objectContaining({ taskId: 't1', status: 'completed' }),
    });
  }, 30_000);

  it('past maxPendingWrites a claim is refused with TASK_STORE_UNAVAILABLE (the proxy refuses that task)', async () => {
    const { holder } = await pair({ maxPendingWrites: 2 });
    await redis.kill();
    await holder.claim('a', 60_000);
    await holder.claim('b', 60_000);
    const refused = await holder.claim('c', 60_000).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(JsonRpcError);
    expect(refused).toMatchObject({
      code: -32603,
      message: expect.stringMatching(/2 writes already wait for it; retry once Redis is back/),
      data: { cause: TASK_STORE_UNAVAILABLE },
    });
    expect(holder.health.pendingWrites).toBe(2);
  }, 30_000);

  it('a forwarded request carries the asking host’s passed headers to the holder', async () => {
    const { holder, asker } = await pair();
    const heard: unknown[] = [];
    holder.serve(async (method, params, headers) => {
      heard.push({ method, params, headers });
      return { status: 'working' };
    });
    await holder.claim('t2', 60_000);
    const answer = await asker.forward(
      't2',
      'tasks/get',
      { taskId: 't2' },
      { authorization: 'Bearer host-a' },
    );
    expect(answer).toEqual({ held: true, result: { status: 'working' } });
    expect(heard).toEqual([
      { method: 'tasks/get', params: { taskId: 't2' }, headers: { authorization: 'Bearer host-a' } },
    ]);
  });
});
