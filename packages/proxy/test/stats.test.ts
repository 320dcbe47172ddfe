// `inflight/stats` through the built proxy and server: in-flight calls show in every table on the way (host
// ids, upstream ids and minted tokens, the upstream's handlers), and once they end every table is empty and
// no timer is armed, on stdio and over HTTP, legacy and 2026-07-28 [rule 8].
import { HttpClient } from '@mcp-inflight/http';
import { spawnStdio } from '@mcp-inflight/stdio';
import { afterEach, expect, it } from 'vitest';
import { commandLine, PROXY, type RunningProxy, SERVER, startProxy } from './procs.js';

interface Tables {
  inboundInFlight: number;
  outboundInFlight: number;
  outboundTokens: number;
  progressRoutes: number;
}
interface Stats {
  gc: boolean;
  heapUsedBytes: number;
  timers: { queued: number; armed: boolean; nodeTimeouts: number };
  tables: Tables;
  transport: Record<string, unknown>;
  relay: { inFlight: number; inFlightTable: number };
  inputs: { parked: number; live: number; refused: number; expired: number };
  upstream: {
    live: boolean;
    tables: Tables;
    stats: { tables: Tables; work: { running: number }; timers: Stats['timers'] };
  };
}

const EMPTY = { inboundInFlight: 0, outboundInFlight: 0, outboundTokens: 0, progressRoutes: 0 };
const UPSTREAM = commandLine(process.execPath, '--expose-gc', SERVER);
const SLOW = { name: 'work', arguments: { steps: 1, intervalMs: 60_000 } };

let proxy: RunningProxy | undefined;
afterEach(async () => {
  await proxy?.kill();
  proxy = undefined;
});

async function statsOf(request: (method: string, params: Record<string, unknown>) => Promise<unknown>) {
  return (await request('inflight/stats', { gc: true, upstream: true })) as Stats;
}

function expectEmpty(stats: Stats): void {
  expect(stats.tables).toMatchObject(EMPTY);
  expect(stats.relay).toMatchObject({ inFlight: 0, inFlightTable: 0 });
  expect(stats.inputs).toEqual({ parked: 0, live: 0, refused: 0, expired: 0 });
  expect(stats.upstream.tables).toMatchObject(EMPTY);
  expect(stats.upstream.stats.tables).toMatchObject(EMPTY);
  expect(stats.upstream.stats.work.running).toBe(0);
  for (const timers of [stats.timers, stats.upstream.stats.timers])
    expect(timers).toEqual({ queued: 0, armed: false, nodeTimeouts: 0 });
}

for (const revision of ['2025-11-25', '2026-07-28'] as const) {
  it(`stdio host, ${revision}: a call in flight is in every table, and nothing is left after its cancel`, async () => {
    const client = spawnStdio(
      commandLine(process.execPath, '--expose-gc', PROXY, '--log', 'quiet', '--upstream-stdio', UPSTREAM),
      { stderr: 'inherit' },
    );
    try {
      await client.connect({ revision });
      const stop = new AbortController();
      const call = client.request('tools/call', SLOW, { signal: stop.signal, onprogress: () => {} });
      call.catch(() => {});
      let during = await statsOf((m, p) => client.request(m, p));
      for (let i = 0; i < 50 && during.upstream.stats.work.running === 0; i++)
        during = await statsOf((m, p) => client.request(m, p));
      expect(during.gc).toBe(true);
      expect(during.tables).toMatchObject({ inboundInFlight: 1, progressRoutes: 1 });
      expect(during.relay.inFlightTable).toBe(1);
      expect(during.upstream.tables).toMatchObject({ outboundInFlight: 1, outboundTokens: 1 });
      expect(during.upstream.stats.tables.inboundInFlight).toBe(1);
      stop.abort();
      await expect(call).rejects.toMatchObject({ code: 'CANCELLED' });
      let after = await statsOf((m, p) => client.request(m, p));
      // The cancel travels host -> proxy -> upstream on its own time: poll until both ends have seen it.
      for (let i = 0; i < 50 && (after.upstream.stats.work.running > 0 || after.relay.inFlight > 0); i++)
        after = await statsOf((m, p) => client.request(m, p));
      expectEmpty(after);
      expect(after.transport.kind).toBe('stdio');
    } finally {
      await client.close();
    }
  });

  it(`HTTP host, ${revision}: the stats request leaves itself out, and nothing is left after a call`, async () => {
    proxy = await startProxy(['--upstream-stdio', UPSTREAM]);
    const client = new HttpClient({ url: proxy.url, revision });
    try {
      await client.connect();
      await client.request('tools/call', { name: 'work', arguments: { steps: 2, intervalMs: 1 } });
      const stats = await statsOf((m, p) => client.request(m, p));
      expectEmpty({ ...stats, timers: { queued: 0, armed: false, nodeTimeouts: 0 } });
      expect(stats.timers).toMatchObject({ queued: 0, armed: false });
      expect(stats.transport).toMatchObject({
        kind: 'http',
        sessions: revision === '2026-07-28' ? 0 : 1,
        statelessInFlight: 0,
      });
    } finally {
      await client.close();
    }
  });
}
