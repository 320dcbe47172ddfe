// The host's call runner against a real core server endpoint, in memory, on a ManualClock.
import { Endpoint, InflightError } from '@mcp-inflight/core';
import type { JsonRpcMessage } from '@mcp-inflight/core/adapter';
import { ManualClock } from '@mcp-inflight/core/testing';
import { describe, expect, it } from 'vitest';
import { runCalls } from '../src/runner.js';

function pair(clock: ManualClock) {
  const toServer: JsonRpcMessage[] = [];
  let server!: Endpoint;
  const client = new Endpoint({
    role: 'client',
    transport: 'stdio',
    clock,
    revision: '2025-06-18',
    channel: {
      write: (m) => {
        const copy = JSON.parse(JSON.stringify(m)) as JsonRpcMessage;
        toServer.push(copy);
        queueMicrotask(() => server.receive(copy));
      },
    },
  });
  server = new Endpoint({
    role: 'server',
    transport: 'stdio',
    clock,
    revision: '2025-06-18',
    channel: { write: (m) => queueMicrotask(() => client.receive(JSON.parse(JSON.stringify(m)))) },
  });
  // `work` ticks on the manual clock; `limited` answers the way a proxy does when its idle limit fires.
  server.setRequestHandler('tools/call', (params, ctx) => {
    const { steps, intervalMs } = (params?.arguments ?? {}) as { steps: number; intervalMs: number };
    if (params?.name === 'limited') throw InflightError.idle(800, { progressCount: 0 });
    return new Promise((resolve, reject) => {
      let step = 0;
      const tick = () => {
        ctx.progress(++step, steps, `step ${step}`);
        if (step >= steps) resolve({ content: [{ type: 'text', text: `done ${steps}` }] });
        else timer = clock.setTimer(tick, intervalMs);
      };
      let timer = clock.setTimer(tick, intervalMs);
      ctx.signal.addEventListener('abort', () => {
        timer.clear();
        reject(ctx.signal.reason);
      });
    });
  });
  return { client, server, toServer };
}

const turn = async () => {
  for (let i = 0; i < 10; i++) await new Promise<void>((r) => setImmediate(r));
};

describe('runCalls', () => {
  it('runs calls at once, tracks progress, and says why each ended', async () => {
    const clock = new ManualClock();
    const { client, toServer } = pair(clock);
    const ended: string[] = [];
    const running = runCalls(
      client,
      [
        { tool: 'work', args: { steps: 3, intervalMs: 100 }, label: 'done' },
        { tool: 'work', args: { steps: 50, intervalMs: 100 }, label: 'stopped', cancelAfterMs: 250 },
        { tool: 'limited', args: {}, label: 'limited' },
        { tool: 'work', args: { steps: 1, intervalMs: 10_000 }, label: 'slow' },
      ],
      { clock, idleMs: 1_000, onEnd: (v) => ended.push(v.label) },
    );
    await turn(); // the requests reach the server at t=0
    for (let t = 0; t < 1_000; t += 50) {
      clock.advance(50);
      await turn();
    }
    const [done, stopped, limited, slow] = await running.done;
    expect(done).toMatchObject({
      updates: 3,
      progress: 3,
      total: 3,
      message: 'step 3',
      outcome: { kind: 'completed', detail: 'done 3' },
    });
    expect(stopped).toMatchObject({ updates: 2, outcome: { kind: 'cancelled', by: 'you' } });
    expect(stopped?.endedAt).toBe(250);
    expect(limited?.outcome).toMatchObject({ kind: 'idle-timeout', by: 'server', cause: 'IDLE_TIMEOUT' });
    expect(slow?.outcome).toMatchObject({ kind: 'idle-timeout', by: 'host' });
    expect(ended).toEqual(['limited', 'stopped', 'done', 'slow']);
    // The user's cancel went on the wire with its reason (stdio: the notification [CN25]).
    const cancels = toServer
      .filter((m) => m.method === 'notifications/cancelled')
      .map((m) => (m.params as { reason: string }).reason);
    expect(cancels[0]).toBe('CANCELLED: cancelled by the caller: the user pressed stop');
  });

  it('cancelAll cancels only what is still running, as the user', async () => {
    const clock = new ManualClock();
    const { client } = pair(clock);
    const running = runCalls(
      client,
      [
        { tool: 'work', args: { steps: 1, intervalMs: 10 } },
        { tool: 'work', args: { steps: 9, intervalMs: 100 } },
      ],
      { clock },
    );
    await turn();
    clock.advance(10);
    await turn();
    expect(running.cancelAll('you pressed Ctrl-C')).toBe(1);
    const views = await running.done;
    expect(views.map((v) => v.outcome?.kind)).toEqual(['completed', 'cancelled']);
    expect(views[1]?.label).toBe('work#2');
  });
});
