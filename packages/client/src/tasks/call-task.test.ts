import type { RequestContext, Revision } from '@mcp-inflight/core';
import { Endpoint, InflightError, JsonRpcError, serveLifecycle } from '@mcp-inflight/core';
import type { Channel, JsonRpcMessage, TaskState } from '@mcp-inflight/core/adapter';
import { ManualClock } from '@mcp-inflight/core/testing';
import { describe, expect, it } from 'vitest';
import { LifecycleClient } from '../lifecycle/client.js';
import type { TaskErrorDetails } from './call-options.js';
import { callTask } from './call-task.js';

const IDENTITY = { clientInfo: { name: 'test-host', version: '1.0.0' }, capabilities: {} };
const ALL_TASKS = { tools: {}, tasks: { cancel: {}, list: {}, requests: { tools: { call: {} } } } };
const NO_CANCEL = { tools: {}, tasks: { requests: { tools: { call: {} } } } };
const TOOL = { name: 'work', arguments: { steps: 3 } };

/** Lets dispatch microtasks and promise settlement run; never sleeps. */
const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

interface Script {
  revision?: Revision;
  capabilities?: Record<string, unknown>;
  /** Keep the tools/call answer until `answer()` is called. */
  holdCall?: boolean;
  pollInterval?: number;
}

/** A client driving tasks against a scripted task server, joined in memory through JSON text. */
async function setup(script: Script = {}) {
  const revision = script.revision ?? '2025-11-25';
  const modern = revision === '2026-07-28';
  const clock = new ManualClock();
  const sent: JsonRpcMessage[] = [];
  let clientEp!: Endpoint;
  let server!: Endpoint;
  const toClient: Channel = { write: (m) => clientEp.receiveText(JSON.stringify(m)) };
  const toServer: Channel = {
    write: (m) => {
      sent.push(m as JsonRpcMessage);
      server.receiveText(JSON.stringify(m));
    },
  };
  server = new Endpoint({ role: 'server', transport: 'stdio', channel: toClient, clock });
  clientEp = new Endpoint({ role: 'client', transport: 'stdio', channel: toServer, clock });
  serveLifecycle(server, {
    serverInfo: { name: 'scripted', version: '1' },
    capabilities: script.capabilities ?? ALL_TASKS,
  });
  const task: Record<string, unknown> = {
    taskId: 't-1',
    status: 'working',
    createdAt: '2025-11-25T10:30:00Z',
  };
  task[modern ? 'pollIntervalMs' : 'pollInterval'] = script.pollInterval ?? 1_000;
  task[modern ? 'ttlMs' : 'ttl'] = 60_000;
  const state = {
    token: undefined as unknown,
    callParams: undefined as Record<string, unknown> | undefined,
    result: { content: [{ type: 'text', text: 'done' }] } as unknown,
    error: undefined as JsonRpcError | undefined,
    answer: (): void => {},
    endResult: (_error?: JsonRpcError): void => {},
  };
  const created = () => (modern ? { resultType: 'task', ...task } : { task: { ...task } });
  server.setRequestHandler('tools/call', (params, ctx: RequestContext) => {
    state.callParams = params;
    state.token = ctx.progressToken;
    if (!script.holdCall) return created();
    return new Promise((resolve) => {
      state.answer = () => resolve(created());
    });
  });
  server.setRequestHandler('tasks/get', () => ({ ...task }));
  server.setRequestHandler('tasks/result', () => {
    if (state.error) throw state.error;
    if (task.status === 'completed') return state.result;
    // Not terminal yet: block until the test ends the task [T23].
    return new Promise((resolve, reject) => {
      state.endResult = (error?: JsonRpcError) => (error ? reject(error) : resolve(state.result));
    });
  });
  server.setRequestHandler('tasks/cancel', () => {
    task.status = 'cancelled';
    state.endResult(new JsonRpcError(-32800, 'the task was cancelled', { cause: 'CANCELLED' }));
    return modern ? {} : { ...task };
  });
  const client = new LifecycleClient(clientEp, IDENTITY, {
    notify: async (method, params) => clientEp.notify(method, params),
    close: async () => clientEp.close(),
  });
  await client.connect({ revision });
  sent.length = 0;
  const progress = (value: number): void =>
    server.notify('notifications/progress', {
      progressToken: state.token as string,
      progress: value,
      total: 3,
    });
  const status = (fields: Record<string, unknown>): void => {
    Object.assign(task, fields);
    server.notify(modern ? 'notifications/tasks' : 'notifications/tasks/status', { ...task });
  };
  const methods = (): string[] => sent.map((m) => String(m.method ?? 'response'));
  return { clock, client, clientEp, server, sent, task, state, progress, status, methods };
}

describe('callTask, 2025-11-25 task-augmented calls', () => {
  it('progress after the CreateTaskResult reaches the caller; the route is released at the terminal status', async () => {
    const t = await setup();
    const seen: number[] = [];
    const statuses: string[] = [];
    const call = callTask(t.client, 'tools/call', TOOL, {
      ttlMs: 30_000,
      onprogress: (p) => seen.push(p.progress),
      onstatus: (task: TaskState) => statuses.push(task.status),
    });
    await flush();
    expect(t.state.callParams?.task).toEqual({ ttl: 30_000 });
    expect(t.clientEp.stats.outboundTokens).toBe(1); // the task's token is still routed [PG14]
    t.progress(1);
    t.progress(2);
    await flush();
    expect(seen).toEqual([1, 2]);
    t.status({ status: 'completed' });
    await flush();
    t.progress(3); // after the terminal status: never delivered [PG15]
    await expect(call).resolves.toEqual({ content: [{ type: 'text', text: 'done' }] });
    expect(seen).toEqual([1, 2]);
    expect(statuses).toEqual(['working', 'completed']);
    expect(t.methods()).toEqual(['tools/call', 'tasks/result']);
    expect(t.clientEp.stats).toMatchObject({ outboundTokens: 0, outboundInFlight: 0 });
  });

  it('polls tasks/get at the server pollInterval, and returns a failed task as the same JsonRpcError', async () => {
    const t = await setup({ pollInterval: 500 });
    t.state.error = new JsonRpcError(-32603, 'API rate limit exceeded');
    const call = callTask(t.client, 'tools/call', TOOL, { pollMs: 50 }).catch((e: unknown) => e);
    await flush();
    t.clock.advance(499);
    await flush();
    expect(t.methods()).toEqual(['tools/call']);
    t.clock.advance(1);
    await flush();
    expect(t.methods()).toEqual(['tools/call', 'tasks/get']);
    t.task.status = 'failed';
    t.clock.advance(500);
    await flush();
    const error = await call;
    expect(error).toBeInstanceOf(JsonRpcError);
    expect((error as JsonRpcError).code).toBe(-32603);
    expect(t.methods()).toEqual(['tools/call', 'tasks/get', 'tasks/get', 'tasks/result']);
    expect(t.clientEp.stats.outboundTokens).toBe(0);
  });

  it('idle: progress and status changes reset the window; when it passes, tasks/cancel and no notifications/cancelled', async () => {
    const t = await setup({ pollInterval: 100_000 });
    const call = callTask(t.client, 'tools/call', TOOL, { idleMs: 1_000 }).catch((e: unknown) => e);
    await flush();
    t.clock.advance(900);
    t.progress(1); // progress after the CreateTaskResult resets the idle window
    await flush();
    t.clock.advance(900);
    t.status({ statusMessage: 'half way' }); // a status change resets it too
    await flush();
    t.clock.advance(900);
    await flush();
    expect(t.methods()).toEqual(['tools/call']);
    t.clock.advance(100);
    await flush();
    const error = (await call) as InflightError;
    expect(error.code).toBe('IDLE_TIMEOUT');
    expect(error.details as TaskErrorDetails).toMatchObject({ taskId: 't-1', taskCancelled: true });
    expect(t.methods()).toEqual(['tools/call', 'tasks/cancel']);
    expect(t.clientEp.stats).toMatchObject({ outboundTokens: 0, outboundInFlight: 0 });
  });

  it('ceiling: counted from the first send, progress does not extend it; tasks/cancel is sent', async () => {
    const t = await setup({ pollInterval: 100_000 });
    const call = callTask(t.client, 'tools/call', TOOL, { idleMs: 500, ceilingMs: 2_000 }).catch(
      (e: unknown) => e,
    );
    await flush();
    for (let i = 1; i <= 4; i++) {
      t.clock.advance(400);
      t.progress(i);
      await flush();
    }
    t.clock.advance(400);
    await flush();
    const error = (await call) as InflightError;
    expect(error.code).toBe('CEILING');
    expect(t.methods()).toEqual(['tools/call', 'tasks/cancel']);
    expect(t.methods()).not.toContain('notifications/cancelled');
  });

  it("a caller's abort after the task exists is tasks/cancel, with the caller's cause", async () => {
    const t = await setup();
    const stop = new AbortController();
    const call = callTask(t.client, 'tools/call', TOOL, { signal: stop.signal }).catch((e: unknown) => e);
    await flush();
    stop.abort(InflightError.cancelled('user pressed stop'));
    const error = (await call) as InflightError;
    expect(error.code).toBe('CANCELLED');
    expect(t.methods()).toEqual(['tools/call', 'tasks/cancel']);
    expect(t.task.status).toBe('cancelled');
  });

  it('an abort before the CreateTaskResult cancels the request; a task that comes anyway is cancelled too', async () => {
    const t = await setup({ holdCall: true });
    const stop = new AbortController();
    const call = callTask(t.client, 'tools/call', TOOL, { signal: stop.signal }).catch((e: unknown) => e);
    await flush();
    stop.abort();
    expect(((await call) as InflightError).code).toBe('CANCELLED');
    expect(t.methods()).toEqual(['tools/call', 'notifications/cancelled']);
    // The answer crossed the cancel on the wire: the server had made the task before it read the cancel.
    const callId = t.sent[0]?.id as number;
    t.clientEp.receive({ jsonrpc: '2.0', id: callId, result: { task: { ...t.task } } });
    await flush();
    await flush();
    expect(t.methods()).toEqual(['tools/call', 'notifications/cancelled', 'tasks/cancel']);
    expect(t.task.status).toBe('cancelled');
    expect(t.clientEp.stats).toMatchObject({ outboundTokens: 0, outboundInFlight: 0 });
  });

  it('a server without tasks.cancel: the caller is told the task could not be cancelled, the route is closed', async () => {
    const t = await setup({ capabilities: NO_CANCEL, pollInterval: 100_000 });
    const seen: number[] = [];
    const call = callTask(t.client, 'tools/call', TOOL, {
      idleMs: 1_000,
      onprogress: (p) => seen.push(p.progress),
    }).catch((e: unknown) => e);
    await flush();
    t.clock.advance(1_000);
    await flush();
    const error = (await call) as InflightError;
    expect(error.code).toBe('IDLE_TIMEOUT');
    expect(error.message).toMatch(/could not be cancelled: the server does not offer tasks\/cancel/);
    expect(error.details as TaskErrorDetails).toMatchObject({ taskId: 't-1', taskCancelled: false });
    expect(t.methods()).toEqual(['tools/call']);
    t.progress(1);
    await flush();
    expect(seen).toEqual([]);
    expect(t.clientEp.stats.outboundTokens).toBe(0);
  });

  it('input_required: tasks/result at once (where input requests come); a deadline while it blocks cancels the task', async () => {
    const t = await setup({ pollInterval: 100_000 });
    const call = callTask(t.client, 'tools/call', TOOL, { idleMs: 1_000 }).catch((e: unknown) => e);
    await flush();
    t.status({ status: 'input_required' });
    await flush();
    expect(t.methods()).toEqual(['tools/call', 'tasks/result']); // no poll needed
    t.clock.advance(1_000);
    await flush();
    const error = (await call) as InflightError;
    expect(error.code).toBe('IDLE_TIMEOUT');
    expect(t.methods()).toEqual(['tools/call', 'tasks/result', 'tasks/cancel']);
    // The blocked tasks/result was answered once the task was cancelled: nothing is left in flight.
    expect(t.clientEp.stats).toMatchObject({ outboundTokens: 0, outboundInFlight: 0 });
  });

  it('a server that offers no tasks for the method gets a plain call, answered as one', async () => {
    const t = await setup({ capabilities: { tools: {} } });
    t.server.setRequestHandler('tools/call', (params) => ({ content: [], echo: params?.task ?? null }));
    await expect(callTask(t.client, 'tools/call', TOOL)).resolves.toEqual({ content: [], echo: null });
  });
});

describe('callTask, the 2026-07-28 tasks extension', () => {
  it('declares the extension, polls tasks/get, resets idle on status changes and returns the inline result', async () => {
    const t = await setup({ revision: '2026-07-28', pollInterval: 400 });
    const call = callTask(t.client, 'tools/call', TOOL, { idleMs: 1_000 });
    await flush();
    const meta = t.state.callParams?._meta as Record<string, { extensions?: Record<string, unknown> }>;
    expect(meta['io.modelcontextprotocol/clientCapabilities']?.extensions).toEqual({
      'io.modelcontextprotocol/tasks': {},
    });
    for (let i = 1; i <= 4; i++) {
      t.task.statusMessage = `step ${i}`; // a new status message each poll: activity
      t.clock.advance(400);
      await flush();
    }
    t.task.status = 'completed';
    t.task.result = { content: [{ type: 'text', text: 'inline' }] };
    t.clock.advance(400);
    await expect(call).resolves.toEqual({ content: [{ type: 'text', text: 'inline' }] });
    expect(t.methods()).toEqual(['tools/call', ...Array(5).fill('tasks/get')]);
  });

  it('no status change within the idle window: tasks/cancel, never notifications/cancelled [T11]', async () => {
    const t = await setup({ revision: '2026-07-28', pollInterval: 300 });
    const call = callTask(t.client, 'tools/call', TOOL, { idleMs: 1_000 }).catch((e: unknown) => e);
    await flush();
    for (let i = 0; i < 4; i++) {
      t.clock.advance(300);
      await flush();
    }
    const error = (await call) as InflightError;
    expect(error.code).toBe('IDLE_TIMEOUT');
    expect(t.methods()).toEqual(['tools/call', 'tasks/get', 'tasks/get', 'tasks/get', 'tasks/cancel']);
  });

  it('a failed task rejects with its JSON-RPC error, with the cause a plain call would see', async () => {
    const t = await setup({ revision: '2026-07-28', pollInterval: 10 });
    t.task.status = 'failed';
    t.task.error = { code: -32001, message: 'idle', data: { cause: 'IDLE_TIMEOUT' } };
    const failed = await callTask(t.client, 'tools/call', TOOL).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(InflightError); // the same cause a plain call would see (rule 11)
    expect((failed as InflightError).origin).toBe('remote');
  });
});

const ASK_NAME = {
  method: 'elicitation/create',
  params: { mode: 'form', message: 'Name?', requestedSchema: { type: 'object', properties: {} } },
};

describe('callTask, 2026-07-28 input: before the task and while it waits', () => {
  /** A 2026-07-28 scripted server whose tasks/update answers are recorded. */
  async function modernWithUpdates(pollInterval = 100) {
    const t = await setup({ revision: '2026-07-28', pollInterval });
    const updates: Record<string, unknown>[] = [];
    t.server.setRequestHandler('tasks/update', (params) => {
      updates.push(params?.inputResponses as Record<string, unknown>);
      return {};
    });
    return { ...t, updates };
  }

  it('answers a task in input_required with tasks/update, once per key however often polls repeat it [T32 T33]', async () => {
    const t = await modernWithUpdates();
    const asked: string[][] = [];
    const call = callTask(t.client, 'tools/call', TOOL, {
      idleMs: 1_000,
      onInputRequired: (requests) => {
        asked.push(Object.keys(requests));
        return { name: { action: 'accept', content: { name: 'Ada' } } };
      },
    });
    await flush();
    Object.assign(t.task, { status: 'input_required', inputRequests: { name: ASK_NAME } });
    t.clock.advance(100); // poll: the request is new, answered at once
    await flush();
    t.clock.advance(100); // the server has not moved on yet: the same key again, not asked again
    await flush();
    expect(asked).toEqual([['name']]);
    expect(t.updates).toEqual([{ name: { action: 'accept', content: { name: 'Ada' } } }]);
    Object.assign(t.task, { status: 'input_required', inputRequests: { name: ASK_NAME, age: ASK_NAME } });
    t.clock.advance(100); // a second request comes; only it is asked
    await flush();
    expect(asked).toEqual([['name'], ['age']]);
    t.task.status = 'completed';
    t.task.inputRequests = undefined;
    t.task.result = { content: [{ type: 'text', text: 'hello Ada' }] };
    t.clock.advance(100);
    await expect(call).resolves.toEqual({ content: [{ type: 'text', text: 'hello Ada' }] });
    expect(t.methods().filter((m) => m === 'tasks/update')).toHaveLength(2);
  });

  it('the idle window does not run while input is gathered, and starts afresh after', async () => {
    const t = await modernWithUpdates();
    let answer: (value: Record<string, Record<string, unknown>>) => void = () => {};
    const call = callTask(t.client, 'tools/call', TOOL, {
      idleMs: 1_000,
      onInputRequired: () => new Promise((resolve) => (answer = resolve)),
    }).catch((e: unknown) => e);
    await flush();
    Object.assign(t.task, { status: 'input_required', inputRequests: { name: ASK_NAME } });
    t.clock.advance(100);
    await flush();
    t.clock.advance(5_000); // a person takes five idle windows to answer
    await flush();
    answer({ name: { action: 'accept', content: {} } });
    await flush();
    expect(t.updates).toHaveLength(1);
    t.task.status = 'working'; // one change (seen at the next poll), then none: the fresh window runs out
    t.task.inputRequests = undefined;
    for (let i = 0; i < 10; i++) {
      t.clock.advance(100);
      await flush();
    }
    expect(t.methods().at(-1)).toBe('tasks/get'); // 1,000 ms after the last change: not yet
    t.clock.advance(100);
    await flush();
    const error = (await call) as InflightError;
    expect(error.code).toBe('IDLE_TIMEOUT');
    expect(t.methods().at(-1)).toBe('tasks/cancel');
  });

  it('the ceiling fires while input is gathered: the handler is told, tasks/cancel goes out', async () => {
    const t = await modernWithUpdates();
    let handlerSignal: AbortSignal | undefined;
    const call = callTask(t.client, 'tools/call', TOOL, {
      idleMs: 1_000,
      ceilingMs: 3_000,
      onInputRequired: (_requests, round) => {
        handlerSignal = round.signal;
        return new Promise(() => {});
      },
    }).catch((e: unknown) => e);
    await flush();
    Object.assign(t.task, { status: 'input_required', inputRequests: { name: ASK_NAME } });
    t.clock.advance(100);
    await flush();
    t.clock.advance(2_900);
    await flush();
    const error = (await call) as InflightError;
    expect(error.code).toBe('CEILING');
    expect((error.details as TaskErrorDetails).taskCancelled).toBe(true);
    expect(handlerSignal?.aborted).toBe(true);
    expect(t.updates).toEqual([]);
    expect(t.methods().at(-1)).toBe('tasks/cancel');
    expect(t.clientEp.stats).toMatchObject({ outboundInFlight: 0 });
  });

  it('no handler for an input request: the task is cancelled and the call rejects with -32601 naming it', async () => {
    const t = await modernWithUpdates();
    const call = callTask(t.client, 'tools/call', TOOL).catch((e: unknown) => e);
    await flush();
    Object.assign(t.task, { status: 'input_required', inputRequests: { name: ASK_NAME } });
    t.clock.advance(100);
    await flush();
    const error = (await call) as JsonRpcError;
    expect(error).toBeInstanceOf(JsonRpcError);
    expect(error.code).toBe(-32601);
    expect(error.message).toMatch(/"name" \(elicitation\/create\)/);
    expect(t.methods().at(-1)).toBe('tasks/cancel');
  });

  it("a malformed input request is the server's fault: -32603, and the task is cancelled", async () => {
    const t = await modernWithUpdates();
    const call = callTask(t.client, 'tools/call', TOOL, { onInputRequired: () => ({}) }).catch(
      (e: unknown) => e,
    );
    await flush();
    Object.assign(t.task, { status: 'input_required', inputRequests: { name: { method: 'tools/call' } } });
    t.clock.advance(100);
    await flush();
    expect(((await call) as JsonRpcError).code).toBe(-32603);
    expect(t.methods().at(-1)).toBe('tasks/cancel');
  });

  it("the client's own onRequest handler answers by default, as it answers a legacy server's request", async () => {
    const t = await modernWithUpdates();
    t.clientEp.setRequestHandler('elicitation/create', (params) => ({
      action: 'accept',
      content: { echoed: (params as { message?: string }).message },
    }));
    const call = callTask(t.client, 'tools/call', TOOL);
    await flush();
    Object.assign(t.task, { status: 'input_required', inputRequests: { name: ASK_NAME } });
    t.clock.advance(100);
    await flush();
    expect(t.updates).toEqual([{ name: { action: 'accept', content: { echoed: 'Name?' } } }]);
    Object.assign(t.task, { status: 'completed', inputRequests: undefined, result: { content: [] } });
    t.clock.advance(100);
    await expect(call).resolves.toEqual({ content: [] });
  });

  it('input before the task [T36]: an input_required answer is retried with the answers, then the task runs', async () => {
    const t = await modernWithUpdates();
    const calls: Record<string, unknown>[] = [];
    t.server.setRequestHandler('tools/call', (params) => {
      calls.push(params ?? {});
      if (calls.length === 1)
        return { resultType: 'input_required', inputRequests: { name: ASK_NAME }, requestState: 's1' };
      return { resultType: 'task', ...t.task };
    });
    const call = callTask(t.client, 'tools/call', TOOL, {
      onInputRequired: () => ({ name: { action: 'accept', content: { name: 'Alice' } } }),
    });
    await flush();
    expect(calls).toHaveLength(2);
    expect(calls[1]).toMatchObject({
      name: 'work',
      inputResponses: { name: { action: 'accept', content: { name: 'Alice' } } },
      requestState: 's1',
    });
    Object.assign(t.task, { status: 'completed', result: { content: [{ type: 'text', text: 'Alice' }] } });
    t.clock.advance(100);
    await expect(call).resolves.toEqual({ content: [{ type: 'text', text: 'Alice' }] });
  });
});
