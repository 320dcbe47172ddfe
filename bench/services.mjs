// pnpm bench:services: what the scale-out costs, measured on real services (redis-server and haproxy from
// PATH; run `pnpm build` first). `pnpm bench` keeps needing only Node.
//   1. tasks/get latency through examples/server --http --tasks, the store in memory against Redis
//      (p50, p99, sequential requests on one HttpClient), and the store's own getTask (no HTTP).
//   2. task calls per second (our HttpClient's callTask of `work` with one 10 ms step, 32 in flight)
//      through haproxy round robin, with one instance and with two, tasks on Redis.
// Usage: node bench/services.mjs [--gets N] [--calls N] [--rounds N] [--json FILE]
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { callTask } from '@mcp-inflight/client/tasks';
import { HttpClient } from '@mcp-inflight/http';
import { withTasksExtension } from '@mcp-inflight/server/tasks';
import { RedisTaskStore } from '../packages/redis/dist/index.js';
import { startExampleServer, startHaproxy, startRedis } from '../packages/redis/test/services/services.mjs';

const arg = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at === -1 ? fallback : process.argv[at + 1];
};
const GETS = Number(arg('--gets', 2_000));
const CALLS = Number(arg('--calls', 400));
const IN_FLIGHT = 32;
const ROUNDS = Number(arg('--rounds', 3));

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
const ms = (n) => `${n.toFixed(3)} ms`;
const stopping = [];

async function connect(url) {
  const client = new HttpClient({ url });
  stopping.push(() => client.close());
  await client.connect({ revision: '2026-07-28', probeTimeoutMs: 60_000 });
  return client;
}

/**
 * Sequential tasks/get of one running task on each server, interleaved (one on each, in turn), so load
 * on a shared machine falls on both alike: each request's time, in ms, per url.
 */
async function taskGets(urls, n) {
  const legs = await Promise.all(
    urls.map(async (url) => {
      const client = await connect(url);
      const declare = (params) => withTasksExtension(params, client.endpoint.clientCapabilities);
      const leg = { client, declare, taskId: '', times: [] };
      const start = async () => {
        const made = await client.request(
          'tools/call',
          declare({ name: 'work', arguments: { steps: 1, intervalMs: 600_000 } }),
        );
        leg.taskId = made.taskId;
      };
      await start();
      // A task lives 60 s on the example server: on a loaded machine the run can outlast it, so a task
      // gone is replaced and that one request not counted.
      leg.get = () =>
        client.request('tasks/get', declare({ taskId: leg.taskId })).then(
          () => true,
          (error) => {
            if (error?.code !== -32602) throw error;
            return start().then(() => false);
          },
        );
      return leg;
    }),
  );
  for (let i = 0; i < 100; i++) for (const leg of legs) await leg.get(); // warm-up
  for (let i = 0; i < n; i++)
    for (const leg of legs) {
      const t = performance.now();
      if (await leg.get()) leg.times.push(performance.now() - t);
    }
  for (const leg of legs) await leg.client.request('tasks/cancel', leg.declare({ taskId: leg.taskId }));
  return legs.map((leg) => leg.times.sort((a, b) => a - b));
}

async function storeGets(store, n) {
  const task = await store.createTask(undefined, 60_000);
  for (let i = 0; i < 100; i++) await store.getTask(undefined, task.taskId);
  const times = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await store.getTask(undefined, task.taskId);
    times.push(performance.now() - t);
  }
  return times.sort((a, b) => a - b);
}

/** `calls` task calls, `IN_FLIGHT` at a time, through `url`: calls per second. */
async function taskCalls(url, calls) {
  const client = await connect(url);
  let next = 0;
  let failed = 0;
  const t = performance.now();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < calls) {
        next++;
        await callTask(client, 'tools/call', { name: 'work', arguments: { steps: 1, intervalMs: 10 } }).catch(
          () => failed++,
        );
      }
    }),
  );
  return { perSecond: calls / ((performance.now() - t) / 1000), failed };
}

const redis = await startRedis();
const results = { load: loadavg(), gets: GETS, calls: CALLS, inFlight: IN_FLIGHT };
try {
  const memory = await startExampleServer(['--tasks']);
  const onRedis = await startExampleServer(['--tasks', '--redis', redis.url]);
  const second = await startExampleServer(['--tasks', '--redis', redis.url]);
  stopping.push(
    () => memory.kill(),
    () => onRedis.kill(),
    () => second.kill(),
  );

  const [inMemoryGets, redisGets] = await taskGets([memory.url, onRedis.url], GETS);
  const { TaskStore } = await import('@mcp-inflight/server/tasks');
  const storeMemory = await storeGets(new TaskStore(), GETS);
  const store = await RedisTaskStore.connect({ url: redis.url, prefix: 'bench:' });
  const storeRedis = await storeGets(store, GETS);
  await store.close();
  const row = (sorted) => ({ p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99) });
  results.tasksGet = {
    httpInMemory: row(inMemoryGets),
    httpRedis: row(redisGets),
    storeInMemory: row(storeMemory),
    storeRedis: row(storeRedis),
  };

  const one = await startHaproxy([onRedis.port]);
  stopping.push(() => one.stop());
  const two = await startHaproxy([onRedis.port, second.port]);
  stopping.push(() => two.stop());
  // Interleaved rounds (one, two, one, two, ...), so a noisy minute on a shared machine falls on both.
  const rounds = { oneInstance: [], twoInstances: [] };
  for (let r = 0; r < ROUNDS; r++) {
    rounds.oneInstance.push(await taskCalls(one.url, CALLS));
    rounds.twoInstances.push(await taskCalls(two.url, CALLS));
  }
  results.callsPerSecond = rounds;
} finally {
  for (const stop of stopping.reverse()) await stop().catch(() => {});
  await redis.stop();
}

const g = results.tasksGet;
console.log(
  `bench:services  load average ${results.load.map((l) => l.toFixed(2)).join(' ')}  (${GETS} gets, ${CALLS} calls, ${IN_FLIGHT} in flight)`,
);
console.log('tasks/get latency                p50          p99');
for (const [name, r] of [
  ['HTTP, store in memory', g.httpInMemory],
  ['HTTP, store on Redis', g.httpRedis],
  ['store.getTask, in memory', g.storeInMemory],
  ['store.getTask, Redis', g.storeRedis],
])
  console.log(`  ${name.padEnd(28)} ${ms(r.p50).padStart(10)}  ${ms(r.p99).padStart(10)}`);
console.log(
  `  Redis/in memory over HTTP: p50 ${(g.httpRedis.p50 / g.httpInMemory.p50).toFixed(2)}x, p99 ${(g.httpRedis.p99 / g.httpInMemory.p99).toFixed(2)}x`,
);
const c = results.callsPerSecond;
console.log('task calls through haproxy (callTask, work 1 x 10 ms, Redis store)');
const median = (rows) => rows.map((r) => r.perSecond).sort((a, b) => a - b)[Math.floor(rows.length / 2)];
for (const [name, rows] of [
  ['one instance', c.oneInstance],
  ['two instances', c.twoInstances],
])
  console.log(
    `  ${name.padEnd(14)} ${median(rows).toFixed(1)} calls/s, median of ${rows.map((r) => r.perSecond.toFixed(1)).join(', ')} (${rows.reduce((n, r) => n + r.failed, 0)} failed)`,
  );
const json = arg('--json', undefined);
if (json) writeFileSync(json, `${JSON.stringify(results, null, 2)}\n`);
