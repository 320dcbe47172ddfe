import { callTask } from '@mcp-inflight/client/tasks';
import { type CallToolResult, JsonRpcError } from '@mcp-inflight/core';
import { HttpClient } from '@mcp-inflight/http';
import { withTasksExtension } from '@mcp-inflight/server/tasks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TASK_OWNER_LOST } from '../../src/index.js';
import { startExampleServer, startHaproxy, startProxyInstance, startRedis } from './services.mjs';

// Two proxies (mcp-inflight-proxy --redis URL), each in front of an upstream of its own (examples/server
// --http --tasks, tasks in memory), behind haproxy round robin: a task request that lands on the other
// proxy is forwarded to the one relaying it over Redis. Every process started and stopped here; needs
// `pnpm build` first.

type Started = { port: number; url: string; kill: () => Promise<void> };
let redis: Awaited<ReturnType<typeof startRedis>>;
let balancer: Awaited<ReturnType<typeof startHaproxy>>;
const upstreams: Started[] = [];
const proxies: Started[] = [];
const clients: HttpClient[] = [];

const work = (steps: number, intervalMs: number) => ({ name: 'work', arguments: { steps, intervalMs } });
const textOf = (result: unknown): string => String((result as CallToolResult).content[0]?.text);

async function client(url = balancer.url): Promise<HttpClient> {
  const c = new HttpClient({ url });
  clients.push(c);
  await c.connect({ revision: '2026-07-28', probeTimeoutMs: 60_000 });
  return c;
}

async function statusOf(
  upstream: Started,
): Promise<{ running: number; completed: number; cancelled: number }> {
  const c = await client(upstream.url);
  return JSON.parse(textOf(await c.callTool('status', {})));
}

beforeAll(async () => {
  redis = await startRedis();
  for (let i = 0; i < 2; i++) {
    const upstream = await startExampleServer(['--tasks']);
    upstreams.push(upstream);
    proxies.push(await startProxyInstance(['--upstream-http', upstream.url, '--redis', redis.url]));
  }
  balancer = await startHaproxy(proxies.map((p) => p.port));
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});
afterAll(async () => {
  await balancer?.stop();
  await Promise.all([...proxies, ...upstreams].map((p) => p.kill()));
  await redis?.stop();
});

describe('two proxies behind haproxy round robin, each with an upstream of its own, relayed tasks on Redis', () => {
  it('20 of 20 task calls complete through the balancer; both upstreams ran some', async () => {
    const c = await client();
    const before = await Promise.all(upstreams.map(statusOf));
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) => callTask(c, 'tools/call', work(3, 50 + i))),
    );
    const failures = results.filter((r) => r.status === 'rejected');
    expect(failures).toEqual([]);
    const after = await Promise.all(upstreams.map(statusOf));
    const ran = after.map((s, i) => s.completed - (before[i]?.completed ?? 0));
    expect(ran.reduce((a, b) => a + b, 0)).toBe(20);
    expect(ran.every((n) => n > 0)).toBe(true);
  });

  it('a cancel through the balancer reaches the upstream of the proxy relaying the task', async () => {
    const c = await client();
    const before = await Promise.all(upstreams.map(statusOf));
    const abort = new AbortController();
    const error = await callTask(c, 'tools/call', work(600, 100), {
      signal: abort.signal,
      onstatus: (task) => {
        if (task.statusMessage?.startsWith('step 2')) abort.abort();
      },
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'CANCELLED', details: { taskCancelled: true } });
    await expect
      .poll(async () => {
        const now = await Promise.all(upstreams.map(statusOf));
        return now.reduce((n, s, i) => n + s.cancelled - (before[i]?.cancelled ?? 0), 0);
      })
      .toBe(1);
  });

  it('an unknown task id through the balancer: -32602 Task not found, from either proxy', async () => {
    const c = await client();
    for (let i = 0; i < 2; i++) {
      const error = await c
        .request('tasks/get', withTasksExtension({ taskId: 'no-such-task' }, c.endpoint.clientCapabilities))
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(JsonRpcError);
      expect(error).toMatchObject({ code: -32602, message: 'Failed to retrieve task: Task not found' });
    }
  });

  it('killing one proxy mid-task: the tasks it relayed read failed once its lease passes; the other serves', async () => {
    const c = await client();
    const declare = (params: Record<string, unknown>) =>
      withTasksExtension(params, c.endpoint.clientCapabilities);
    const taskIds: string[] = [];
    for (let i = 0; i < 4; i++)
      taskIds.push(((await c.request('tools/call', declare(work(300, 100)))) as { taskId: string }).taskId);
    await (proxies[0] as Started).kill();
    expect(textOf(await callTask(c, 'tools/call', work(2, 50)))).toBe('done 2 steps');
    const read = async (taskId: string) =>
      (await c.request('tasks/get', declare({ taskId })).catch(() => undefined)) as
        | { status: string; error?: unknown }
        | undefined;
    await expect
      .poll(async () => (await Promise.all(taskIds.map(read))).filter((t) => t?.status === 'failed').length, {
        timeout: 40_000, // the lease is 10 s; this bound only ends a broken run
        interval: 250,
      })
      .toBe(2); // round robin: two of the four went through the killed proxy
    const states = await Promise.all(taskIds.map(read));
    for (const t of states.filter((t) => t?.status === 'failed'))
      expect(t?.error).toMatchObject({ code: -32603, data: { cause: TASK_OWNER_LOST } });
    expect(states.filter((t) => t?.status === 'working').length).toBe(2);
  });
});
