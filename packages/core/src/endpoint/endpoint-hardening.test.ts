import { describe, expect, it } from 'vitest';
import type { Clock } from '../clock/clock.js';
import { ManualClock } from '../clock/manual-clock.js';
import type { InflightError } from '../errors/inflight-error.js';
import { ProgressRelay } from '../relay/progress-relay.js';
import { Endpoint } from './endpoint.js';
import type { JsonRpcMessage } from './messages.js';

// Edge cases found in review: each test failed before its fix.

const drain = async (): Promise<void> => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
};

function serverWith(
  writes: JsonRpcMessage[],
  extra: Partial<ConstructorParameters<typeof Endpoint>[0]> = {},
) {
  return new Endpoint({
    role: 'server',
    transport: 'stdio',
    channel: { write: (m) => writes.push(m as JsonRpcMessage) },
    ...extra,
  });
}

describe('Endpoint hardening', () => {
  it('two endpoints never answer each other’s errors: one bad line costs one reply', async () => {
    let client!: Endpoint;
    let server!: Endpoint;
    let messages = 0;
    server = new Endpoint({
      role: 'server',
      transport: 'stdio',
      channel: { write: (m) => (messages++ < 100 ? client.receiveText(JSON.stringify(m)) : undefined) },
    });
    client = new Endpoint({
      role: 'client',
      transport: 'stdio',
      channel: { write: (m) => (messages++ < 100 ? server.receiveText(JSON.stringify(m)) : undefined) },
    });
    server.receiveText('not json');
    await drain();
    expect(messages).toBe(1);
  });

  it('never answers a malformed notification or a malformed response [CN15]', async () => {
    const writes: JsonRpcMessage[] = [];
    const server = serverWith(writes);
    server.receiveText('{"jsonrpc":"2.0","method":"notifications/cancelled","params":"oops"}');
    server.receiveText('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}');
    server.receiveText('{"jsonrpc":"2.0","id":5,"error":"boom"}');
    await drain();
    expect(writes).toEqual([]);
  });

  it('a 2026-07-28 client writes no responses, even to garbage [S5]', async () => {
    const writes: JsonRpcMessage[] = [];
    const client = new Endpoint({
      role: 'client',
      transport: 'stdio',
      revision: '2026-07-28',
      channel: { write: (m) => writes.push(m as JsonRpcMessage) },
    });
    client.receiveText('{"jsonrpc":"2.0","id":5,"method":5}');
    client.receiveText('[1,2]');
    await drain();
    expect(writes).toEqual([]);
  });

  it('a channel that throws while cancelling still rejects the call and keeps other deadlines armed', async () => {
    const clock = new ManualClock();
    let broken = false;
    const client = new Endpoint({
      role: 'client',
      transport: 'stdio',
      clock,
      channel: {
        write: (m) => {
          if (broken && (m as JsonRpcMessage).method === 'notifications/cancelled')
            throw new Error('socket gone');
        },
      },
    });
    const bad = client.request('slow', {}, { ceilingMs: 100 }).catch((e: InflightError) => e.code);
    const good = client.request('slow', {}, { ceilingMs: 200 }).catch((e: InflightError) => e.code);
    broken = true;
    expect(() => clock.advance(100)).not.toThrow();
    await expect(bad).resolves.toBe('CEILING');
    clock.advance(100);
    await expect(good).resolves.toBe('CEILING');
    expect(client.stats.errors).toBe(2);
  });

  it('a timer callback that throws does not strand the shared queue', () => {
    const clock = new ManualClock();
    const relay = new ProgressRelay({ clock });
    let fired = 0;
    relay.queue.schedule(10, () => {
      throw new Error('bug');
    });
    relay.queue.schedule(10, () => fired++);
    relay.queue.schedule(20, () => fired++);
    expect(() => clock.advance(10)).toThrow('bug');
    expect(fired).toBe(1);
    clock.advance(10);
    expect(fired).toBe(2);
  });

  it('settling requests oldest-first arms no new timer', async () => {
    let armed = 0;
    const inner = new ManualClock();
    const clock: Clock = {
      now: () => inner.now(),
      setTimer: (fn, ms) => {
        armed++;
        return inner.setTimer(fn, ms);
      },
    };
    const writes: JsonRpcMessage[] = [];
    const client = new Endpoint({
      role: 'client',
      transport: 'stdio',
      clock,
      channel: { write: (m) => writes.push(m as JsonRpcMessage) },
    });
    const calls = Array.from({ length: 100 }, (_, i) => {
      inner.advance(1);
      return client.request('x', {}, { idleMs: 1_000 + i });
    });
    const before = armed;
    for (const m of writes) client.receive({ jsonrpc: '2.0', id: m.id, result: {} });
    await Promise.all(calls);
    expect(armed - before).toBe(0);
  });

  it('progress closes with close(), also a 2025-11-25 task route kept past its response [PG14]', async () => {
    const writes: JsonRpcMessage[] = [];
    const server = serverWith(writes, { revision: '2025-11-25' });
    let report!: (n: number) => boolean;
    server.setRequestHandler('tools/call', (_p, ctx) => {
      report = (n) => ctx.progress(n);
      return { task: { taskId: 't1', status: 'working' } };
    });
    server.receiveText(
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"task":{},"_meta":{"progressToken":"p"}}}',
    );
    await drain();
    expect(report(1)).toBe(true); // the task's token stays live after CreateTaskResult
    server.close();
    expect(report(2)).toBe(false);
    expect(writes.filter((m) => m.method === 'notifications/progress')).toHaveLength(1);
    expect(server.progressRelay.stats.openRoutes).toBe(0);
  });

  it('a result that only looks like a task, for a request that asked for none, closes its route', async () => {
    const writes: JsonRpcMessage[] = [];
    const server = serverWith(writes, { revision: '2025-11-25' });
    let report!: (n: number) => boolean;
    server.setRequestHandler('tools/call', (_p, ctx) => {
      report = (n) => ctx.progress(n);
      return { task: { note: 'a field of the tool result' } };
    });
    server.receiveText(
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"progressToken":"p"}}}',
    );
    await drain();
    expect(report(1)).toBe(false);
    expect(server.progressRelay.stats.openRoutes).toBe(0);
  });

  it('an early cancel does not kill initialize [CN7]', async () => {
    const writes: JsonRpcMessage[] = [];
    const server = serverWith(writes);
    server.setRequestHandler('initialize', () => ({ protocolVersion: '2025-06-18', capabilities: {} }));
    server.receiveText('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":0}}');
    server.receiveText(
      '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}',
    );
    await drain();
    expect(writes).toHaveLength(1);
    expect(server.revision).toBe('2025-06-18');
  });

  it('a thrown value that cannot be described still gets -32603, and nothing is left unhandled', async () => {
    const writes: JsonRpcMessage[] = [];
    const server = serverWith(writes);
    server.setRequestHandler('odd', () => {
      throw Object.create(null);
    });
    server.receiveText('{"jsonrpc":"2.0","id":1,"method":"odd"}');
    await drain();
    expect(writes).toEqual([{ jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'Internal error' } }]);
  });

  it("a handler's own progress keeps its idle limit alive even without a token", async () => {
    const clock = new ManualClock();
    const writes: JsonRpcMessage[] = [];
    const server = serverWith(writes, { clock, handlerIdleMs: 100 });
    let report!: (n: number) => void;
    server.setRequestHandler('work', (_p, ctx) => {
      report = (n) => ctx.progress(n);
      return new Promise(() => {});
    });
    server.receiveText('{"jsonrpc":"2.0","id":1,"method":"work"}');
    await drain();
    for (let i = 1; i <= 5; i++) {
      clock.advance(90);
      report(i);
    }
    expect(writes).toEqual([]); // alive at 450 ms, and no notification without a token
    clock.advance(100);
    await drain();
    expect((writes[0]?.error as { data: { cause: string } } | undefined)?.data.cause).toBe('IDLE_TIMEOUT');
  });

  it('2024-11-05 progress with a non-string message still counts (the revision has no message) ', async () => {
    const writes: JsonRpcMessage[] = [];
    const client = new Endpoint({
      role: 'client',
      transport: 'stdio',
      revision: '2024-11-05',
      channel: { write: (m) => writes.push(m as JsonRpcMessage) },
    });
    const seen: number[] = [];
    const call = client.request('x', {}, { onprogress: (p) => seen.push(p.progress) });
    client.receive({
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken: 0, progress: 1, message: 5 },
    });
    client.receive({ jsonrpc: '2.0', id: 0, result: {} });
    await call;
    expect(seen).toEqual([1]);
  });

  it('a task-augmented call that times out before its CreateTaskResult is still a request: cancelled as one', async () => {
    const clock = new ManualClock();
    const writes: JsonRpcMessage[] = [];
    const client = new Endpoint({
      role: 'client',
      transport: 'stdio',
      revision: '2025-11-25',
      clock,
      channel: { write: (m) => writes.push(m as JsonRpcMessage) },
    });
    const call = client
      .request('tools/call', { task: {} }, { ceilingMs: 50 })
      .catch((e: InflightError) => e.code);
    clock.advance(50);
    await expect(call).resolves.toBe('CEILING');
    // No task id exists yet, so there is nothing tasks/cancel could name [CN16]: the request is cancelled.
    expect(writes.map((m) => m.method)).toEqual(['tools/call', 'notifications/cancelled']);
  });
});
