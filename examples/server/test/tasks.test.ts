import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { callTask, type TaskState } from '@mcp-inflight/client/tasks';
import { type CallToolResult, JsonRpcError } from '@mcp-inflight/core';
import { HttpClient } from '@mcp-inflight/http';
import { type StdioClient, spawnStdio } from '@mcp-inflight/stdio';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { spawnExampleServer } from './fixtures/spawn-example.js';

/**
 * The auto connect's server/discover probe waits 5 s by default before it reads silence as a legacy
 * server; a child process starting beside other suites can take that long to answer its first request.
 */
const SLOW_START = { probeTimeoutMs: 60_000 };

// `node examples/server/dist/index.js --tasks` as a task receiver, driven by the official SDK v1 Client's
// experimental tasks and by our callTask, on both task revisions (run `pnpm build` first).

const SERVER = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const closers: Array<() => Promise<void>> = [];
beforeAll(() => {
  if (!existsSync(SERVER)) throw new Error(`${SERVER} is missing: run \`pnpm build\` first`);
});
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

function ours(): StdioClient {
  const client = spawnStdio({ command: process.execPath, args: [SERVER, '--tasks'] }, { stderr: 'capture' });
  closers.push(() => client.close());
  return client;
}

const work = (steps: number, intervalMs: number) => ({ name: 'work', arguments: { steps, intervalMs } });
const textOf = (result: unknown): string => String((result as CallToolResult).content[0]?.text);

describe('the example server with --tasks', () => {
  it('serves the SDK v1 Client: task created, progress after it, then the result via tasks/result', async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [SERVER, '--tasks'] });
    const client = new Client({ name: 'sdk-v1-tasks', version: '1.0.0' });
    await client.connect(transport);
    closers.push(() => client.close());
    expect(client.getServerCapabilities()?.tasks).toMatchObject({
      cancel: {},
      requests: { tools: { call: {} } },
    });
    const progress: number[] = [];
    const kinds: string[] = [];
    let result: unknown;
    const stream = client.experimental.tasks.callToolStream(work(3, 30), CallToolResultSchema, {
      task: { ttl: 10_000 },
      onprogress: (p) => progress.push(p.progress),
    });
    for await (const message of stream) {
      kinds.push(message.type);
      if (message.type === 'result') result = message.result;
    }
    expect(kinds[0]).toBe('taskCreated');
    expect(kinds.at(-1)).toBe('result');
    expect(textOf(result)).toBe('done 3 steps');
    expect(progress).toEqual([1, 2, 3]);
  });

  it('2025-11-25 with our callTask: progress after the CreateTaskResult, status notifications, the result', async () => {
    const client = ours();
    await client.connect({ revision: '2025-11-25' });
    const progress: number[] = [];
    const statuses: string[] = [];
    const result = await callTask(client, 'tools/call', work(3, 30), {
      onprogress: (p) => progress.push(p.progress),
      onstatus: (task: TaskState) => statuses.push(task.status),
    });
    expect(textOf(result)).toBe('done 3 steps');
    expect(progress).toEqual([1, 2, 3]);
    expect(statuses).toEqual(['working', 'completed']);
    expect(client.stats()).toMatchObject({ outboundTokens: 0, outboundInFlight: 0 });
  });

  it('2026-07-28 with our callTask: the extension, status messages instead of progress, the inline result', async () => {
    const client = ours();
    expect((await client.connect(SLOW_START)).revision).toBe('2026-07-28');
    const progress: number[] = [];
    const messages: string[] = [];
    const result = await callTask(client, 'tools/call', work(3, 250), {
      idleMs: 1_000, // each step's status message keeps the call alive; no progress exists here [T13]
      onprogress: (p) => progress.push(p.progress),
      onstatus: (task: TaskState) => messages.push(task.statusMessage ?? task.status),
    });
    expect(textOf(result)).toBe('done 3 steps');
    expect(progress).toEqual([]);
    expect(messages.some((m) => m.startsWith('step '))).toBe(true);
  });

  it('a deadline cancels the task (tasks/cancel), and the tool sees it: status counts it cancelled', async () => {
    const client = ours();
    await client.connect({ revision: '2025-11-25' });
    const error = await callTask(client, 'tools/call', work(100, 200), { ceilingMs: 300 }).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: 'CEILING', details: { taskCancelled: true } });
    await expect
      .poll(async () => JSON.parse(textOf(await client.callTool('status', {}))).cancelled, {
        timeout: 20_000,
      })
      .toBe(1);
  });

  it('a task expires with its TTL: afterwards tasks/get answers -32602', async () => {
    const client = ours();
    await client.connect({ revision: '2025-11-25' });
    const created = (await client.request('tools/call', { ...work(1, 0), task: { ttl: 3_000 } })) as {
      task: { taskId: string; ttl: number };
    };
    // 3 s: long enough that the first tasks/get finds it on a busy machine (200 ms was not).
    expect(created.task.ttl).toBe(3_000);
    await expect(client.request('tasks/get', { taskId: created.task.taskId })).resolves.toMatchObject({
      status: expect.any(String),
    });
    await expect
      .poll(
        async () =>
          client.request('tasks/get', { taskId: created.task.taskId }).then(
            () => 'kept',
            (e: unknown) => (e instanceof JsonRpcError ? e.code : 'other'),
          ),
        { timeout: 20_000, interval: 50 },
      )
      .toBe(-32602);
  });

  it('2026-07-28 over loopback HTTP: stateless requests find the task (Mcp-Name carries its id), a cancel reaches it', async () => {
    const server = await spawnExampleServer(['--tasks']);
    closers.push(() => server.stop());
    const client = new HttpClient({ url: server.url });
    closers.push(() => client.close());
    expect((await client.connect(SLOW_START)).revision).toBe('2026-07-28');
    const result = await callTask(client, 'tools/call', work(2, 50));
    expect(textOf(result)).toBe('done 2 steps');
    const error = await callTask(client, 'tools/call', work(100, 100), { ceilingMs: 400 }).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: 'CEILING', details: { taskCancelled: true } });
    await expect
      .poll(async () => JSON.parse(textOf(await client.callTool('status', {}))).cancelled, {
        timeout: 20_000,
      })
      .toBe(1);
  });

  it('2026-07-28: confirm as a task waits in input_required; the host answers through tasks/update, slower than the idle window', async () => {
    // The host declares elicitation (confirm asks only a client that can answer [MR8]); callTask keeps it
    // beside the tasks extension on every request.
    const client = spawnStdio(
      { command: process.execPath, args: [SERVER, '--tasks'] },
      { stderr: 'capture', capabilities: { elicitation: {} } },
    );
    closers.push(() => client.close());
    client.onRequest('elicitation/create', async (params) => {
      // A person answering, no progress meanwhile: twice the idle window. The window is 1.5 s, not 300 ms:
      // between status changes the work itself must fit in it, and on a busy machine 300 ms did not.
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      return {
        action: 'accept',
        content: { confirm: (params as { message?: string }).message !== undefined },
      };
    });
    expect((await client.connect(SLOW_START)).revision).toBe('2026-07-28');
    const statuses: string[] = [];
    const result = await callTask(
      client,
      'tools/call',
      { name: 'confirm', arguments: { action: 'deploy' } },
      {
        idleMs: 1_500,
        pollMs: 50,
        onstatus: (task: TaskState) => statuses.push(task.status),
      },
    );
    expect(textOf(result)).toBe('confirmed: deploy');
    expect(statuses).toContain('input_required');
    expect(statuses.at(-1)).toBe('completed');
    expect(client.stats()).toMatchObject({ outboundInFlight: 0 });
  });

  it('2026-07-28 over loopback HTTP: a declined confirm task completes declined; a host that cannot answer cancels it', async () => {
    const server = await spawnExampleServer(['--tasks']);
    closers.push(() => server.stop());
    const client = new HttpClient({ url: server.url, capabilities: { elicitation: {} } });
    closers.push(() => client.close());
    await client.connect(SLOW_START);
    const asked: string[] = [];
    const declined = await callTask(
      client,
      'tools/call',
      { name: 'confirm', arguments: { action: 'drop' } },
      {
        onInputRequired: (requests) => {
          asked.push(...Object.keys(requests));
          return { confirm: { action: 'decline' } };
        },
      },
    );
    expect(textOf(declined)).toBe('declined: drop');
    expect(asked).toEqual(['confirm']);
    // No onInputRequired and no elicitation handler: -32601 naming the request, and the task is cancelled.
    const error = await callTask(client, 'tools/call', { name: 'confirm', arguments: { action: 'x' } }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(JsonRpcError);
    expect((error as JsonRpcError).code).toBe(-32601);
  });

  it('2025-11-25: confirm as a task is input_required while the host answers its elicitation/create [T37 T5]', async () => {
    const client = spawnStdio(
      { command: process.execPath, args: [SERVER, '--tasks'] },
      { stderr: 'capture', capabilities: { elicitation: {} } },
    );
    closers.push(() => client.close());
    const statusWhileAsked: string[] = [];
    const statuses: string[] = [];
    const metas: unknown[] = [];
    client.onRequest('elicitation/create', async (params) => {
      metas.push(params?._meta);
      // The outcome, whatever the order in which the status notification and this request arrived: while
      // the input is outstanding, the server says the task is input_required.
      const related = (params?._meta as Record<string, { taskId?: unknown }> | undefined)?.[
        'io.modelcontextprotocol/related-task'
      ];
      const task = (await client.request('tasks/get', { taskId: related?.taskId })) as { status: string };
      statusWhileAsked.push(task.status);
      return { action: 'accept', content: { confirm: true } };
    });
    await client.connect({ revision: '2025-11-25' });
    const result = await callTask(
      client,
      'tools/call',
      { name: 'confirm', arguments: { action: 'tag' } },
      {
        onstatus: (task: TaskState) => statuses.push(task.status),
      },
    );
    expect(textOf(result)).toBe('confirmed: tag');
    expect(statusWhileAsked).toEqual(['input_required']);
    // Created working, ended completed; whether the caller also saw input_required go by depends on when
    // the status notification arrived relative to the creation, so it is not asserted.
    expect(statuses[0]).toBe('working');
    expect(statuses.at(-1)).toBe('completed');
    // The request says which task it is about [T5].
    expect(metas[0]).toMatchObject({
      'io.modelcontextprotocol/related-task': { taskId: expect.any(String) },
    });
  });

  it('the SDK v1 Client runs confirm as a task with its experimental API, answering the elicitation', async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [SERVER, '--tasks'] });
    const client = new Client(
      { name: 'sdk-v1-tasks', version: '1.0.0' },
      { capabilities: { elicitation: {} } },
    );
    client.setRequestHandler(ElicitRequestSchema, async () => ({
      action: 'accept',
      content: { confirm: true },
    }));
    await client.connect(transport);
    closers.push(() => client.close());
    const kinds: string[] = [];
    let result: unknown;
    const stream = client.experimental.tasks.callToolStream(
      { name: 'confirm', arguments: { action: 'sdk' } },
      CallToolResultSchema,
      { task: { ttl: 10_000 } },
    );
    for await (const message of stream) {
      kinds.push(message.type === 'taskStatus' ? `status:${message.task.status}` : message.type);
      if (message.type === 'result') result = message.result;
    }
    expect(textOf(result)).toBe('confirmed: sdk');
    expect(kinds[0]).toBe('taskCreated');
    expect(kinds.at(-1)).toBe('result');
  });
});
