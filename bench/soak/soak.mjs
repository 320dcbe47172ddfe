// The soak: a million calls (or `--calls N`) through examples/proxy in front of examples/server, from
// stdio and HTTP hosts on both eras, with user cancels, idle and ceiling expiries on both hops, hosts
// dropped mid-call and upstreams killed. It fails unless every call ended once and as meant (or as a
// kill or drop explains), every table is empty, no timer is armed and no heap grew by more than 5 MB.
// See bench/README.md. Run with `node --expose-gc` (the root scripts do).

import { PROXY_CEILING_MS, PROXY_IDLE_MS } from './plan.mjs';
import { freePort, requireBuilt, sleep } from './procs.mjs';
import { seedFromEnv } from './rng.mjs';

requireBuilt();
const { CORE_DIST } = await import('./procs.mjs');
const { systemClock } = await import(CORE_DIST);
const { TimerQueue } = await import(CORE_DIST.replace(/index\.js$/, 'adapter.js'));
const { HttpLane, HttpProxy, StdioLane } = await import('./lanes.mjs');
const {
  callChecks,
  fmt,
  HEAP_HEADER,
  heapLine,
  hopChecks,
  outcomeTable,
  processChecks,
  proxyView,
  signedMb,
  Tally,
} = await import('./report.mjs');

const callsArg = process.argv.indexOf('--calls');
const total = Number(callsArg > 0 ? process.argv[callsArg + 1] : (process.env.SOAK_CALLS ?? 1_000_000));
if (!Number.isSafeInteger(total) || total < 1_000) throw new Error('--calls takes a whole number >= 1000');
const seed = seedFromEnv();
const gc = globalThis.gc;
if (typeof gc !== 'function') throw new Error('run the soak with node --expose-gc (pnpm soak does)');

const started = performance.now();
// A soak that hangs fails instead of holding CI: the budget is generous (about 100 calls/s at worst).
const budgetS = Math.max(600, Math.ceil(total / 100));
const watchdog = setTimeout(() => {
  process.stdout.write(`soak FAILED: still running after ${budgetS} s (${tally.calls} calls ended)\n`);
  process.exit(2);
}, budgetS * 1_000);
watchdog.unref();
// Anything that breaks the harness itself (a proxy that cannot start, a lost child) is a failed soak too.
const broken = (error) => {
  process.stdout.write(`soak FAILED: ${error?.stack ?? error}\n`);
  process.exit(2);
};
process.on('uncaughtException', broken);
process.on('unhandledRejection', broken);
const seconds = () => ((performance.now() - started) / 1_000).toFixed(1);
const log = (line) => process.stdout.write(`${line}\n`);
const seedText = `0x${seed.toString(16).padStart(8, '0')}`;
log(`soak: ${fmt(total)} calls, seed ${seedText} (replay: SOAK_SEED=${seedText})`);

// Lanes: a share of the calls each. An HTTP call costs several times the CPU of a stdio one (fetch, the
// HTTP server, SSE), so the HTTP hosts take fewer.
const tally = new Tally();
const share = (fraction) => Math.round(total * fraction);
const clamp = (n, min, max) => Math.max(min, Math.min(max, Math.round(n)));
const common = { seed, tally };
const stdioLanes = [
  new StdioLane({
    ...common,
    id: 1,
    name: 'stdio 2025-11-25',
    quota: share(0.3),
    concurrency: 32,
    revisions: ['2025-11-25'],
    upstreamRevision: '2025-11-25',
    killCount: clamp(total / 12_000, 3, 60),
  }),
  new StdioLane({
    ...common,
    id: 2,
    name: 'stdio 2026-07-28',
    quota: share(0.3),
    concurrency: 32,
    revisions: ['2026-07-28'],
  }),
  new StdioLane({
    ...common,
    id: 3,
    name: 'stdio dropped',
    quota: share(0.16),
    concurrency: 16,
    revisions: ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'],
    dropCount: clamp(total / 20_000, 3, 40),
  }),
];
const proxy = new HttpProxy();
const httpRevisions = ['2025-11-25', '2026-07-28', '2025-03-26', '2026-07-28'];
const httpLanes = httpRevisions.map(
  (revision, k) =>
    new HttpLane({
      ...common,
      id: 10 + k,
      name: `http ${revision} #${k + 1}`,
      quota: share(0.06),
      concurrency: 12,
      revision,
      proxy,
      kills: proxy.kills,
      killCount: clamp(total / 80_000, 1, 12),
      dropCount: clamp(total / 40_000, 2, 25),
    }),
);
const lanes = [...stdioLanes, ...httpLanes];
// Rounding leaves a few calls over: the first lane takes them, so the total is exact.
lanes[0].quota += total - lanes.reduce((sum, lane) => sum + lane.quota, 0);

// Whatever happens, the HTTP proxy (the one child not tied to our stdio) stops with us: SIGTERM lets it
// close its upstream too. The stdio proxies exit when their stdin closes with this process.
process.on('exit', () => proxy.process?.child.kill('SIGTERM'));
await proxy.start(await freePort());
await Promise.all(lanes.map((lane) => lane.start()));
const proxies = [
  ...stdioLanes.map((lane) => ({ name: lane.name, source: lane, http: false })),
  { name: 'http', source: proxy, http: true },
];
log(
  `lanes: ${lanes.map((l) => `${l.name} ${fmt(l.quota)}`).join(', ')}; proxy limits: idle ${PROXY_IDLE_MS} ms, ceiling ${PROXY_CEILING_MS} ms`,
);

// Warm-up (no disturbances), then the baselines, after a collection everywhere.
const warm = (lane) => Math.min(3_000, Math.floor(lane.quota * 0.1));
await Promise.all(lanes.map((lane) => lane.run(0, warm(lane))));
await settle();
const baseline = await statsOfAll();
const hostStart = hostHeap();
log(`warm-up done at ${seconds()} s; baselines taken`);

const progress = setInterval(() => {
  const done = tally.calls;
  process.stderr.write(`  ${fmt(done)} calls ended, ${seconds()} s\n`);
}, 10_000);
const mainStarted = performance.now();
const mainFrom = tally.calls;
for (const lane of lanes) lane.planEvents(warm(lane));
await Promise.all(lanes.map((lane) => lane.run(warm(lane), lane.quota)));
const mainSeconds = (performance.now() - mainStarted) / 1_000;
clearInterval(progress);
for (const lane of stdioLanes) await Promise.all(lane.background);
log(`calls done at ${seconds()} s`);

const settledMs = await settle();
const final = await statsOfAll();
const hostTables = hostTablesOf();
const hostEnd = hostHeap();

// Close the HTTP hosts (legacy sessions end with DELETE): the HTTP proxy must then hold no session, and
// no timer (a live legacy session rightly keeps its expiry timer), so its end figures are read after.
await Promise.all(httpLanes.map((lane) => lane.close()));
const afterHttp = await proxy.stats({ gc: true, upstream: true });
final[proxies.length - 1] = afterHttp;
if (process.env.SOAK_DEBUG)
  for (let i = 0; i < 5; i++) {
    await sleep(1_000);
    log(`http proxy timers +${i + 1} s: ${JSON.stringify((await proxy.stats({})).timers)}`);
  }

// Shut everything down, then check that no process outlived it.
await Promise.all(stdioLanes.map((lane) => lane.close()));
const proxyExit = await proxy.stop();
const pids = new Set([...proxy.pids, ...stdioLanes.flatMap((lane) => [...lane.pids])]);
const { gone } = await import('./procs.mjs');
const survivors = [];
for (const pid of pids) if (!(await gone(pid, 5_000))) survivors.push(pid);
const queue = TimerQueue.for(systemClock);
// Nothing should run any more: a host that still burns CPU (a retry loop, a spinning socket) fails.
const cpuFrom = process.cpuUsage();
await sleep(1_000);
const cpu = process.cpuUsage(cpuFrom);
const busyMs = (cpu.user + cpu.system) / 1_000;
if (process.env.SOAK_DEBUG) log(`host resources at the end: ${process.getActiveResourcesInfo().join(' ')}`);
const hostTimers = {
  queued: queue.size,
  armed: queue.armed,
  nodeTimeouts: process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length,
};

// The report.
const mainCalls = tally.calls - mainFrom;
log('');
log(
  `calls: ${fmt(tally.calls)} in ${seconds()} s; main phase ${fmt(mainCalls)} calls in ${mainSeconds.toFixed(1)} s = ${fmt(mainCalls / mainSeconds)} calls/s`,
);
log(`by lane: ${[...tally.byLane].map(([name, n]) => `${name} ${fmt(n)}`).join(', ')}`);
log('outcomes (rows: what the call meant; columns: how it ended):');
log(outcomeTable(tally));
log(
  `verdicts: ${fmt(tally.verdicts.ok)} as meant, ${fmt(tally.verdicts.race)} lost a tolerated race to their result, ${fmt(tally.verdicts.exposed)} explained by a disturbance (${fmt(tally.exposedBy.kill)} upstream kill, ${fmt(tally.exposedBy.drop)} host drop), ${fmt(tally.verdicts.wrong)} wrong`,
);
const kills = proxy.killed + stdioLanes.reduce((n, lane) => n + (lane.killed ?? 0), 0);
const drops = lanes.reduce((n, lane) => n + (lane.dropped ?? 0), 0);
log(
  `disturbances: ${kills} upstream kills (SIGKILL; the proxy started a fresh one), ${drops} host drops (${stdioLanes[2].dropped ?? 0} stdio pipes destroyed, each a fresh proxy after; ${httpLanes.reduce((n, l) => n + (l.dropped ?? 0), 0)} HTTP connection resets)`,
);
log(`explained: ${[...tally.explained].map(([key, n]) => `${key} ${fmt(n)}`).join(', ') || 'none'}`);
for (const w of tally.wrong) log(`  wrong: ${JSON.stringify(w)}`);
log("the proxies' view (since each started; the dropped lane's proxy is its last one):");
for (const [i, p] of proxies.entries()) log(proxyView(p.name, final[i]));

const checks = callChecks(tally, total);
log('');
log(
  `heap in use ("start" and "end, GC" after a full collection; tables settled ${settledMs} ms after the last call):`,
);
log(HEAP_HEADER);
const hostDelta = hostEnd.after - hostStart.after;
log(heapLine('host (this process)', hostStart.after, hostEnd.before, hostEnd.after));
checks.push({
  ok: hostDelta <= 5 * 1_048_576,
  what: `host: heap after GC within 5 MB of the start (${signedMb(hostDelta)})`,
});
for (const [i, p] of proxies.entries()) {
  const { rows, checks: more } = processChecks(p.name, baseline[i], final[i], {
    compareHeap: true,
    http: p.http,
    freshNodeTimeouts: p.http ? proxy.freshTimers.nodeTimeouts : 0,
  });
  for (const row of rows) log(row);
  checks.push(...more);
}
const steady = stdioLanes[1]; // no kills, no drops: one proxy and one upstream from start to end
checks.push(
  ...hopChecks(
    steady.name,
    tally.byLane.get(steady.name),
    tally.completedByLane.get(steady.name) ?? 0,
    final[1],
  ),
);
checks.push({
  ok: Object.values(hostTables).every((n) => n === 0),
  what: `host tables: ${Object.entries(hostTables)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ')}`,
});
checks.push({
  ok: hostTimers.queued === 0 && !hostTimers.armed && hostTimers.nodeTimeouts === 0,
  what: `host timers after shutdown: ${hostTimers.queued} queued, clock timer ${hostTimers.armed ? 'armed' : 'not armed'}, ${hostTimers.nodeTimeouts} Node timeouts`,
});
checks.push({
  ok: afterHttp.transport.sessions === 0 && afterHttp.transport.statelessInFlight === 0,
  what: `http proxy after its hosts closed: ${afterHttp.transport.sessions} sessions, ${afterHttp.transport.statelessInFlight} requests`,
});
const reaped = stdioLanes[2].reaped ?? [];
checks.push({
  ok: reaped.every((r) => r.exit && !r.exit.error),
  what: `every dropped stdio proxy exited by itself: ${reaped.map((r) => (r.exit ? (r.exit.signal ?? r.exit.code) : 'hung')).join(' ')}`,
});
checks.push({
  ok: proxyExit.code === 0,
  what: `http proxy exited ${proxyExit.code ?? proxyExit.signal} on SIGTERM`,
});
checks.push({
  ok: busyMs < 100,
  what: `host idle after shutdown: ${Math.round(busyMs)} ms of CPU in the next second`,
});
checks.push({
  ok: survivors.length === 0,
  what: `no process outlived the soak (${pids.size} proxies and upstreams started${survivors.length ? `; alive: ${survivors.join(' ')}` : ''})`,
});

log('');
log('checks:');
for (const check of checks) log(`  ${check.ok ? 'ok  ' : 'FAIL'} ${check.what}`);
const failed = checks.filter((c) => !c.ok).length;
log(failed === 0 ? `soak passed (seed ${seedText})` : `soak FAILED: ${failed} checks (seed ${seedText})`);
process.exitCode = failed === 0 ? 0 : 1;
clearTimeout(watchdog);

/** Stats of every proxy (with its upstream's), after a collection in each. */
async function statsOfAll() {
  return Promise.all(proxies.map((p) => p.source.stats({ gc: true, upstream: true })));
}

/** Waits until every proxy and upstream has nothing in flight (cancels travel after the calls end). */
async function settle() {
  const from = performance.now();
  for (;;) {
    const all = await Promise.all(proxies.map((p) => p.source.stats({ upstream: true })));
    const busy = all.some(
      (s) =>
        s.tables.inboundInFlight + s.relay.inFlightTable + s.upstream.tables.outboundInFlight > 0 ||
        (s.upstream.stats?.work.running ?? 0) > 0 ||
        s.timers.queued > 0 ||
        (s.upstream.stats?.timers.queued ?? 0) > 0,
    );
    if (!busy || performance.now() - from > 20_000) return Math.round(performance.now() - from);
    await sleep(50);
  }
}

function hostHeap() {
  const before = process.memoryUsage().heapUsed;
  gc();
  gc();
  return { before, after: process.memoryUsage().heapUsed };
}

/** The host side's tables: every client endpoint of every lane. */
function hostTablesOf() {
  const sum = { inboundInFlight: 0, outboundInFlight: 0, outboundTokens: 0, progressRoutes: 0 };
  for (const lane of lanes) {
    const endpoint = lane.client.endpoint;
    const stats = endpoint.stats;
    sum.inboundInFlight += stats.inboundInFlight;
    sum.outboundInFlight += stats.outboundInFlight;
    sum.outboundTokens += stats.outboundTokens;
    sum.progressRoutes += endpoint.progressRelay.stats.openRoutes;
  }
  return sum;
}

if (process.env.SOAK_DEBUG) {
  const { Session } = await import('node:inspector/promises');
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  await sleep(3_000);
  const { profile } = await session.post('Profiler.stop');
  const self = new Map();
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  for (const id of profile.samples) {
    const n = byId.get(id);
    const key = `${n.callFrame.functionName} ${n.callFrame.url.split('/').slice(-3).join('/')}:${n.callFrame.lineNumber}`;
    self.set(key, (self.get(key) ?? 0) + 1);
  }
  log(
    [...self]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 25)
      .map(([k, v]) => `${v} ${k}`)
      .join('\n'),
  );
  for (const h of process._getActiveHandles())
    log(
      `handle ${h.constructor.name} ${h.remoteAddress ?? ''}:${h.remotePort ?? ''} ${h.localPort ?? ''} fd ${h._handle?.fd} destroyed ${h.destroyed} readable ${h.readable} writable ${h.writable} ${h.server ? 'server-side' : ''} ${h._host ?? ''}`,
    );
  process.exit(process.exitCode);
}

// Every handle was closed and checked above; leave now rather than wait on sockets that close lazily.
process.exit(process.exitCode);
