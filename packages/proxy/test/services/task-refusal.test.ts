// A task the shared directory cannot record is refused at creation, never half made (issue 45 item 3,
// rule 15): the proxy in process on a real RedisTaskDirectory (a real redis-server on a free port, then
// killed) whose keep holds no write, in front of a real 2026-07-28 HTTP upstream serving tasks. The host
// hears -32603 TASK_STORE_UNAVAILABLE naming the fix, the upstream's task is cancelled, the proxy maps
// nothing, and it keeps serving.
import { setTimeout as sleep } from 'node:timers/promises';
import { serveLifecycle } from '@mcp-inflight/core';
import { HttpClient, type RunningHttpServer, serveHttp } from '@mcp-inflight/http';
import { RedisTaskDirectory } from '@mcp-inflight/redis';
import { defineTool, serveTools } from '@mcp-inflight/server';
import { serveTasks, TaskStore, taskCapabilities, withTasksExtension } from '@mcp-inflight/server/tasks';
import { afterAll, beforeAll, expect, it } from 'vitest';
import * as z from 'zod';
import { startRedis } from '../../../redis/test/services/services.mjs';
import { createProxy, type Listener, type McpProxy, type ProxyEvent } from '../../src/index.js';

let redis: Awaited<ReturnType<typeof startRedis>>;
let directory: RedisTaskDirectory;
let upstream: RunningHttpServer;
let proxy: McpProxy;
const events: ProxyEvent[] = [];
let listener: Listener;
const tasks = new TaskStore({ defaultTtlMs: 60_000, pollIntervalMs: 50 });
let upstreamEndpoint: Parameters<typeof tasks.list>[0] | undefined;

beforeAll(async () => {
  redis = await startRedis();
  directory = await RedisTaskDirectory.connect({ url: redis.url, maxPendingWrites: 0 });
  const work = defineTool({
    name: 'work',
    input: z.object({ steps: z.number().int(), intervalMs: z.number() }),
    listing: { execution: { taskSupport: 'optional' } },
    run: async ({ steps, intervalMs }, ctx) => {
      for (let i = 1; i <= steps; i++) await sleep(intervalMs, undefined, { signal: ctx.signal });
      return `done ${steps} steps`;
    },
  });
  upstream = await serveHttp(
    (endpoint) => {
      upstreamEndpoint = endpoint;
      serveLifecycle(endpoint, {
        serverInfo: { name: 'tasks-upstream', version: '1.0.0' },
        capabilities: { tools: {}, ...taskCapabilities() },
      });
      serveTasks(endpoint, tasks, serveTools(endpoint, [work]).call);
    },
    { port: 0 },
  );
  proxy = createProxy({ upstream: upstream.url, tasks: { directory }, onEvent: (e) => events.push(e) });
  await proxy.connect();
  listener = await proxy.serveHttp({ port: 0 });
});
afterAll(async () => {
  await listener?.close();
  await proxy?.close();
  await upstream?.close();
  await directory?.close();
  await redis?.stop();
});

it('Redis away and no room to keep the claim: the task is refused with TASK_STORE_UNAVAILABLE, its upstream task cancelled; plain calls go on', async () => {
  const host = new HttpClient({ url: listener.url });
  await host.connect({ revision: '2026-07-28' });
  const declare = (params: Record<string, unknown>) =>
    withTasksExtension(params, host.endpoint.clientCapabilities);
  await redis.kill();
  const refused = await host
    .request('tools/call', declare({ name: 'work', arguments: { steps: 600, intervalMs: 100 } }))
    .catch((e: unknown) => e);
  expect(refused).toMatchObject({
    code: -32603,
    message: expect.stringMatching(/task store is unavailable.*retry once Redis is back/),
    data: { cause: 'TASK_STORE_UNAVAILABLE' },
  });
  expect(proxy.relay.tasks.size).toBe(0);
  // The call's own end says what the host got: an error, not a completed call.
  const ends = events.filter((e) => e.type === 'call');
  expect(ends.map((e) => e.type === 'call' && e.outcome)).toEqual(['error']);
  expect(proxy.relay.tasks.store).toMatchObject({ up: false, pendingWrites: 0 });
  // The upstream made the task; the proxy cancelled it, so nothing runs that no host can reach.
  await expect
    .poll(() => tasks.list(upstreamEndpoint as never).map((t) => t.status), { timeout: 10_000 })
    .toEqual(['cancelled']);
  const plain = await host.callTool('work', { steps: 1, intervalMs: 5 });
  expect(plain.content).toEqual([{ type: 'text', text: 'done 1 steps' }]);
  await host.close();
}, 30_000);
