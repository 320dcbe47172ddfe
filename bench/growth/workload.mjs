// One growth workload at one size, in a fresh process: `node --expose-gc workload.mjs <name> <size>`.
// Prints as its last line one JSON object: { workload, size, ms, perUnitUs, ...memory figures }.
//   inflight-stdio  <size> concurrent calls that each sleep 1,000 ms, on one stdio pipe to server.mjs (core
//                   and @mcp-inflight/stdio, no in-flight gate): client and server heap per call in
//                   flight, and the time beyond the 3,000 ms every call sleeps
//   proxy-hosts     <size> hosts (HttpClient, 2025-11-25 sessions, from this one process over loopback
//                   sockets) on one examples/proxy --http in front of examples/server: connect time, one
//                   `work` call each (2 steps of 100 ms, with progress), the proxy's heap per host
//   progress-stdio  one call receiving <size> progress updates over a stdio pipe (every update sent, no
//                   coalescing): time per update, client heap after vs before
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HttpClient } from '../../packages/http/dist/index.js';
import { spawnStdio } from '../../packages/stdio/dist/index.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const serverJs = join(root, 'examples', 'server', 'dist', 'index.js');
const proxyJs = join(root, 'examples', 'proxy', 'dist', 'index.js');
const growthServerJs = join(here, 'server.mjs');
const [workload, sizeText] = process.argv.slice(2);
const size = Number(sizeText);

const heap = () => {
  globalThis.gc();
  globalThis.gc();
  return process.memoryUsage().heapUsed;
};
const tick = () => new Promise((r) => setImmediate(r));
const round = (x, digits = 1) => +x.toFixed(digits);

async function statsOf(client) {
  return client.request('inflight/stats', { gc: true });
}

async function inflightStdio() {
  const sleepMs = 3_000;
  const client = spawnStdio(`node --expose-gc ${growthServerJs}`, { stderr: 'inherit' });
  await client.connect({ revision: '2025-11-25' });
  await Promise.all(Array.from({ length: 100 }, () => client.callTool('sleep', { ms: 1 }))); // warm up
  const serverBefore = await client.request('growth/heap');
  const before = heap();
  const t0 = performance.now();
  const calls = [];
  for (let i = 0; i < size; i++) calls.push(client.callTool('sleep', { ms: sleepMs }));
  const issueMs = performance.now() - t0;
  await tick();
  const clientBytes = heap() - before;
  const serverDuring = await client.request('growth/heap');
  await Promise.all(calls);
  const ms = performance.now() - t0;
  if (serverDuring.running !== size) throw new Error(`server ran ${serverDuring.running} of ${size}`);
  await client.close();
  return {
    ms: round(ms),
    beyondSleepMs: round(ms - sleepMs),
    issueMs: round(issueMs),
    perUnitUs: round(((ms - sleepMs) * 1000) / size),
    clientBytesPerCall: Math.round(clientBytes / size),
    serverBytesPerCall: Math.round((serverDuring.heapUsedBytes - serverBefore.heapUsedBytes) / size),
  };
}

async function proxyHosts() {
  const proxy = spawn(
    process.execPath,
    [
      '--expose-gc',
      proxyJs,
      '--http',
      '0',
      '--upstream-stdio',
      `node ${serverJs}`,
      '--max-sessions',
      String(size * 2),
      // Every host here is one client to the proxy (one address, no token): its own per-client cap would
      // refuse the 101st session, and this measures hosts, not that cap.
      '--max-client-sessions',
      String(size * 2),
      '--log',
      'json',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let buffered = '';
  proxy.stderr.setEncoding('utf8');
  const listening = new Promise((resolve, reject) => {
    proxy.once('exit', (code) => reject(new Error(`proxy exited ${code}`)));
    proxy.stderr.on('data', (text) => {
      buffered += text;
      for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        const m = /"type":"listening","url":"([^"]+)"/.exec(line);
        if (m) resolve(m[1]);
      }
    });
  });
  try {
    const url = await listening;
    const probe = new HttpClient({ url });
    await probe.connect({ revision: '2025-11-25' });
    const baseline = await statsOf(probe);
    // Two rounds of the same hosts' work: what stays after the first close and is not added to by the
    // second is a bounded cache (pools, free lists), not state per host that was never released.
    const cycle = async () => {
      const hosts = Array.from({ length: size }, () => new HttpClient({ url }));
      const t0 = performance.now();
      await Promise.all(hosts.map((h) => h.connect({ revision: '2025-11-25' })));
      const connectMs = performance.now() - t0;
      const connected = await statsOf(probe);
      let updates = 0;
      const t1 = performance.now();
      const calls = hosts.map((h) =>
        h.callTool('work', { steps: 2, intervalMs: 100 }, { onprogress: () => void updates++ }),
      );
      await new Promise((r) => setTimeout(r, 50)); // all in flight, in their first step
      const during = await statsOf(probe);
      await Promise.all(calls);
      const callMs = performance.now() - t1;
      await Promise.all(hosts.map((h) => h.close()));
      await new Promise((r) => setTimeout(r, 200));
      const after = await statsOf(probe);
      return { connectMs, callMs, updates, connected, during, after };
    };
    const { connectMs, callMs, updates, connected, during, after } = await cycle();
    const second = await cycle();
    const socketsOpen = process.getActiveResourcesInfo().filter((r) => r === 'TCPSocketWrap').length;
    await probe.close();
    const perHost = (s) => Math.round((s.heapUsedBytes - baseline.heapUsedBytes) / size);
    const ms = connectMs + callMs;
    return {
      ms: round(ms),
      connectMs: round(connectMs),
      callMs: round(callMs),
      beyondSleepMs: round(ms - 200),
      perUnitUs: round(((ms - 200) * 1000) / size),
      updatesPerHost: round(updates / size, 2),
      proxyBytesPerConnectedHost: perHost(connected),
      proxyBytesPerHostInCall: perHost(during),
      proxyBytesPerHostAfterClose: perHost(after),
      proxyInFlightDuring: during.tables?.inboundInFlight,
      // The probe's own session stays open; the hosts' are gone.
      proxySessionsAfterClose: after.transport?.sessions,
      proxyBytesPerHostAfterSecondClose: perHost(second.after),
      loadSocketsOpenAfterClose: socketsOpen,
    };
  } finally {
    proxy.kill('SIGTERM');
    await once(proxy, 'exit').catch(() => {});
  }
}

async function progressStdio() {
  const client = spawnStdio(`node ${growthServerJs}`, { stderr: 'inherit' });
  await client.connect({ revision: '2025-11-25' });
  await client.callTool('flood', { updates: 1_000 }, { onprogress: () => {} }); // warm both sides
  const before = heap();
  let received = 0;
  let peak = 0;
  const t0 = performance.now();
  await client.callTool(
    'flood',
    { updates: size },
    {
      onprogress: () => {
        if ((++received & 1023) === 0) peak = Math.max(peak, process.memoryUsage().heapUsed);
      },
    },
  );
  const ms = performance.now() - t0;
  const after = heap();
  await client.close();
  if (received !== size) throw new Error(`received ${received} of ${size}`);
  return {
    ms: round(ms),
    perUnitUs: round((ms * 1000) / size, 2),
    ratePerSec: Math.round((size / ms) * 1000),
    clientHeapGrowthBytes: after - before,
    clientPeakAboveStartMB: round(Math.max(0, peak - before) / 1e6, 2),
  };
}

const run = { 'inflight-stdio': inflightStdio, 'proxy-hosts': proxyHosts, 'progress-stdio': progressStdio }[
  workload
];
if (!run || !(size > 0))
  throw new Error('usage: workload.mjs inflight-stdio|proxy-hosts|progress-stdio <size>');
const result = await run();
console.log(JSON.stringify({ workload, size, ...result }));
process.exit(0);
