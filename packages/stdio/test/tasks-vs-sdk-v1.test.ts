import { callTask, type TaskErrorDetails, type TaskState } from '@mcp-inflight/client/tasks';
import { InflightError } from '@mcp-inflight/core';
import { afterEach, describe, expect, it } from 'vitest';
import type { StdioClient } from '../src/index.js';
import { spawnFixture, textOf } from './helpers.js';

// Our client's callTask against a real SDK v1 McpServer with its experimental tasks (a child process
// on stdio): the peer keeps sending progress under the request's token after its CreateTaskResult.

const open: StdioClient[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((client) => client.close()));
});

function start(env: Record<string, string> = {}): StdioClient {
  const client = spawnFixture('sdk-v1-task-server.mjs', env);
  open.push(client);
  return client;
}

async function methodsSeen(client: StdioClient): Promise<string[]> {
  const text = textOf(await client.request('tools/call', { name: 'received', arguments: {} }));
  return (JSON.parse(text) as { methods: string[] }).methods;
}

const slow = (steps: number, intervalMs: number) => ({ name: 'slow', arguments: { steps, intervalMs } });

describe('callTask against the SDK v1 experimental tasks, over stdio', () => {
  it('runs a task to its end: progress after the CreateTaskResult reaches the caller, the route is released', async () => {
    const client = start();
    const handshake = await client.connect();
    expect(handshake.revision).toBe('2025-11-25');
    const progress: number[] = [];
    const statuses: string[] = [];
    const result = await callTask(client, 'tools/call', slow(4, 20), {
      ttlMs: 30_000,
      onprogress: (p) => progress.push(p.progress),
      onstatus: (task: TaskState) => statuses.push(task.status),
    });
    expect(textOf(result)).toBe('done 4');
    // Every step came after the CreateTaskResult (the SDK answers createTask before the work starts).
    expect(progress).toEqual([1, 2, 3, 4]);
    expect(statuses[0]).toBe('working');
    expect(statuses.at(-1)).toBe('completed');
    expect(client.stats()).toMatchObject({ outboundTokens: 0, outboundInFlight: 0, lateResponses: 0 });
    const methods = await methodsSeen(client);
    expect(methods).toContain('tasks/result');
    expect(methods).not.toContain('notifications/cancelled');
  });

  it('an idle deadline on a task sends tasks/cancel, not notifications/cancelled; the task ends cancelled', async () => {
    const client = start();
    await client.connect();
    const error = (await callTask(client, 'tools/call', slow(50, 400), { idleMs: 150 }).catch(
      (e: unknown) => e,
    )) as InflightError;
    expect(InflightError.is(error)).toBe(true);
    expect(error.code).toBe('IDLE_TIMEOUT');
    expect(error.details as TaskErrorDetails).toMatchObject({ taskCancelled: true });
    const taskId = (error.details as TaskErrorDetails).taskId;
    const methods = await methodsSeen(client);
    expect(methods).toContain('tasks/cancel');
    expect(methods).not.toContain('notifications/cancelled');
    await expect(client.request('tasks/get', { taskId })).resolves.toMatchObject({ status: 'cancelled' });
    expect(client.stats().outboundTokens).toBe(0);
  });

  it('a server without tasks.cancel: the caller is told the task could not be cancelled; nothing is sent', async () => {
    const client = start({ NO_CANCEL: '1' });
    await client.connect();
    const stop = new AbortController();
    const call = callTask(client, 'tools/call', slow(50, 50), { signal: stop.signal }).catch(
      (e: unknown) => e,
    );
    setTimeout(() => stop.abort(), 120);
    const error = (await call) as InflightError;
    expect(error.code).toBe('CANCELLED');
    expect(error.message).toMatch(/could not be cancelled/);
    expect(error.details as TaskErrorDetails).toMatchObject({ taskCancelled: false });
    const methods = await methodsSeen(client);
    expect(methods).not.toContain('tasks/cancel');
    expect(methods).not.toContain('notifications/cancelled');
    expect(client.stats().outboundTokens).toBe(0);
  });
});
