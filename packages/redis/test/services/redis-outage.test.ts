import { setTimeout as sleep } from 'node:timers/promises';
import { HttpClient } from '@mcp-inflight/http';
import { withTasksExtension } from '@mcp-inflight/server/tasks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startExampleServer, startProxyInstance, startRedis } from './services.mjs';

// Nothing lost in a Redis outage (issue 45 item 3, rule 15): two proxies (mcp-inflight-proxy --redis URL
// --admin-port 0), each in front of an upstream of its own (examples/server --http --tasks), share one
// redis-server. Redis is killed for 8 s and restarted, stopped (SIGSTOP) for 15 s and continued, killed
// for 15 s and restarted; during each outage both proxies make tasks (one that ends at once, one still
// running). Afterwards every one of them reads on the other proxy, whose request is forwarded to the
// holder through Redis; each proxy logged the outage and its end, and /metrics showed it. The outages
// are the lengths: 15 s is past the 10 s lease, 8 s is not. Needs `pnpm build` first.

type Proxy = Awaited<ReturnType<typeof startProxyInstance>>;
type Started = { kill: () => Promise<void> };
let redis: Awaited<ReturnType<typeof startRedis>>;
const upstreams: Started[] = [];
const proxies: Proxy[] = [];
const clients: HttpClient[] = [];

beforeAll(async () => {
  redis = await startRedis();
  for (let i = 0; i < 2; i++) {
    const upstream = await startExampleServer(['--tasks']);
    upstreams.push(upstream);
    proxies.push(
      await startProxyInstance(['--upstream-http', upstream.url, '--redis', redis.url, '--admin-port', '0']),
    );
  }
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});
afterAll(async () => {
  await Promise.all([...proxies, ...upstreams].map((p) => p.kill()));
  await redis?.stop();
});

async function client(proxy: Proxy): Promise<HttpClient> {
  const c = new HttpClient({ url: proxy.url });
  clients.push(c);
  await c.connect({ revision: '2026-07-28', probeTimeoutMs: 60_000 });
  return c;
}

const work = (steps: number, intervalMs: number) => ({ name: 'work', arguments: { steps, intervalMs } });
const declare = (c: HttpClient, params: Record<string, unknown>) =>
  withTasksExtension(params, c.endpoint.clientCapabilities);

/** One `mcp_proxy_store_*` sample of a proxy's /metrics (NaN when the series is missing). */
async function metric(proxy: Proxy, name: string): Promise<number> {
  const text = await (await fetch(new URL('/metrics', proxy.adminUrl()))).text();
  return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
}

const storeUp = (proxy: Proxy) => metric(proxy, 'mcp_proxy_store_up');
const bothStoreUp = async () => (await Promise.all(proxies.map(storeUp))).join(',');

/** Tasks made on `proxy`: one that ends at once, one that runs on (a minute). */
async function makeTasks(proxy: Proxy): Promise<Array<{ on: number; taskId: string }>> {
  const c = await client(proxy);
  const on = proxies.indexOf(proxy);
  const made = await Promise.all(
    [work(1, 10), work(600, 100)].map(
      (w) => c.request('tools/call', declare(c, w)) as Promise<{ taskId: string }>,
    ),
  );
  return made.map((m) => ({ on, taskId: m.taskId }));
}

/** Each task as the other proxy reads it: its status, or the error it answered. */
async function readOnOther(tasks: Array<{ on: number; taskId: string }>): Promise<string[]> {
  const readers = await Promise.all(proxies.map(client));
  return Promise.all(
    tasks.map(async ({ on, taskId }) => {
      const other = readers[1 - on] as HttpClient;
      const task = (await other
        .request('tasks/get', declare(other, { taskId }))
        .catch((e: unknown) => ({ status: `error: ${(e as Error).message}` }))) as { status: string };
      return task.status;
    }),
  );
}

const OUTAGES = [
  { how: 'killed', ms: 8_000 },
  { how: 'stopped (SIGSTOP)', ms: 15_000 },
  { how: 'killed', ms: 15_000 },
] as const;

describe('two proxies sharing one redis-server through outages', () => {
  it('tasks made during an 8 s kill, a 15 s SIGSTOP and a 15 s kill all read on the other proxy afterwards; logged and in /metrics', async () => {
    expect(await bothStoreUp()).toBe('1,1');
    const lost: string[] = [];
    for (const outage of OUTAGES) {
      const began = Date.now();
      if (outage.how === 'killed') await redis.kill();
      else redis.pause();
      // Made while Redis is away: answered at once, their claims kept for when it is back.
      const made = await Promise.all(proxies.map(makeTasks));
      const during = await Promise.all(
        proxies.map(async (p) => [await storeUp(p), await metric(p, 'mcp_proxy_store_pending_writes')]),
      );
      await sleep(Math.max(0, outage.ms - (Date.now() - began)));
      if (outage.how === 'killed') await redis.start();
      else redis.resume();
      await expect.poll(bothStoreUp, { timeout: 20_000, interval: 100 }).toBe('1,1');
      const tasks = made.flat();
      const read = await readOnOther(tasks);
      read.forEach((status, i) => {
        if (status !== 'completed' && status !== 'working')
          lost.push(
            `${outage.how} ${outage.ms} ms: ${tasks[i]?.taskId} on proxy ${tasks[i]?.on} read ${status}`,
          );
      });
      // While it was away, each proxy said so and kept its two claims.
      expect(during).toEqual([
        [0, 2],
        [0, 2],
      ]);
    }
    expect(lost).toEqual([]);
    for (const p of proxies) {
      const told = p.events.filter((e) => String(e.type).startsWith('store-')).map((e) => e.type);
      expect(told).toEqual(['store-down', 'store-up', 'store-down', 'store-up', 'store-down', 'store-up']);
      const back = p.events.filter((e) => e.type === 'store-up');
      expect(back.every((e) => Number(e.downMs) > 0)).toBe(true);
      expect(await metric(p, 'mcp_proxy_store_errors_total')).toBeGreaterThan(0);
      expect(await metric(p, 'mcp_proxy_store_pending_writes')).toBe(0);
    }
  }, 120_000);
});
