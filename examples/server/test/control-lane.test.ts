// examples/server (serveHttp + core) with its whole admission gate held by one client's long calls (two
// 2025-03-26 batches of 1,000 `work` calls: 1,000 run, 1,000 wait): another client's `initialize`,
// `server/discover` and `ping` still answer at once, in core's control lane, and the waiting calls stay
// waiting [rule 14, issue 45].
import { afterAll, beforeAll, expect, it } from 'vitest';
import { modernHeaders, modernRequest, RawHttp } from '../../../packages/http/test/fixtures/raw-http.js';
import { type SpawnedServer, spawnExampleServer } from './fixtures/spawn-example.js';

let server: SpawnedServer;
beforeAll(async () => {
  server = await spawnExampleServer();
});
afterAll(() => server.stop());

/** The one JSON-RPC message of a reply, JSON or one SSE event. */
async function messageOf(response: Response): Promise<Record<string, unknown>> {
  const text = await response.text();
  const data = text.split('\n').find((line) => line.startsWith('data: '));
  return JSON.parse(data ? data.slice(6) : text) as Record<string, unknown>;
}

it("answers another client's initialize, server/discover and ping while one client's calls hold every slot", async () => {
  const raw = new RawHttp(server.url);
  const busy = await raw.initialize('2025-03-26');
  const batch = (from: number) =>
    Array.from({ length: 1_000 }, (_, i) => ({
      jsonrpc: '2.0',
      id: from + i,
      method: 'tools/call',
      params: { name: 'work', arguments: { steps: 600, intervalMs: 100 } },
    }));
  const flood = new AbortController();
  const held = [0, 1_000].map((from) =>
    raw.post(batch(from), raw.legacy(busy, '2025-03-26'), flood.signal).catch(() => undefined),
  );
  // `inflight/stats` has always bypassed the gate: it says when the flood holds every slot.
  const watcher = await raw.initialize('2025-06-18');
  const stats = async () =>
    (
      (await messageOf(
        await raw.post(
          { jsonrpc: '2.0', id: 's', method: 'inflight/stats' },
          raw.legacy(watcher, '2025-06-18'),
        ),
      )) as { result: { work: { running: number } } }
    ).result.work;
  await expect.poll(stats, { timeout: 30_000, interval: 200 }).toMatchObject({ running: 1_000 });
  // Another client: its handshake, a 2026-07-28 discover and a ping, each answered while the gate is full.
  const other = await raw.initialize('2025-11-25');
  const ping = await raw.post({ jsonrpc: '2.0', id: 'p', method: 'ping' }, raw.legacy(other));
  expect(await messageOf(ping)).toEqual({ jsonrpc: '2.0', id: 'p', result: {} });
  const discover = await raw.post(modernRequest('d', 'server/discover'), modernHeaders('server/discover'));
  expect(await messageOf(discover)).toMatchObject({
    id: 'd',
    result: { supportedVersions: expect.any(Array) },
  });
  flood.abort();
  await fetch(server.url, { method: 'DELETE', headers: raw.legacy(busy, '2025-03-26') });
  await Promise.all(held);
}, 90_000);
