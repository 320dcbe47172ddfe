// `--pass-header` on every upstream request a host causes, task requests included (issue 45 item 4): a
// 2026-07-28 host's tasks/get and tasks/cancel, and a bridged 2025-11-25 host's tasks/result (which the
// proxy answers by polling the upstream's tasks/get), tasks/get, tasks/list and tasks/cancel. Real
// loopback sockets: a 2026-07-28 HTTP upstream serving tasks records the Authorization header of every
// request on its wire; the proxy runs in process with `--header` as its default.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { callTask } from '@mcp-inflight/client/tasks';
import { serveLifecycle } from '@mcp-inflight/core';
import { HttpClient, type RunningHttpServer, serveHttp } from '@mcp-inflight/http';
import { defineTool, serveTools } from '@mcp-inflight/server';
import { serveTasks, TaskStore, taskCapabilities, withTasksExtension } from '@mcp-inflight/server/tasks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { createProxy, type Listener, type McpProxy, PassHeaders } from '../src/index.js';

let upstream: RunningHttpServer;
let proxy: McpProxy;
let listener: Listener;
/** Every request on the upstream's wire: its `Mcp-Method` and `Authorization` headers. */
const wire: Array<{ method: string; auth: string | undefined }> = [];
const clients: HttpClient[] = [];

beforeAll(async () => {
  const tasks = new TaskStore({ defaultTtlMs: 60_000, pollIntervalMs: 50 });
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
      serveLifecycle(endpoint, {
        serverInfo: { name: 'tasks-upstream', version: '1.0.0' },
        capabilities: { tools: {}, ...taskCapabilities() },
      });
      serveTasks(endpoint, tasks, serveTools(endpoint, [work]).call);
    },
    { port: 0 },
  );
  const [serve] = upstream.server.listeners('request') as Array<
    (req: IncomingMessage, res: ServerResponse) => void
  >;
  upstream.server.removeAllListeners('request');
  upstream.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const method = req.headers['mcp-method'];
    if (typeof method === 'string') wire.push({ method, auth: req.headers.authorization });
    serve?.(req, res);
  });
  proxy = createProxy({
    upstream: upstream.url,
    upstreamOptions: { headers: { authorization: 'Bearer proxy-default' } },
    passHeaders: new PassHeaders(['Authorization']),
  });
  await proxy.connect();
  listener = await proxy.serveHttp({ port: 0 });
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});
afterAll(async () => {
  await listener?.close();
  await proxy?.close();
  await upstream?.close();
});

async function host(token: string, revision: '2026-07-28' | '2025-11-25'): Promise<HttpClient> {
  const client = new HttpClient({ url: listener.url, headers: { authorization: `Bearer ${token}` } });
  clients.push(client);
  await client.connect({ revision });
  return client;
}

/** What the upstream saw of `tasks/*` since `from`: each request's method and Authorization. */
const taskRequests = (from: number) => wire.slice(from).filter((r) => r.method.startsWith('tasks/'));

const work = (steps: number, intervalMs: number) => ({ name: 'work', arguments: { steps, intervalMs } });

describe("--pass-header on the upstream's task requests", () => {
  it("a 2026-07-28 host's tasks/get polls and its tasks/cancel carry its own Authorization", async () => {
    const from = wire.length;
    const a = await host('host-a', '2026-07-28');
    const result = await callTask(a, 'tools/call', work(4, 50), { pollMs: 50 });
    expect(JSON.stringify(result)).toContain('done 4 steps');
    const declare = (params: Record<string, unknown>) =>
      withTasksExtension(params, a.endpoint.clientCapabilities);
    const made = (await a.request('tools/call', declare(work(100, 50)))) as { taskId: string };
    await a.request('tasks/cancel', declare({ taskId: made.taskId }));
    const seen = taskRequests(from);
    expect(seen.some((r) => r.method === 'tasks/get')).toBe(true);
    expect(seen.some((r) => r.method === 'tasks/cancel')).toBe(true);
    expect(seen.filter((r) => r.auth !== 'Bearer host-a')).toEqual([]);
    // The call that made each task carried it too (this was so already).
    const calls = wire.slice(from).filter((r) => r.method === 'tools/call');
    expect(calls.map((r) => r.auth)).toEqual(['Bearer host-a', 'Bearer host-a']);
  });

  it('a bridged 2025-11-25 host: the polls behind its tasks/result, its tasks/get, tasks/list and tasks/cancel carry its Authorization', async () => {
    const from = wire.length;
    const b = await host('host-b', '2025-11-25');
    const result = await callTask(b, 'tools/call', work(4, 50));
    expect(JSON.stringify(result)).toContain('done 4 steps');
    const made = (await b.request('tools/call', { ...work(100, 50), task: {} })) as {
      task: { taskId: string };
    };
    const taskId = made.task.taskId;
    await b.request('tasks/get', { taskId });
    await b.request('tasks/list', {});
    await b.request('tasks/cancel', { taskId });
    const seen = taskRequests(from);
    // tasks/result is answered by polling the upstream's tasks/get (2026-07-28 has no tasks/result).
    expect(seen.filter((r) => r.method === 'tasks/get').length).toBeGreaterThanOrEqual(3);
    expect(seen.some((r) => r.method === 'tasks/cancel')).toBe(true);
    expect(seen.filter((r) => r.auth !== 'Bearer host-b')).toEqual([]);
  });

  it("two hosts at once: each one's task requests carry its own header, never the other's", async () => {
    const from = wire.length;
    const [a, c] = await Promise.all([host('host-a', '2026-07-28'), host('host-c', '2026-07-28')]);
    await Promise.all([
      callTask(a, 'tools/call', work(3, 40), { pollMs: 30 }),
      callTask(c, 'tools/call', work(3, 40), { pollMs: 30 }),
    ]);
    const seen = taskRequests(from);
    const byAuth = new Set(seen.map((r) => r.auth));
    expect(byAuth).toEqual(new Set(['Bearer host-a', 'Bearer host-c']));
  });
});
