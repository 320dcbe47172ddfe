// Task-augmented calls through the relay, in memory on a manual clock: two hosts on one proxy in front of
// one upstream that serves tasks (core's serveTasks). Each host sees, lists and cancels only its own
// tasks under ids the proxy minted; progress and status reach the owning host; the table expires.

import { LifecycleClient } from '@mcp-inflight/client';
import { callTask } from '@mcp-inflight/client/tasks';
import { JsonRpcError, type RequestContext } from '@mcp-inflight/core';
import type { JsonRpcMessage } from '@mcp-inflight/core/adapter';
import { ManualClock } from '@mcp-inflight/core/testing';
import { serveTasks, TaskStore, taskCapabilities } from '@mcp-inflight/server/tasks';
import { describe, expect, it } from 'vitest';
import { CallRelay } from '../src/call-relay.js';
import { capabilitiesForHosts } from '../src/relayed-methods.js';
import { UpstreamLink } from '../src/upstream-link.js';
import { memoryUpstream, settle, type Wire, wire } from './memory.js';

const work = { name: 'work', arguments: {} };

async function setup(options: { maxTasks?: number } = {}) {
  const clock = new ManualClock();
  const up = wire({ clock, transport: 'stdio', revision: '2025-11-25', serverMinIntervalMs: 0 });
  const store = new TaskStore({ clock, pollIntervalMs: 100 });
  let ctx: RequestContext | undefined;
  let finish: (value: unknown) => void = () => {};
  serveTasks(up.server, store, (_params, c) => {
    ctx = c;
    return new Promise((resolve) => {
      finish = resolve;
    });
  });
  const upstream = {
    ...memoryUpstream(up, '2025-11-25'),
    identity: {
      serverInfo: { name: 'tasks-upstream', version: '1' },
      capabilities: { tools: {}, ...taskCapabilities() },
    },
  };
  const link = new UpstreamLink(async () => upstream);
  await link.get();
  const proxy = new CallRelay(link, {
    clock,
    tasks: options.maxTasks ? { maxTasks: options.maxTasks } : {},
  });
  const host = async (): Promise<{ wire: Wire; client: LifecycleClient }> => {
    const w = wire({ clock, transport: 'stdio', revision: '2025-11-25', serverMinIntervalMs: 0 });
    proxy.attach(w.server, 'stdio');
    const client = new LifecycleClient(
      w.client,
      { clientInfo: { name: 'host', version: '1' }, capabilities: {} },
      { notify: async (m, p) => w.client.notify(m, p), close: async () => w.client.close() },
    );
    await client.connect({ revision: '2025-11-25' });
    return { wire: w, client };
  };
  return {
    clock,
    up,
    store,
    proxy,
    host,
    step: (i: number) => ctx?.progress(i, 3, `step ${i}`),
    finish: (value: unknown) => finish(value),
  };
}

const statusNotes = (log: JsonRpcMessage[]) => log.filter((m) => m.method === 'notifications/tasks/status');

describe('the proxy relays tasks', () => {
  it('offers hosts the tools/call task capability of its upstream, and no more', () => {
    expect(
      capabilitiesForHosts({ tasks: { list: {}, cancel: {}, requests: { tools: { call: {} }, x: {} } } }),
    ).toEqual({
      tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
    });
  });

  it('offers 2025-11-25 hosts the legacy task slot for an upstream that declares only the tasks extension (it bridges them)', () => {
    const offered = capabilitiesForHosts({ tools: {}, extensions: { 'io.modelcontextprotocol/tasks': {} } });
    expect(offered.tasks).toEqual({ list: {}, cancel: {}, requests: { tools: { call: {} } } });
    expect(capabilitiesForHosts({ tools: {}, extensions: {} }).tasks).toBeUndefined();
  });

  it('two hosts: progress after the CreateTaskResult and the status reach the owner only; the other cannot see, list or cancel it', async () => {
    const t = await setup();
    const a = await t.host();
    const b = await t.host();
    expect(a.client.server?.capabilities.tasks).toMatchObject({ requests: { tools: { call: {} } } });
    const seen: number[] = [];
    const call = callTask(a.client, 'tools/call', work, { onprogress: (p) => seen.push(p.progress) });
    await settle();
    const created = a.wire.toClient.find((m) => (m.result as { task?: unknown } | undefined)?.task)
      ?.result as {
      task: { taskId: string };
    };
    const hostTaskId = created.task.taskId;
    const [upstreamTask] = t.store.list(t.up.server);
    expect(hostTaskId).not.toBe(upstreamTask?.taskId); // the proxy's own id, not the upstream's
    t.step(1);
    t.step(2);
    await settle();
    expect(seen).toEqual([1, 2]);

    const refused = async (method: string) =>
      b.client.request(method, { taskId: hostTaskId }).then(
        () => 'answered',
        (e: unknown) => (e instanceof JsonRpcError ? e.code : 'other'),
      );
    expect(await refused('tasks/get')).toBe(-32602);
    expect(await refused('tasks/cancel')).toBe(-32602);
    expect(await refused('tasks/result')).toBe(-32602);
    await expect(b.client.request('tasks/list', {})).resolves.toEqual({ tasks: [] });
    await expect(a.client.request('tasks/list', {})).resolves.toMatchObject({
      tasks: [{ taskId: hostTaskId, status: 'working' }],
    });

    t.step(3);
    t.finish({ content: [{ type: 'text', text: 'done' }] });
    await settle();
    const result = (await call) as { content: unknown; _meta: Record<string, unknown> };
    expect(result.content).toEqual([{ type: 'text', text: 'done' }]);
    expect(result._meta['io.modelcontextprotocol/related-task']).toEqual({ taskId: hostTaskId });
    expect(seen).toEqual([1, 2, 3]);
    expect(statusNotes(a.wire.toClient).map((m) => (m.params as { taskId: string }).taskId)).toEqual([
      hostTaskId,
    ]);
    expect(statusNotes(b.wire.toClient)).toEqual([]);
    // Both legs' routes are released at the terminal status.
    expect(t.up.client.stats.outboundTokens).toBe(0);
    expect(a.wire.client.stats.outboundTokens).toBe(0);
  });

  it("a host's deadline reaches the upstream as tasks/cancel for the mapped task, never notifications/cancelled", async () => {
    const t = await setup();
    const a = await t.host();
    const call = callTask(a.client, 'tools/call', work, { idleMs: 1_000 }).catch((e: unknown) => e);
    await settle();
    t.clock.advance(1_000);
    await settle();
    expect(await call).toMatchObject({ code: 'IDLE_TIMEOUT', details: { taskCancelled: true } });
    const upstreamMethods = t.up.toServer.map((m) => m.method);
    expect(upstreamMethods).toContain('tasks/cancel');
    expect(upstreamMethods).not.toContain('notifications/cancelled');
    expect(t.store.list(t.up.server)[0]?.status).toBe('cancelled');
  });

  it('the task table expires with the task TTL, and holds at most maxTasks', async () => {
    const t = await setup({ maxTasks: 1 });
    const a = await t.host();
    const created = (await a.client.request('tools/call', { ...work, task: { ttl: 2_000 } })) as {
      task: { taskId: string; ttl: number };
    };
    expect(created.task.ttl).toBe(2_000);
    expect(t.proxy.tasks.size).toBe(1);
    const second = await a.client
      .request('tools/call', { ...work, task: {} })
      .catch((e: unknown) => (e instanceof JsonRpcError ? e.code : e));
    expect(second).toBe(-32010); // full: refused before anything reaches the upstream
    t.clock.advance(2_000);
    await settle();
    expect(t.proxy.tasks.size).toBe(0);
    expect(t.up.client.stats.outboundTokens).toBe(0); // the held upstream route went with it
    const gone = await a.client
      .request('tasks/get', { taskId: created.task.taskId })
      .catch((e: unknown) => (e instanceof JsonRpcError ? e.code : e));
    expect(gone).toBe(-32602);
  });
});
