import { callTask, type TaskErrorDetails, type TaskState } from '@mcp-inflight/client/tasks';
import { InflightError, JsonRpcError } from '@mcp-inflight/core';
import { afterEach, describe, expect, it } from 'vitest';
import type { StdioClient } from '../src/index.js';
import { spawnFixture, textOf } from './helpers.js';

// callTask on 2026-07-28 against a wire-level peer (a child process) that answers with the tasks
// extension's own example messages: SDK v2 2.4.0 has the extension's header routing but no task server.

interface Line {
  method?: string;
  params?: Record<string, unknown> & { _meta?: Record<string, unknown> };
}

const open: StdioClient[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((client) => client.close()));
});

async function start(script: string): Promise<StdioClient> {
  const client = spawnFixture('ext-tasks-wire-server.mjs', { SCRIPT: script });
  open.push(client);
  expect((await client.connect()).revision).toBe('2026-07-28');
  return client;
}

async function received(client: StdioClient): Promise<Line[]> {
  return ((await client.request('fixture/received', {})) as { received: Line[] }).received;
}

const hello = { name: 'hello_world', arguments: {} };

describe('callTask against a 2026-07-28 tasks-extension peer on the wire', () => {
  it('declares the extension, polls at pollIntervalMs, and returns the completed task result', async () => {
    const client = await start('complete');
    const statuses: string[] = [];
    const result = await callTask(client, 'tools/call', hello, {
      onstatus: (task: TaskState) =>
        statuses.push(`${task.status}${task.statusMessage ? `: ${task.statusMessage}` : ''}`),
    });
    expect(textOf(result)).toBe('Hello, Luca!');
    expect(statuses).toEqual(['working', 'working: greeting the user', 'completed']);
    const lines = await received(client);
    const call = lines.find((m) => m.method === 'tools/call');
    expect(call?.params?._meta?.['io.modelcontextprotocol/clientCapabilities']).toMatchObject({
      extensions: { 'io.modelcontextprotocol/tasks': {} },
    });
    const gets = lines.filter((m) => m.method === 'tasks/get');
    expect(gets.length).toBe(3);
    // Each tasks/get declares the extension too (a non-declaring client gets -32021 [T19]).
    for (const get of gets)
      expect(get.params?._meta?.['io.modelcontextprotocol/clientCapabilities']).toBeDefined();
    expect(client.stats()).toMatchObject({ outboundTokens: 0, outboundInFlight: 0 });
  });

  it('a task deadline sends tasks/cancel and never notifications/cancelled [T11]', async () => {
    const client = await start('stall');
    const error = (await callTask(client, 'tools/call', hello, { idleMs: 150 }).catch(
      (e: unknown) => e,
    )) as InflightError;
    expect(InflightError.is(error)).toBe(true);
    expect(error.code).toBe('IDLE_TIMEOUT');
    expect(error.details as TaskErrorDetails).toMatchObject({
      taskId: '786512e2-9e0d-44bd-8f29-789f320fe840',
      taskCancelled: true,
    });
    const methods = (await received(client)).map((m) => m.method);
    expect(methods).toContain('tasks/cancel');
    expect(methods).not.toContain('notifications/cancelled');
  });

  it('a failed task rejects with its JSON-RPC error, as a plain call would', async () => {
    const client = await start('fail');
    const error = await callTask(client, 'tools/call', hello).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JsonRpcError);
    expect(error).toMatchObject({ code: -32603, message: 'API rate limit exceeded' });
  });
});
