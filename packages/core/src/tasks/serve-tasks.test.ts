import { describe, expect, it } from 'vitest';
import { LifecycleClient } from '../client/client.js';
import { ManualClock } from '../clock/manual-clock.js';
import type { Channel } from '../endpoint/channel.js';
import type { RequestContext } from '../endpoint/context.js';
import { Endpoint } from '../endpoint/endpoint.js';
import { serveLifecycle } from '../endpoint/lifecycle.js';
import { JsonRpcError, type JsonRpcMessage } from '../endpoint/messages.js';
import type { Revision } from '../eras/eras.js';
import { ProgressRelay } from '../relay/progress-relay.js';
import { callTask } from './call-task.js';
import { type ServeTasksOptions, serveTasks, taskCapabilities } from './serve-tasks.js';
import { TaskStore } from './task-store.js';

const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A work handler the test steps by hand: each `step()` reports progress; `finish()` ends it. */
function steppedWork() {
  let ctx: RequestContext | undefined;
  let end: (value: unknown) => void = () => {};
  let fail: (error: unknown) => void = () => {};
  const handler = (_params: Record<string, unknown> | undefined, c: RequestContext) => {
    ctx = c;
    return new Promise((resolve, reject) => {
      end = resolve;
      fail = reject;
      c.signal.addEventListener('abort', () => reject(c.signal.reason), { once: true });
    });
  };
  return {
    handler,
    step: (i: number, n: number) => ctx?.progress(i, n, `step ${i} of ${n}`),
    finish: (value: unknown) => end(value),
    fail: (error: unknown) => fail(error),
    get signal() {
      return ctx?.signal;
    },
  };
}

async function setup(
  revision: Revision,
  store = new TaskStore({ clock: new ManualClock(), pollIntervalMs: 100 }),
  options: ServeTasksOptions = {},
) {
  const clock = store.clock as ManualClock;
  const sent: JsonRpcMessage[] = [];
  const received: JsonRpcMessage[] = [];
  const relay = new ProgressRelay({ clock, minIntervalMs: 0 });
  let clientEp!: Endpoint;
  let server!: Endpoint;
  const toClient: Channel = {
    write: (m) => {
      received.push(m as JsonRpcMessage);
      clientEp.receiveText(JSON.stringify(m));
    },
  };
  const toServer: Channel = {
    write: (m) => {
      sent.push(m as JsonRpcMessage);
      server.receiveText(JSON.stringify(m));
    },
  };
  server = new Endpoint({ role: 'server', transport: 'stdio', channel: toClient, clock, relay });
  clientEp = new Endpoint({ role: 'client', transport: 'stdio', channel: toServer, clock });
  serveLifecycle(server, {
    serverInfo: { name: 's', version: '1' },
    capabilities: { tools: {}, ...taskCapabilities() },
  });
  const work = steppedWork();
  serveTasks(server, store, work.handler, options);
  const client = new LifecycleClient(
    clientEp,
    { clientInfo: { name: 'c', version: '1' }, capabilities: {} },
    { notify: async (m, p) => clientEp.notify(m, p), close: async () => clientEp.close() },
  );
  await client.connect({ revision });
  sent.length = 0;
  received.length = 0;
  return { clock, client, clientEp, server, store, work, sent, received };
}

describe('serveTasks with callTask, in memory', () => {
  it('2025-11-25: progress after the CreateTaskResult, a status notification, then tasks/result', async () => {
    const t = await setup('2025-11-25');
    const seen: number[] = [];
    const call = callTask(
      t.client,
      'tools/call',
      { name: 'work', arguments: {} },
      {
        ttlMs: 5_000,
        onprogress: (p) => seen.push(p.progress),
      },
    );
    await flush();
    const created = t.received.find((m) => m.id !== undefined)?.result as {
      task: { taskId: string; ttl: number };
    };
    expect(created.task.ttl).toBe(5_000);
    t.work.step(1, 2);
    t.work.step(2, 2);
    t.work.finish({ content: [{ type: 'text', text: 'ok' }] });
    const result = (await call) as Record<string, unknown>;
    expect(result.content).toEqual([{ type: 'text', text: 'ok' }]);
    expect(result._meta).toEqual({ 'io.modelcontextprotocol/related-task': { taskId: created.task.taskId } });
    expect(seen).toEqual([1, 2]);
    expect(t.received.map((m) => m.method).filter(Boolean)).toEqual([
      'notifications/progress',
      'notifications/progress',
      'notifications/tasks/status',
    ]);
    expect(t.clientEp.stats.outboundTokens).toBe(0);
    expect(t.store.size).toBe(1); // kept for its TTL…
    t.clock.advance(5_000);
    expect(t.store.size).toBe(0); // …and no longer
  });

  it('2025-11-25: a deadline sends tasks/cancel; the work sees its signal abort; the task stays cancelled', async () => {
    const t = await setup('2025-11-25');
    const call = callTask(t.client, 'tools/call', { name: 'work', arguments: {} }, { idleMs: 1_000 }).catch(
      (e: unknown) => e,
    );
    await flush();
    t.clock.advance(1_000);
    const error = (await call) as { code: string; details: { taskCancelled: boolean } };
    expect(error.code).toBe('IDLE_TIMEOUT');
    expect(error.details.taskCancelled).toBe(true);
    expect(t.work.signal?.aborted).toBe(true);
    expect(t.sent.map((m) => m.method)).not.toContain('notifications/cancelled');
    const [task] = t.store.list(t.server);
    expect(task?.status).toBe('cancelled');
  });

  it('2025-11-25: tasks are bound to their session: another endpoint on the same store cannot see or cancel them', async () => {
    const store = new TaskStore({ clock: new ManualClock() });
    const a = await setup('2025-11-25', store);
    const b = await setup('2025-11-25', store);
    const call = callTask(a.client, 'tools/call', { name: 'work', arguments: {} });
    await flush();
    const [task] = store.list(a.server);
    const id = task?.taskId;
    await expect(b.client.request('tasks/get', { taskId: id })).rejects.toMatchObject({ code: -32602 });
    await expect(b.client.request('tasks/cancel', { taskId: id })).rejects.toMatchObject({ code: -32602 });
    await expect(b.client.request('tasks/list', {})).resolves.toEqual({ tasks: [] });
    a.work.finish({ content: [] });
    await call;
  });

  it('2026-07-28: a declared extension gets a task; progress becomes the status message; the result comes inline', async () => {
    const t = await setup('2026-07-28');
    const messages: Array<string | undefined> = [];
    const call = callTask(
      t.client,
      'tools/call',
      { name: 'work', arguments: {} },
      {
        onstatus: (task) => messages.push(task.statusMessage),
      },
    );
    await flush();
    const created = t.received.find((m) => m.id !== undefined)?.result as Record<string, unknown>;
    expect(created).toMatchObject({ resultType: 'task', status: 'working', pollIntervalMs: 100 });
    expect(t.received.some((m) => m.method === 'notifications/progress')).toBe(false); // none on tasks [T13]
    t.work.step(1, 2);
    t.clock.advance(100);
    await flush();
    t.work.finish({ content: [{ type: 'text', text: 'fine' }], isError: true });
    t.clock.advance(100);
    // A tool error is a completed task on 2026-07-28, its result inline.
    await expect(call).resolves.toEqual({ content: [{ type: 'text', text: 'fine' }], isError: true });
    expect(messages).toEqual([undefined, 'step 1 of 2', 'step 1 of 2']); // then completed, same message
  });

  it('2026-07-28: a client that did not declare the extension gets no task, and tasks/get answers -32021', async () => {
    const t = await setup('2026-07-28');
    const plain = t.client.request('tools/call', { name: 'work', arguments: {} });
    await flush();
    t.work.finish({ content: [] });
    await expect(plain).resolves.toEqual({ resultType: 'complete', content: [] });
    const refused = await t.client.request('tasks/get', { taskId: 'x' }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(JsonRpcError);
    expect((refused as JsonRpcError).code).toBe(-32021);
  });

  it('2026-07-28: a call that only runs as a task answers -32021 to a non-declaring client, and never runs [T29]', async () => {
    const t = await setup('2026-07-28', undefined, { required: (params) => params?.name === 'only-task' });
    const refused = await t.client
      .request('tools/call', { name: 'only-task', arguments: {} })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(JsonRpcError);
    expect((refused as JsonRpcError).code).toBe(-32021);
    expect((refused as JsonRpcError).data).toEqual({
      requiredCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } },
    });
    expect(t.work.signal).toBeUndefined(); // the work never started
    // Another tool still answers directly.
    const plain = t.client.request('tools/call', { name: 'work', arguments: {} });
    await flush();
    t.work.finish({ content: [] });
    await expect(plain).resolves.toEqual({ resultType: 'complete', content: [] });
  });

  it('2026-07-28: tasks/result is removed (-32601), whatever the taskId [T28]', async () => {
    const t = await setup('2026-07-28');
    const refused = await t.client.request('tasks/result', { taskId: 'unknown' }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(JsonRpcError);
    expect((refused as JsonRpcError).code).toBe(-32601);
  });

  it('server/discover advertises the tasks extension without the legacy tasks slot; initialize keeps it [T30]', async () => {
    const modern = await setup('2026-07-28');
    const discovered = (await modern.client.request('server/discover')) as {
      capabilities: Record<string, unknown>;
      ttlMs: unknown;
      cacheScope: unknown;
    };
    // The DiscoverResult is a cacheable one [CA2]: never shared, always fresh.
    expect([discovered.ttlMs, discovered.cacheScope]).toEqual([0, 'private']);
    expect(discovered.capabilities).toEqual({
      tools: {},
      extensions: { 'io.modelcontextprotocol/tasks': {} },
    });
    const legacy = await setup('2025-11-25');
    const initialized = (await legacy.client.request('initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'c', version: '1' },
    })) as { capabilities: Record<string, unknown> };
    expect(initialized.capabilities.tasks).toEqual(taskCapabilities().tasks);
  });
});
