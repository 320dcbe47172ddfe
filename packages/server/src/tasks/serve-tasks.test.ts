import { LifecycleClient } from '@mcp-inflight/client';
import { callTask } from '@mcp-inflight/client/tasks';
import type { RequestContext, Revision } from '@mcp-inflight/core';
import { Endpoint, JsonRpcError, ProgressRelay, serveLifecycle } from '@mcp-inflight/core';
import type { Channel, JsonRpcMessage } from '@mcp-inflight/core/adapter';
import { ManualClock } from '@mcp-inflight/core/testing';
import { describe, expect, it } from 'vitest';
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
  server = new Endpoint({
    role: 'server',
    transport: 'stdio',
    channel: toClient,
    clock,
    progressRelay: relay,
  });
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

  it('2025-11-25: a call cancelled while the store makes its task gets no task work: the task ends cancelled', async () => {
    const t = await setup('2025-11-25');
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const create = t.store.createTask.bind(t.store);
    t.store.createTask = async (owner, ttlMs) => {
      await gate;
      return create(owner, ttlMs);
    };
    const stop = new AbortController();
    const call = t.client
      .request('tools/call', { name: 'work', arguments: {}, task: {} }, { signal: stop.signal })
      .catch((e: unknown) => e);
    await flush();
    stop.abort();
    await flush();
    release();
    await flush();
    expect(t.work.signal).toBeUndefined(); // the work never ran
    expect(t.store.list(t.server).map((task) => task.status)).toEqual(['cancelled']);
    expect(t.sent.map((m) => m.method)).toContain('notifications/cancelled');
    expect(t.received.filter((m) => m.id !== undefined)).toEqual([]); // no answer after the cancel
    await call;
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

/** Extension-declaring params for a raw 2026-07-28 request. */
const declared = (params: Record<string, unknown>): Record<string, unknown> => ({
  ...params,
  _meta: {
    'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } },
  },
});

const ask = (message: string) => ({
  method: 'elicitation/create',
  params: { mode: 'form', message, requestedSchema: { type: 'object', properties: {} } },
});

/**
 * A multi round-trip work: asks for `confirm` (and `name` when `both`) until answered, then asks for
 * `confirm` once more (the same key, a later round), then answers with what it got and its state.
 */
function askingWork(both = false) {
  const rounds: Array<Record<string, unknown> | undefined> = [];
  const handler = (_params: Record<string, unknown> | undefined, ctx: RequestContext) => {
    rounds.push(ctx.params);
    const state = ctx.params?.requestState as string | undefined;
    const answers = ctx.params?.inputResponses as Record<string, { content?: { v?: string } }> | undefined;
    if (state === undefined)
      return {
        resultType: 'input_required',
        inputRequests: both ? { confirm: ask('Sure?'), name: ask('Name?') } : { confirm: ask('Sure?') },
        requestState: 'round-1',
      };
    if (state === 'round-1')
      return {
        resultType: 'input_required',
        inputRequests: { confirm: ask('Really?') },
        requestState: 'round-2',
      };
    return { content: [{ type: 'text', text: `${state}: ${answers?.confirm?.content?.v}` }] };
  };
  return { handler, rounds };
}

describe('serveTasks, 2026-07-28 tasks that ask for input', () => {
  async function asking(both = false) {
    const t = await setup('2026-07-28');
    const work = askingWork(both);
    serveTasks(t.server, t.store, work.handler);
    const created = (await t.client.request('tools/call', declared({ name: 'ask', arguments: {} }))) as {
      taskId: string;
    };
    await flush();
    const get = async () =>
      (await t.client.request('tasks/get', declared({ taskId: created.taskId }))) as Record<string, unknown>;
    const update = (inputResponses: unknown) =>
      t.client.request('tasks/update', declared({ taskId: created.taskId, inputResponses }));
    return { ...t, taskId: created.taskId, rounds: work.rounds, get, update };
  }

  it('input_required shows every outstanding request on tasks/get, again on each poll, until answered [T31]', async () => {
    const t = await asking();
    const first = await t.get();
    expect(first).toMatchObject({ status: 'input_required', inputRequests: { confirm: ask('Sure?') } });
    expect(await t.get()).toMatchObject({
      status: 'input_required',
      inputRequests: { confirm: ask('Sure?') },
    });
    expect(t.rounds).toHaveLength(1); // the work waits; it is not run again by a poll
  });

  it('tasks/update resumes the work with the answers and its requestState; a reused key goes out renamed [T33]', async () => {
    const t = await asking();
    await expect(t.update({ confirm: { action: 'accept', content: { v: 'one' } } })).resolves.toEqual({
      resultType: 'complete',
    });
    await flush();
    expect(t.rounds[1]).toMatchObject({
      inputResponses: { confirm: { action: 'accept', content: { v: 'one' } } },
      requestState: 'round-1',
    });
    // The work asks for `confirm` again: the client sees a key it has never answered.
    const second = await t.get();
    expect(second.status).toBe('input_required');
    expect(Object.keys(second.inputRequests as object)).toEqual(['confirm~2']);
    await t.update({ confirm: { action: 'accept', content: { v: 'stale' } } }); // answered already: ignored
    expect((await t.get()).status).toBe('input_required');
    await t.update({ 'confirm~2': { action: 'accept', content: { v: 'two' } } });
    await flush();
    // The work gets its own key back, and ends.
    expect(t.rounds[2]).toMatchObject({ inputResponses: { confirm: { content: { v: 'two' } } } });
    expect(await t.get()).toMatchObject({
      status: 'completed',
      result: { content: [{ type: 'text', text: 'round-2: two' }] },
    });
    expect('inputRequests' in (await t.get())).toBe(false);
  });

  it('a partial tasks/update keeps the task input_required with only the rest; unknown keys are ignored [T34]', async () => {
    const t = await asking(true);
    await t.update({ name: { action: 'accept', content: { v: 'Ada' } }, nonsense: { x: 1 } });
    await flush();
    const rest = await t.get();
    expect(rest.status).toBe('input_required');
    expect(Object.keys(rest.inputRequests as object)).toEqual(['confirm']);
    expect(t.rounds).toHaveLength(1);
    await t.update({ confirm: { action: 'accept', content: { v: 'yes' } } });
    await flush();
    expect(t.rounds[1]?.inputResponses).toEqual({
      name: { action: 'accept', content: { v: 'Ada' } },
      confirm: { action: 'accept', content: { v: 'yes' } },
    });
  });

  it('tasks/update with inputResponses that are not objects is -32602; the task keeps waiting', async () => {
    const t = await asking();
    const refused = await t.update({ confirm: 'yes' }).catch((e: unknown) => e);
    expect((refused as JsonRpcError).code).toBe(-32602);
    expect((await t.get()).status).toBe('input_required');
  });

  it('a cancel while the task waits for input ends it cancelled; the work is not run again', async () => {
    const t = await asking();
    await t.client.request('tasks/cancel', declared({ taskId: t.taskId }));
    await flush();
    expect(await t.get()).toMatchObject({ status: 'cancelled' });
    await t.update({ confirm: { action: 'accept', content: {} } });
    await flush();
    expect(t.rounds).toHaveLength(1);
  });

  it('callTask against it: every request answered through tasks/update, the task completes', async () => {
    const t = await setup('2026-07-28');
    const work = askingWork(true);
    serveTasks(t.server, t.store, work.handler);
    const asked: string[] = [];
    const call = callTask(
      t.client,
      'tools/call',
      { name: 'ask', arguments: {} },
      {
        onInputRequired: (requests) => {
          asked.push(...Object.keys(requests));
          return Object.fromEntries(
            Object.keys(requests).map((key) => [key, { action: 'accept', content: { v: `for ${key}` } }]),
          );
        },
      },
    );
    for (let i = 0; i < 4; i++) {
      await flush();
      t.clock.advance(100);
    }
    await expect(call).resolves.toEqual({ content: [{ type: 'text', text: 'round-2: for confirm~2' }] });
    expect(asked).toEqual(['confirm', 'name', 'confirm~2']);
  });
});

describe('serveTasks, two instances on one store (rule 15)', () => {
  async function pair() {
    const store = new TaskStore({ clock: new ManualClock(), pollIntervalMs: 100 });
    return { store, a: await setup('2026-07-28', store), b: await setup('2026-07-28', store) };
  }

  it('a task made on one instance is readable from the other before its CreateTaskResult goes out', async () => {
    const { store, a, b } = await pair();
    const create = store.createTask.bind(store);
    let answeredBefore: boolean | undefined;
    let seenFromB: unknown;
    store.createTask = async (owner, ttlMs) => {
      const task = await create(owner, ttlMs);
      answeredBefore = a.received.some((m) => m.id !== undefined);
      seenFromB = await b.client.request('tasks/get', declared({ taskId: task?.taskId }));
      return task;
    };
    const created = (await a.client.request('tools/call', declared({ name: 'work', arguments: {} }))) as {
      taskId: string;
    };
    expect(answeredBefore).toBe(false);
    expect(seenFromB).toMatchObject({ taskId: created.taskId, status: 'working' });
  });

  it('tasks/cancel on the other instance stops the work where it runs', async () => {
    const { a, b } = await pair();
    const created = (await a.client.request('tools/call', declared({ name: 'work', arguments: {} }))) as {
      taskId: string;
    };
    await flush();
    await b.client.request('tasks/cancel', declared({ taskId: created.taskId }));
    expect(a.work.signal?.aborted).toBe(true);
    expect(b.work.signal).toBeUndefined();
    await flush();
    expect(await a.client.request('tasks/get', declared({ taskId: created.taskId }))).toMatchObject({
      status: 'cancelled',
    });
  });

  it('tasks/update on the other instance answers the work where it runs', async () => {
    const { a, b } = await pair();
    const work = askingWork();
    serveTasks(a.server, a.store, work.handler);
    const created = (await a.client.request('tools/call', declared({ name: 'ask', arguments: {} }))) as {
      taskId: string;
    };
    await flush();
    const fromB = (taskId: string) => b.client.request('tasks/get', declared({ taskId }));
    expect(await fromB(created.taskId)).toMatchObject({
      status: 'input_required',
      inputRequests: { confirm: ask('Sure?') },
    });
    await b.client.request(
      'tasks/update',
      declared({
        taskId: created.taskId,
        inputResponses: { confirm: { action: 'accept', content: { v: 'b' } } },
      }),
    );
    await flush();
    expect(work.rounds[1]).toMatchObject({
      inputResponses: { confirm: { content: { v: 'b' } } },
      requestState: 'round-1',
    });
    expect(Object.keys(((await fromB(created.taskId)) as { inputRequests: object }).inputRequests)).toEqual([
      'confirm~2',
    ]);
  });
});
