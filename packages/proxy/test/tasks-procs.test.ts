// Tasks through the built proxy, end to end with real processes and sockets: the proxy in front of
// the package's fixture upstream `fixtures/tool-server.mjs --tasks` (run `pnpm build` first). A host on stdio gets the task's
// progress after the CreateTaskResult; two HTTP hosts are isolated from each other's tasks.

import { callTask, type TaskState } from '@mcp-inflight/client/tasks';
import { type CallToolResult, JsonRpcError } from '@mcp-inflight/core';
import { HttpClient } from '@mcp-inflight/http';
import { type StdioClient, spawnStdio } from '@mcp-inflight/stdio';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { commandLine, PROXY, SERVER, startProxy } from './procs.js';

const UPSTREAM = commandLine(process.execPath, SERVER, '--tasks');
const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

const work = (steps: number, intervalMs: number) => ({ name: 'work', arguments: { steps, intervalMs } });
const textOf = (result: unknown): string => String((result as CallToolResult).content[0]?.text);

/** The proxy on stdio; `upstreamRevision` pins its upstream leg (default: auto, 2026-07-28 here). */
function proxyOnStdio(upstreamRevision = 'auto'): StdioClient {
  const client = spawnStdio(
    {
      command: process.execPath,
      args: [PROXY, '--upstream-stdio', UPSTREAM, '--upstream-revision', upstreamRevision],
    },
    { stderr: 'capture' },
  );
  closers.push(() => client.close());
  return client;
}

describe('tasks through the proxy process', () => {
  it('2025-11-25 on both legs: progress after the CreateTaskResult, the status and the result come through', async () => {
    const host = proxyOnStdio('2025-11-25');
    const handshake = await host.connect({ revision: '2025-11-25' });
    expect(handshake.capabilities.tasks).toMatchObject({ cancel: {}, requests: { tools: { call: {} } } });
    const progress: number[] = [];
    const statuses: string[] = [];
    const result = await callTask(host, 'tools/call', work(3, 40), {
      onprogress: (p) => progress.push(p.progress),
      onstatus: (task: TaskState) => statuses.push(task.status),
    });
    expect(textOf(result)).toBe('done 3 steps');
    // Strictly increasing and ending at the last step; the proxy may coalesce two that arrive within its
    // 50 ms interval (keeping the latest), as a loaded machine delivers them (rule 2).
    expect(progress.at(-1)).toBe(3);
    expect(progress.every((p, i) => i === 0 || p > (progress[i - 1] ?? 0))).toBe(true);
    expect(statuses.at(-1)).toBe('completed');
    expect(host.stats()).toMatchObject({ outboundTokens: 0, outboundInFlight: 0 });
  });

  it('a 2025-11-25 host on a 2026-07-28 upstream: the proxy bridges the shapes (no progress exists upstream)', async () => {
    const host = proxyOnStdio();
    await host.connect({ revision: '2025-11-25' });
    const statuses: string[] = [];
    const result = (await callTask(host, 'tools/call', work(3, 40), {
      onstatus: (task: TaskState) => statuses.push(task.status),
    })) as CallToolResult;
    expect(textOf(result)).toBe('done 3 steps');
    expect(Object.keys(result._meta ?? {})).toEqual(['io.modelcontextprotocol/related-task']);
    expect(statuses).toEqual(['working', 'completed']);
    const cancelled = await callTask(host, 'tools/call', work(50, 100), { ceilingMs: 400 }).catch(
      (e: unknown) => e,
    );
    expect(cancelled).toMatchObject({ code: 'CEILING', details: { taskCancelled: true } });
  });

  it('a 2025-11-25 host on a 2026-07-28 upstream task that asks for input: asked on its tasks/result, answered upstream', async () => {
    const host = spawnStdio(
      {
        command: process.execPath,
        args: [PROXY, '--upstream-stdio', UPSTREAM, '--upstream-revision', 'auto'],
      },
      { stderr: 'capture', capabilities: { elicitation: {} } },
    );
    closers.push(() => host.close());
    const metas: unknown[] = [];
    host.onRequest('elicitation/create', (params) => {
      metas.push(params?._meta);
      return { action: 'accept', content: { confirm: true } };
    });
    await host.connect({ revision: '2025-11-25' });
    const statuses: string[] = [];
    const result = await callTask(
      host,
      'tools/call',
      { name: 'confirm', arguments: { action: 'old' } },
      {
        onstatus: (task: TaskState) => statuses.push(task.status),
      },
    );
    expect(textOf(result)).toBe('confirmed: old');
    expect(statuses).toContain('input_required');
    // The request came as the task's [T5], once.
    expect(metas).toHaveLength(1);
    expect(metas[0]).toMatchObject({
      'io.modelcontextprotocol/related-task': { taskId: expect.any(String) },
    });
  });

  it('a 2025-11-25 host that cannot answer the bridged task: its tasks/result fails with -32601', async () => {
    const host = proxyOnStdio();
    await host.connect({ revision: '2025-11-25' });
    const error = await callTask(host, 'tools/call', { name: 'confirm', arguments: { action: 'no' } }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(JsonRpcError);
    expect((error as JsonRpcError).code).toBe(-32601);
  });

  it('2026-07-28 host on stdio: a task that asks for input; the host answers through tasks/update, relayed', async () => {
    const host = spawnStdio(
      {
        command: process.execPath,
        args: [PROXY, '--upstream-stdio', UPSTREAM, '--upstream-revision', 'auto'],
      },
      { stderr: 'capture', capabilities: { elicitation: {} } },
    );
    closers.push(() => host.close());
    expect((await host.connect()).revision).toBe('2026-07-28');
    const asked: string[] = [];
    const statuses: string[] = [];
    const result = await callTask(
      host,
      'tools/call',
      { name: 'confirm', arguments: { action: 'ship' } },
      {
        pollMs: 50,
        onInputRequired: (requests) => {
          asked.push(...Object.keys(requests));
          return { confirm: { action: 'accept', content: { confirm: true } } };
        },
        onstatus: (task: TaskState) => statuses.push(task.status),
      },
    );
    expect(textOf(result)).toBe('confirmed: ship');
    expect(asked).toEqual(['confirm']);
    expect(statuses).toContain('input_required');
    expect(host.stats()).toMatchObject({ outboundInFlight: 0 });
  });

  it('2026-07-28 host on stdio: the extension is relayed, status messages keep the call alive', async () => {
    const host = proxyOnStdio();
    expect((await host.connect()).revision).toBe('2026-07-28');
    const messages: string[] = [];
    const result = await callTask(host, 'tools/call', work(3, 250), {
      idleMs: 1_500,
      onstatus: (task: TaskState) => messages.push(task.statusMessage ?? task.status),
    });
    expect(textOf(result)).toBe('done 3 steps');
    expect(messages.some((m) => m.startsWith('step '))).toBe(true);
  });

  it('the SDK v1 Client in front of the proxy runs a task with its experimental API', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [PROXY, '--upstream-stdio', UPSTREAM, '--upstream-revision', '2025-11-25'],
    });
    const client = new Client({ name: 'sdk-v1-host', version: '1.0.0' });
    await client.connect(transport);
    closers.push(() => client.close());
    const progress: number[] = [];
    const kinds: string[] = [];
    let result: unknown;
    for await (const message of client.experimental.tasks.callToolStream(work(3, 40), CallToolResultSchema, {
      task: { ttl: 10_000 },
      onprogress: (p) => progress.push(p.progress),
    })) {
      kinds.push(message.type);
      if (message.type === 'result') result = message.result;
    }
    expect(kinds[0]).toBe('taskCreated');
    expect(textOf(result)).toBe('done 3 steps');
    expect(progress).toEqual([1, 2, 3]);
  });

  it('two HTTP hosts: one cannot get, cancel or list the other task; the owner runs it to its end', async () => {
    const proxy = await startProxy(['--upstream-stdio', UPSTREAM]);
    closers.push(() => proxy.kill());
    const a = new HttpClient({ url: proxy.url, revision: '2025-11-25' });
    const b = new HttpClient({ url: proxy.url, revision: '2025-11-25' });
    closers.push(
      () => a.close(),
      () => b.close(),
    );
    await a.connect();
    await b.connect();
    let taskId = '';
    const call = callTask(a, 'tools/call', work(4, 100), {
      onstatus: (task: TaskState) => {
        taskId = task.taskId;
      },
    });
    await expect.poll(() => taskId, { timeout: 20_000 }).not.toBe('');
    const codeOf = (p: Promise<unknown>) =>
      p.then(
        () => 'answered',
        (e: unknown) => (e instanceof JsonRpcError ? e.code : String(e)),
      );
    expect(await codeOf(b.request('tasks/get', { taskId }))).toBe(-32602);
    expect(await codeOf(b.request('tasks/cancel', { taskId }))).toBe(-32602);
    await expect(b.request('tasks/list', {})).resolves.toEqual({ tasks: [] });
    await expect(a.request('tasks/get', { taskId })).resolves.toMatchObject({ taskId });
    expect(textOf(await call)).toBe('done 4 steps');
  });
});
