import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { InputRequiredResult } from '@mcp-inflight/client/input';
import { callTask } from '@mcp-inflight/client/tasks';
import { type CallToolResult, JsonRpcError } from '@mcp-inflight/core';
import { HttpClient } from '@mcp-inflight/http';
import { withTasksExtension } from '@mcp-inflight/server/tasks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RedisTaskStore, TASK_OWNER_LOST } from '../../src/index.js';
import { startExampleServer, startHaproxy, startRedis } from './services.mjs';

// The deployment the deploy guide describes, started from the binaries on PATH: Redis (--appendonly yes
// --appendfsync always), two `examples/server --http --tasks --redis URL --request-state-secret-file F`
// instances, haproxy round robin in front (nothing sticky). Every process is started here on a free
// loopback port and stopped here. Needs `pnpm build` first (pnpm test:services does it).

type Instance = Awaited<ReturnType<typeof startExampleServer>>;
let redis: Awaited<ReturnType<typeof startRedis>>;
let balancer: Awaited<ReturnType<typeof startHaproxy>>;
const instances: Instance[] = [];
let secretDir: string;
let secretFile: string;
const clients: HttpClient[] = [];

const work = (steps: number, intervalMs: number) => ({ name: 'work', arguments: { steps, intervalMs } });
const textOf = (result: unknown): string => String((result as CallToolResult).content[0]?.text);
const YES = { action: 'accept', content: { confirm: true } };

async function client(url = balancer.url, capabilities?: Record<string, unknown>): Promise<HttpClient> {
  const c = new HttpClient({ url, ...(capabilities ? { capabilities } : {}) });
  clients.push(c);
  await c.connect({ revision: '2026-07-28', probeTimeoutMs: 60_000 });
  return c;
}

/** `status` of one instance, asked of it directly. */
async function statusOf(
  instance: Instance,
): Promise<{ running: number; completed: number; cancelled: number; stopped: number }> {
  const c = await client(instance.url);
  return JSON.parse(textOf(await c.callTool('status', {})));
}

async function startInstances(n: number): Promise<void> {
  for (let i = 0; i < n; i++)
    instances.push(
      await startExampleServer(['--tasks', '--redis', redis.url, '--request-state-secret-file', secretFile]),
    );
}

beforeAll(async () => {
  secretDir = mkdtempSync(join(tmpdir(), 'mcp-inflight-secret-'));
  secretFile = join(secretDir, 'request-state.key');
  writeFileSync(secretFile, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600 });
  redis = await startRedis();
  await startInstances(2);
  balancer = await startHaproxy(instances.map((i) => i.port));
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});
afterAll(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await balancer?.stop();
  await Promise.all(instances.map((i) => i.kill()));
  await redis?.stop();
  rmSync(secretDir, { recursive: true, force: true });
});

describe('two examples/server instances behind haproxy round robin, tasks on Redis', () => {
  it('20 of 20 task calls complete through the balancer, and both instances ran some', async () => {
    const c = await client();
    const before = await Promise.all(instances.map(statusOf));
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) => callTask(c, 'tools/call', work(3, 50 + i))),
    );
    const completed = results.filter((r) => r.status === 'fulfilled' && textOf(r.value) === 'done 3 steps');
    expect(completed.length).toBe(20);
    const after = await Promise.all(instances.map(statusOf));
    const ran = after.map((s, i) => s.completed - (before[i]?.completed ?? 0));
    expect(ran.reduce((a, b) => a + b, 0)).toBe(20);
    expect(ran.every((n) => n > 0)).toBe(true); // round robin: each instance ran work, polls landed anywhere
  });

  it('a cancel sent through the balancer stops the work wherever it runs', async () => {
    const c = await client();
    const before = await Promise.all(instances.map(statusOf));
    const abort = new AbortController();
    const call = callTask(c, 'tools/call', work(600, 100), {
      signal: abort.signal,
      onstatus: (task) => {
        if (task.statusMessage?.startsWith('step 2')) abort.abort();
      },
    }).catch((e: unknown) => e);
    expect(await call).toMatchObject({ code: 'CANCELLED', details: { taskCancelled: true } });
    await expect
      .poll(async () => {
        const now = await Promise.all(instances.map(statusOf));
        return now.reduce((n, s, i) => n + s.cancelled - (before[i]?.cancelled ?? 0), 0);
      })
      .toBe(1);
    expect((await Promise.all(instances.map(statusOf))).map((s) => s.running)).toEqual([0, 0]);
  });

  it('a multi round-trip call: the retry verifies on the other instance (shared secret); a forged state is -32602', async () => {
    const asks = { elicitation: {} }; // confirm asks only a client that can answer [MR8]
    const [a, b] = [await client(instances[0]?.url, asks), await client(instances[1]?.url, asks)];
    const first = (await a.request('tools/call', {
      name: 'confirm',
      arguments: { action: 'deploy' },
    })) as InputRequiredResult;
    expect(first.resultType).toBe('input_required');
    const retry = { name: 'confirm', arguments: { action: 'deploy' }, inputResponses: { confirm: YES } };
    const done = await b.request('tools/call', { ...retry, requestState: first.requestState });
    expect(textOf(done)).toBe('confirmed: deploy');
    const state = first.requestState ?? '';
    const forged = `${state.slice(0, -2)}${state.at(-2) === 'A' ? 'Q' : 'A'}${state.slice(-1)}`;
    const error = await b.request('tools/call', { ...retry, requestState: forged }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JsonRpcError);
    expect((error as JsonRpcError).code).toBe(-32602);
    // And through the balancer, where the retry lands on whichever instance is next.
    const c = await client(balancer.url, asks);
    for (let i = 0; i < 4; i++) {
      const asked = (await c.request('tools/call', {
        name: 'confirm',
        arguments: { action: `ship ${i}` },
      })) as InputRequiredResult;
      const ok = await c.request('tools/call', {
        name: 'confirm',
        arguments: { action: `ship ${i}` },
        inputResponses: { confirm: YES },
        requestState: asked.requestState,
      });
      expect(textOf(ok)).toBe(`confirmed: ship ${i}`);
    }
  });

  it('bad task ids: never existed (-32602 Task not found), expired (-32602 Task has expired)', async () => {
    const c = await client();
    const ask = (taskId: string) =>
      c
        .request('tasks/get', withTasksExtension({ taskId }, c.endpoint.clientCapabilities))
        .catch((e: unknown) => e);
    expect(await ask('no-such-task')).toMatchObject({
      code: -32602,
      message: 'Failed to retrieve task: Task not found',
    });
    // A task with a short TTL, made in the shared store as any instance would make one.
    const store = await RedisTaskStore.connect({ url: redis.url });
    try {
      const task = await store.createTask(undefined, 200);
      await expect
        .poll(async () => (await ask(task?.taskId ?? '')) as JsonRpcError, { interval: 100 })
        .toMatchObject({
          code: -32602,
          message: 'Failed to retrieve task: Task has expired',
        });
    } finally {
      await store.close();
    }
  });

  it('a 2025-11-25 session keeps affinity through the balancer (stick on Mcp-Session-Id): 5 of 5 task calls', async () => {
    const sticky = await startHaproxy(
      instances.map((i) => i.port),
      { sticky: true },
    );
    try {
      const c = new HttpClient({ url: sticky.url });
      clients.push(c);
      await c.connect({ revision: '2025-11-25' });
      for (let i = 0; i < 5; i++)
        expect(textOf(await callTask(c, 'tools/call', work(2, 30)))).toBe('done 2 steps');
    } finally {
      await sticky.stop();
    }
  });

  it('a Redis restart mid-run (SHUTDOWN, then SIGKILL) loses no completed result', async () => {
    const c = await client();
    const declare = (params: Record<string, unknown>) =>
      withTasksExtension(params, c.endpoint.clientCapabilities);
    const start = async (steps: number): Promise<string> => {
      const created = (await c.request('tools/call', declare(work(steps, 100)))) as { taskId: string };
      return created.taskId;
    };
    const outcome = async (taskId: string): Promise<unknown> => {
      for (;;) {
        const got = (await c.request('tasks/get', declare({ taskId })).catch((e: unknown) => e)) as {
          status?: string;
          result?: unknown;
        };
        // While Redis is away a poll answers -32603; the task is still there once it is back.
        if (got.status === 'completed' || got.status === 'failed' || got.status === 'cancelled') return got;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    for (const stop of ['shutdown', 'kill'] as const) {
      const early = await start(1); // done before the restart
      await expect.poll(async () => ((await outcome(early)) as { status: string }).status).toBe('completed');
      const running = await Promise.all([start(15), start(15)]); // finish around the restart
      await redis[stop]();
      await new Promise((resolve) => setTimeout(resolve, 700));
      await redis.start();
      for (const taskId of [early, ...running])
        expect(await outcome(taskId), `${stop}: ${taskId}`).toMatchObject({
          status: 'completed',
          result: { content: [{ type: 'text', text: expect.stringMatching(/^done \d+ steps$/) }] },
        });
    }
  });

  it('killing one instance mid-task: its tasks end failed within the lease, the other keeps serving', async () => {
    const c = await client();
    const declare = (params: Record<string, unknown>) =>
      withTasksExtension(params, c.endpoint.clientCapabilities);
    const victim = instances[0] as Instance;
    const taskIds: string[] = [];
    for (let i = 0; i < 4; i++)
      taskIds.push(((await c.request('tools/call', declare(work(300, 100)))) as { taskId: string }).taskId);
    const onVictim = (await statusOf(victim)).running;
    expect(onVictim).toBeGreaterThan(0); // round robin put some there
    await victim.kill();
    // The other instance keeps serving through the balancer meanwhile.
    expect(textOf(await callTask(c, 'tools/call', work(2, 50)))).toBe('done 2 steps');
    // Polls through the balancer (one may meet the dead instance before haproxy's check drops it).
    const read = async (taskId: string) =>
      (await c.request('tasks/get', declare({ taskId })).catch(() => undefined)) as
        | { status: string; error?: unknown }
        | undefined;
    await expect
      .poll(async () => (await Promise.all(taskIds.map(read))).filter((t) => t?.status === 'failed').length, {
        timeout: 40_000, // the lease is 10 s; this bound only ends a broken run
        interval: 250,
      })
      .toBe(onVictim);
    const states = await Promise.all(taskIds.map(read));
    for (const t of states.filter((t) => t?.status === 'failed'))
      expect(t?.error).toMatchObject({ code: -32603, data: { cause: TASK_OWNER_LOST } });
    expect(states.filter((t) => t?.status === 'working').length).toBe(4 - onVictim);
    for (const taskId of taskIds) await c.request('tasks/cancel', declare({ taskId })).catch(() => {});
  });
});
