// The post-peak heap: a peak of 5,000 calls at once (or `--calls N`) through examples/proxy in front of
// examples/server, from one stdio host and one HTTP host, then the proxy's heap after a full collection
// against its heap before the peak. It fails unless the heap returns within 5 MB of its start (issue 45:
// 85 MB stayed held). Prints what each proxy held before and after; `node --expose-gc` is not needed
// here (the proxies get it).

import {
  freePort,
  HTTP_DIST,
  proxyCommandLine,
  requireBuilt,
  STDIO_DIST,
  sleep,
  spawnHttpProxy,
} from './procs.mjs';

requireBuilt();
const { spawnStdio } = await import(STDIO_DIST);
const { HttpClient } = await import(HTTP_DIST);

const callsArg = process.argv.indexOf('--calls');
const total = Number(callsArg > 0 ? process.argv[callsArg + 1] : 5_000);
const LIMIT_BYTES = 5 * 1_048_576;
const CLIENT_INFO = { name: 'peak', version: '1' };
const mb = (bytes) => `${(bytes / 1_048_576).toFixed(1)} MB`;

/** Heap after a full collection (the proxy's and its upstream's), asked twice: the second sees what the first's finalizers freed. */
async function heapOf(client) {
  await client.request('inflight/stats', { gc: true, upstream: true }, { idleMs: 30_000 });
  await sleep(200);
  const stats = await client.request('inflight/stats', { gc: true, upstream: true }, { idleMs: 30_000 });
  return { proxy: stats.heapUsedBytes, upstream: stats.upstream?.stats?.heapUsedBytes ?? 0 };
}

let failed = false;
/** One row: the proxy's and its upstream's heap after GC, before and after; flags a growth over the limit. */
function row(label, start, end) {
  const grew = (key) => end[key] - start[key];
  if (grew('proxy') > LIMIT_BYTES || grew('upstream') > LIMIT_BYTES) failed = true;
  const part = (key) =>
    `${key} ${mb(start[key])} -> ${mb(end[key])} (${grew(key) >= 0 ? '+' : ''}${mb(grew(key))})`;
  return `${label}: heap after GC ${part('proxy')}, ${part('upstream')}`;
}

/** `--cancel`: every other call of the peak is cancelled by its host 30 ms in (the rest complete). */
const cancelHalf = process.argv.includes('--cancel');
const calls = (client, count, steps) =>
  Promise.allSettled(
    Array.from({ length: count }, (_, i) =>
      client.callTool(
        'work',
        { steps, intervalMs: 20, tag: `peak-${i}` },
        {
          onprogress: () => {},
          idleMs: 60_000,
          ...(cancelHalf && steps > 1 && i % 2 === 1 ? { signal: AbortSignal.timeout(30) } : {}),
        },
      ),
    ),
  );

// The stdio host: a proxy of its own; raise its per-host limit so the whole peak is in flight at once.
const stdio = spawnStdio(`${proxyCommandLine({})} --max-host-in-flight ${total}`, {
  stderr: 'inherit',
  clientInfo: CLIENT_INFO,
  idleMs: 60_000,
});
await stdio.connect();
const port = await freePort();
const http = spawnHttpProxy(port);
const httpClient = new HttpClient({ url: `http://127.0.0.1:${port}/mcp`, clientInfo: CLIENT_INFO });
for (let attempt = 0; ; attempt++) {
  try {
    await httpClient.connect(process.env.PEAK_REVISION ? { revision: process.env.PEAK_REVISION } : {});
    break;
  } catch (error) {
    if (attempt > 50) throw error;
    await sleep(100);
  }
}

/** `--sessions N`: the HTTP peak also from N hosts of their own (legacy sessions on 2025-11-25), closed after. */
const sessionsArg = process.argv.indexOf('--sessions');
const sessions = Number(sessionsArg > 0 ? process.argv[sessionsArg + 1] : 0);

const rows = [];
const legacyHosts = (count) =>
  Array.from(
    { length: count },
    () => new HttpClient({ url: `http://127.0.0.1:${port}/mcp`, clientInfo: CLIENT_INFO }),
  );
if (sessions > 0) {
  // Warm-up: a few sessions through the whole path first, so the code it compiles is not counted.
  const warmHosts = legacyHosts(4);
  await Promise.all(warmHosts.map((host) => host.connect({ revision: '2025-11-25' })));
  await Promise.all(warmHosts.map((host) => calls(host, 50, 1)));
  await Promise.all(warmHosts.map((host) => host.close()));
  const start = await heapOf(httpClient);
  const hosts = legacyHosts(sessions);
  // A host the proxy refuses (its per-client session cap) takes no part; the figures say how many did.
  const joined = await Promise.allSettled(hosts.map((host) => host.connect({ revision: '2025-11-25' })));
  hosts.splice(0, hosts.length, ...hosts.filter((_, i) => joined[i].status === 'fulfilled'));
  const began = performance.now();
  const settled = (
    await Promise.all(hosts.map((host) => calls(host, Math.ceil(total / sessions), 3)))
  ).flat();
  const ms = performance.now() - began;
  await Promise.all(hosts.map((host) => host.close()));
  await sleep(500);
  const end = await heapOf(httpClient);
  const ok = settled.filter((s) => s.status === 'fulfilled').length;
  rows.push(
    row(
      `http proxy, ${hosts.length} of ${sessions} legacy sessions, ${settled.length} calls (${ok} completed, ${Math.round(ms)} ms)`,
      start,
      end,
    ),
  );
}
for (const [name, client, count] of [
  ['stdio proxy', stdio, total],
  ['http proxy', httpClient, total],
]) {
  await calls(client, 50, 1); // warm-up
  const start = await heapOf(client);
  const began = performance.now();
  const settled = await calls(client, count, 3);
  const ms = performance.now() - began;
  const ok = settled.filter((s) => s.status === 'fulfilled').length;
  await sleep(500);
  const end = await heapOf(client);
  rows.push(row(`${name}, ${count} calls at once (${ok} completed, ${Math.round(ms)} ms)`, start, end));
}
for (const row of rows) process.stdout.write(`${row}\n`);
await stdio.close();
await httpClient.close();
http.child.kill('SIGTERM');
await http.exited;
process.stdout.write(failed ? 'peak FAILED: a heap stayed more than 5 MB over its start\n' : 'peak ok\n');
process.exit(failed ? 1 : 0);
