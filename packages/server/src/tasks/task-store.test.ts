import { Endpoint } from '@mcp-inflight/core';
import { ManualClock } from '@mcp-inflight/core/testing';
import { describe, expect, it } from 'vitest';
import { ownerKeyOf, TaskStore } from './task-store.js';
import { taskStoreContract } from './task-store-contract.js';

// Every store passes the one contract; this is the embedded default's run.
taskStoreContract('TaskStore (in memory)', { describe, it }, (settings) => new TaskStore(settings));

describe('TaskStore, in memory', () => {
  it('reads synchronously for tests in one process: an endpoint stands for its owner key', async () => {
    const store = new TaskStore({ clock: new ManualClock() });
    const endpoint = new Endpoint({ role: 'server', transport: 'stdio', channel: { write: () => {} } });
    const other = new Endpoint({ role: 'server', transport: 'stdio', channel: { write: () => {} } });
    const task = await store.createTask(ownerKeyOf(endpoint), undefined);
    expect(store.list(endpoint).map((t) => t.taskId)).toEqual([task?.taskId]);
    expect(store.get(endpoint, task?.taskId ?? '')?.status).toBe('working');
    expect(store.list(other)).toEqual([]);
    expect(store.size).toBe(1);
  });

  it('clear ends every running task as expired for its watchers and forgets them all', async () => {
    const store = new TaskStore({ clock: new ManualClock() });
    const task = await store.createTask(undefined, undefined);
    const seen: string[] = [];
    await store.watchTask(task?.taskId ?? '', (t) => seen.push(t.status));
    store.clear();
    expect(seen).toEqual(['failed']);
    expect(store.size).toBe(0);
    expect((store.clock as ManualClock).pendingTimers).toBe(0);
  });
});
