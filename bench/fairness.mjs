// Fair shares between hosts of one proxy: a quiet host makes one short call after another, alone (its
// baseline) and then while a busy host keeps FLOOD long calls in flight through the same proxy onto one
// upstream (examples/server, whose own gate runs 1,000 handlers at once). By default (--era modern) both
// hosts are 2026-07-28 clients on one address with no auth, differing only in the clientInfo name their
// requests carry in `_meta` (issue 45's default set-up); --era legacy makes them legacy HTTP sessions
// (one address: one share without auth). Target (rule 14): under the flood the quiet host keeps at least
// half its baseline call rate and its p95 within 5x its baseline.
//
//   node bench/fairness.mjs [shares|no-shares|bin] [--era modern|legacy] [--flood 1200] [--window-ms 15000]
//                           [--long-ms 10000] [--proxy-bin PATH] [--proxy-flags "..."] [--quick]
//
// shares:    the proxy as built, default flags (--max-in-flight 1000, --max-host-in-flight 100).
// no-shares: the same with --max-host-in-flight 1000: hosts still taken in turn, but one may hold every slot.
// bin:       another proxy build (--proxy-bin, e.g. a checkout of main's packages/proxy/dist/bin.js) with
//            its own defaults: the figures before fair shares.
// Prints one JSON line.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const argOf = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : process.argv[at + 1];
};
const config = process.argv[2]?.startsWith('--') ? 'shares' : (process.argv[2] ?? 'shares');
const childUrl = argOf('flood-child', undefined); // the busy host runs in a process of its own
const quick = process.argv.includes('--quick');
const era = argOf('era', 'modern');
if (era !== 'modern' && era !== 'legacy') throw new Error(`--era is modern or legacy, not ${era}`);
const MODERN = '2026-07-28';
const flood = Number(argOf('flood', quick ? 150 : 1_200));
const windowMs = Number(argOf('window-ms', quick ? 2_000 : 15_000));
const longMs = Number(argOf('long-ms', quick ? 3_000 : 10_000));
// --quick fronts a small gate, so a 150-call flood still queues in the proxy.
const gateFlags = quick
  ? ['--max-in-flight', '100', '--max-host-in-flight', config === 'no-shares' ? '100' : '50']
  : [];
const SERVER = join(here, '..', 'examples', 'server', 'dist', 'index.js');
const OURS = join(here, '..', 'packages', 'proxy', 'dist', 'bin.js');
const bin = config === 'bin' ? argOf('proxy-bin', undefined) : OURS;
if (!childUrl && (!bin || !existsSync(bin)))
  throw new Error(`no proxy bin at ${bin} (pnpm build, or --proxy-bin PATH)`);
if (!existsSync(SERVER)) throw new Error(`no ${SERVER}: run pnpm build`);

// fetch's default pool opens a connection per call in flight (no per-origin cap): the flood holds FLOOD.

const flags = [
  '--upstream-stdio',
  `'${process.execPath}' '${SERVER}'`,
  '--http',
  'PORT',
  '--log',
  'quiet',
  '--idle-timeout',
  String(longMs * 6),
  ...(config === 'bin' ? [] : gateFlags),
  ...(config === 'no-shares' && !quick ? ['--max-host-in-flight', '1000'] : []),
  // --proxy-flags "...": more flags for the proxy (to find where the time goes, e.g. a smaller share cap).
  ...argOf('proxy-flags', '')
    .split(' ')
    .filter((f) => f !== ''),
];
const children = [];
const cleanup = () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
};
process.on('exit', cleanup);
process.on('SIGTERM', () => process.exit(1));
let url = childUrl;
let proxy;
if (!childUrl) {
  // A free port of our own and a quiet log: the proxy writes nothing per call for anyone to read.
  const port = await new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
  proxy = spawn(process.execPath, [bin, ...flags.map((f) => (f === 'PORT' ? String(port) : f))], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.push(proxy);
  url = `http://127.0.0.1:${port}/mcp`;
  for (let ready = false; !ready; ) {
    if (proxy.exitCode !== null) throw new Error(`the proxy exited (${proxy.exitCode})`);
    ready = await fetch(`http://127.0.0.1:${port}/readyz`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (!ready) await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const ACCEPT = 'application/json, text/event-stream';
/** Connections a kept-alive pool found reset when it reused them (the request is sent again, counted). */
let resets = 0;
async function post(session, body, retried = false) {
  try {
    return await send(session, body);
  } catch (error) {
    if (retried || error?.cause?.code !== 'ECONNRESET') throw error;
    resets++;
    return post(session, body, true);
  }
}
/** A host: a legacy session id, or (2026-07-28) the clientInfo name its requests carry. */
async function send(host, body) {
  const modern = host?.app !== undefined;
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: ACCEPT,
      ...(modern
        ? { 'mcp-protocol-version': MODERN, 'mcp-method': body.method, 'mcp-name': body.params.name }
        : host
          ? { 'mcp-session-id': host, 'mcp-protocol-version': '2025-06-18' }
          : {}),
    },
    body: JSON.stringify(modern ? withMeta(body, host.app) : body),
  });
  return response;
}
function withMeta(body, app) {
  const _meta = {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: app, version: '1' },
  };
  return { ...body, params: { ...body.params, _meta } };
}
async function openHost(app) {
  return era === 'modern' ? { app } : openSession(app);
}
async function openSession(app) {
  const response = await post(undefined, {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: app, version: '1' },
    },
  });
  await response.text();
  const session = response.headers.get('mcp-session-id');
  await (await post(session, { jsonrpc: '2.0', method: 'notifications/initialized' })).text();
  return session;
}
let nextId = 1;
async function call(session, steps, intervalMs) {
  const id = nextId++;
  const text = await (
    await post(session, {
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'work', arguments: { steps, intervalMs } },
    })
  ).text();
  if (!text.includes('"result"')) throw new Error(`call ${id} failed: ${text.slice(0, 300)}`);
}

/** The quiet host: one short call after another for `windowMs`; its rate and latencies. */
async function quietRun(session) {
  const latencies = [];
  const end = performance.now() + windowMs;
  while (performance.now() < end) {
    const t0 = performance.now();
    await call(session, 1, 1);
    latencies.push(performance.now() - t0);
  }
  latencies.sort((a, b) => a - b);
  const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
  return {
    calls: latencies.length,
    ratePerS: (latencies.length * 1_000) / windowMs,
    p50Ms: at(0.5),
    p95Ms: at(0.95),
  };
}

if (childUrl) {
  // The busy host: `flood` long calls kept in flight, started over one call's length so that they end
  // (and are sent again) steadily rather than in waves; it reports its counts when told to stop.
  const busy = await openHost('flood');
  const steps = 10;
  let flooding = true;
  let done = 0;
  let failed = 0;
  let firstFailure;
  const keep = async (i) => {
    await new Promise((resolve) => setTimeout(resolve, (i * longMs) / flood));
    while (flooding) {
      try {
        await call(busy, steps, longMs / steps);
        done++;
      } catch (error) {
        if (!flooding) return; // the proxy's shutdown ends what was still in flight
        failed++;
        firstFailure ??= String(error.message ?? error).slice(0, 200);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  };
  for (let i = 0; i < flood; i++) void keep(i);
  setTimeout(() => process.stdout.write('started\n'), longMs);
  process.stdin.once('data', () => {
    flooding = false;
    process.stdout.write(`${JSON.stringify({ done, failed, resets, firstFailure })}\n`);
    process.exit(0);
  });
  process.stdin.resume();
  await new Promise(() => {});
}

const quiet = await openHost('quiet');
for (let i = 0; i < 20; i++) await call(quiet, 1, 1); // warm-up
const baseline = await quietRun(quiet);

const busy = spawn(
  process.execPath,
  [fileURLToPath(import.meta.url), config, '--flood-child', url, ...process.argv.slice(3)],
  {
    stdio: ['pipe', 'pipe', 'inherit'],
  },
);
children.push(busy);
const busyLines = createInterface({ input: busy.stdout });
const nextLine = () => new Promise((resolve) => busyLines.once('line', resolve));
await nextLine(); // every flood call has been sent once, over one call's length
const loaded = await quietRun(quiet);
const load = loadavg();
busy.stdin.write('stop\n');
const busyCounts = JSON.parse(await nextLine());
proxy.kill('SIGTERM'); // its drain cancels the flood's calls
cleanup();

const rateRatio = loaded.ratePerS / baseline.ratePerS;
const p95Ratio = loaded.p95Ms / baseline.p95Ms;
console.log(
  JSON.stringify({
    config,
    era,
    proxy: config === 'bin' ? bin : 'packages/proxy/dist/bin.js',
    flood,
    windowMs,
    longMs,
    baselineRatePerS: baseline.ratePerS,
    baselineP50Ms: baseline.p50Ms,
    baselineP95Ms: baseline.p95Ms,
    floodRatePerS: loaded.ratePerS,
    floodCalls: loaded.calls,
    floodP50Ms: loaded.p50Ms,
    floodP95Ms: loaded.p95Ms,
    rateRatio,
    p95Ratio,
    meetsTarget: rateRatio >= 0.5 && p95Ratio <= 5,
    floodCallsDone: busyCounts.done,
    floodCallsFailed: busyCounts.failed,
    connectionResets: resets + busyCounts.resets,
    ...(busyCounts.firstFailure ? { firstFailure: busyCounts.firstFailure } : {}),
    loadAverage1m: load[0],
  }),
);
process.exit(0);
