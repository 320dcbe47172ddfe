// The host's report tallies its endpoint's event stream: real core endpoints joined in memory, ManualClock.
import { Endpoint, InflightError, ProgressRelay, type TransportKind } from '@mcp-inflight/core';
import type { Channel } from '@mcp-inflight/core/adapter';
import { ManualClock } from '@mcp-inflight/core/testing';
import { expect, it } from 'vitest';
import { toReport } from '../src/report.js';
import { runCalls } from '../src/runner.js';
import { tallyWire } from '../src/wire-tally.js';

const drain = async (): Promise<void> => {
  for (let i = 0; i < 20; i++) await Promise.resolve();
};

function pair(transport: TransportKind) {
  const clock = new ManualClock();
  const relay = new ProgressRelay({ clock, minIntervalMs: 0 });
  let client!: Endpoint;
  let server!: Endpoint;
  const toClient: Channel = { write: (m) => client.receiveText(JSON.stringify(m)) };
  const toServer: Channel = {
    write: (m) => server.receiveText(JSON.stringify(m)),
    cancelRequest: (id, notification) =>
      notification
        ? server.receiveText(JSON.stringify(notification))
        : server.abortInbound(id, new InflightError('DISCONNECTED')),
  };
  server = new Endpoint({ role: 'server', transport, channel: toClient, clock, progressRelay: relay });
  client = new Endpoint({ role: 'client', transport, channel: toServer, clock, progressRelay: relay });
  // `work`: `steps` progress updates, one per 100 ms, then a result.
  server.setRequestHandler('tools/call', (params, ctx) => {
    const { steps } = (params?.arguments ?? {}) as { steps: number };
    return new Promise((resolve) => {
      let step = 0;
      const tick = () => {
        ctx.progress(++step, steps);
        if (step >= steps) resolve({ content: [] });
        else clock.setTimer(tick, 100);
      };
      clock.setTimer(tick, 100);
    });
  });
  return { clock, client };
}

it('counts calls, progress, the cancels the host sent and the limits that fired, and puts them in the report', async () => {
  const { clock, client } = pair('stdio');
  const tally = tallyWire(client);
  const running = runCalls(
    client,
    [
      { tool: 'work', args: { steps: 2 }, label: 'done' },
      { tool: 'work', args: { steps: 50 }, label: 'stopped', cancelAfterMs: 150 },
      { tool: 'work', args: { steps: 50 }, label: 'ceiling' },
    ],
    { clock, ceilingMs: 250 },
  );
  await drain(); // the handlers start, and set their timers, at 0
  for (let t = 0; t < 300; t += 50) {
    clock.advance(50);
    await drain();
  }
  const views = await running.done;
  expect(views.map((v) => v.outcome?.kind)).toEqual(['completed', 'cancelled', 'ceiling']);
  expect(tally).toEqual({
    requests: 3,
    cancelsSent: { notification: 2, 'close-stream': 0 },
    deadlines: { CEILING: 1 },
    progressAccepted: 2 + 1 + 2,
    progressDropped: 0,
    late: 0,
    errors: 0,
  });
  // An answer the server wrote just after the host's cancel (id 1, the stopped call): absorbed, counted.
  client.receive({ jsonrpc: '2.0', id: 1, result: { content: [] } });
  expect(tally.late).toBe(1);
  expect(toReport('stdio: work', '2025-11-25', views, tally).wire).toBe(tally);
});

it('on 2026-07-28 over HTTP the cancel is closing the request stream', async () => {
  const { clock, client } = pair('http');
  const tally = tallyWire(client);
  client.revision = '2026-07-28'; // runCalls sends on the session's revision
  const running = runCalls(client, [{ tool: 'work', args: { steps: 50 }, cancelAfterMs: 50 }], { clock });
  await drain();
  clock.advance(50);
  await drain();
  await running.done;
  expect(tally.cancelsSent).toEqual({ notification: 0, 'close-stream': 1 });
});
