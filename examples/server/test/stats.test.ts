// `inflight/stats` on the example server over Streamable HTTP: the tables of every open endpoint (each
// legacy session, each 2026-07-28 request), the stats request itself left out, and nothing left once calls
// end [rule 8]. Over stdio it is exercised through the proxy (packages/proxy/test/stats.test.ts).
import { HttpClient } from '@mcp-inflight/http';
import { afterEach, expect, it } from 'vitest';
import { type SpawnedServer, spawnExampleServer } from './fixtures/spawn-example.js';

interface Stats {
  tables: { endpoints: number; inboundInFlight: number; outboundTokens: number; progressRoutes: number };
  work: { running: number; completed: number };
  transport: { kind: string; sessions: number; statelessInFlight: number };
  timers: { queued: number; armed: boolean };
}

let server: SpawnedServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

it('counts a legacy session and a 2026-07-28 call in flight, and nothing after they end', async () => {
  server = await spawnExampleServer();
  const legacy = new HttpClient({ url: server.url, revision: '2025-11-25' });
  const modern = new HttpClient({ url: server.url, revision: '2026-07-28' });
  try {
    await legacy.connect();
    await modern.connect();
    const stats = async () => (await modern.request('inflight/stats', {})) as Stats;
    const idle = await stats();
    expect(idle.transport).toEqual({ kind: 'http', sessions: 1, statelessInFlight: 0 });
    expect(idle.tables).toMatchObject({ endpoints: 2, inboundInFlight: 0, progressRoutes: 0 });

    const stop = new AbortController();
    const call = modern.request(
      'tools/call',
      { name: 'work', arguments: { steps: 1, intervalMs: 60_000 } },
      { signal: stop.signal, onprogress: () => {} },
    );
    call.catch(() => {});
    let busy = await stats();
    for (let i = 0; i < 50 && busy.work.running === 0; i++) busy = await stats();
    expect(busy.transport.statelessInFlight).toBe(1);
    expect(busy.tables).toMatchObject({ endpoints: 3, inboundInFlight: 1, progressRoutes: 1 });

    stop.abort(); // on 2026-07-28 HTTP: the client closes that request's stream, which is the cancel
    let after = await stats();
    for (let i = 0; i < 50 && after.work.running > 0; i++) after = await stats();
    expect(after.transport).toEqual({ kind: 'http', sessions: 1, statelessInFlight: 0 });
    expect(after.tables).toMatchObject({ endpoints: 2, inboundInFlight: 0, progressRoutes: 0 });
    expect(after.timers).toMatchObject({ queued: 0, armed: false });
  } finally {
    await legacy.close();
    await modern.close();
  }
});
