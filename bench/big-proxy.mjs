// A large result and a large progress message through examples/proxy, for every host and upstream
// transport (stdio or HTTP each), against the time of one JSON.parse + JSON.stringify of the message.
//   node bench/big-proxy.mjs [--mb 10] [--calls 5] [--legs stdio-stdio,stdio-http,http-stdio,http-http]
//     [--proxy-env NAME=VALUE]
// Each leg: host → proxy → upstream. The upstream's tool `big {bytes, kind}` sends one progress whose
// message is `bytes` characters and returns a small result (kind `progress`), or returns one text item of
// `bytes` characters (kind `result`). The host is our client (spawnStdio on the proxy's stdio, or
// HttpClient to its HTTP endpoint), 2025-11-25 both sides; the time is the call's, host side, after one
// small warm-up call, `calls` times per kind. Prints one JSON line: per leg and kind, for the first call and
// the median of the later ones, ms and ms / the JSON round trip's ms, and the CPU ms every process of the
// leg (host, proxy, upstream) spent on the call (Linux /proc; moves less with load); for the first call
// also the minor page faults of each process (`resultFaults`: {host, proxy, upstream}).
// Needs `pnpm build`.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { budget, finish, listeningUrl, option, percentile, round, startNode } from './lib/procs.mjs';

const PROXY = fileURLToPath(new URL('../examples/proxy/dist/index.js', import.meta.url));
const SELF = fileURLToPath(import.meta.url);
/** BENCH_CPU_PROF_DIR: the stdio children (proxy, upstream) write CPU profiles too, as startNode's do. */
const PROF = process.env.BENCH_CPU_PROF_DIR
  ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_CPU_PROF_DIR]
  : [];

if (process.argv[2] === '--upstream') await upstream(process.argv[3]);
else await main();

async function upstream(transport) {
  const { serveLifecycle } = await import('@mcp-inflight/core');
  const setup = (endpoint) => {
    serveLifecycle(endpoint, { serverInfo: { name: 'big', version: '1' }, capabilities: { tools: {} } });
    endpoint.setRequestHandler('tools/call', async (params, ctx) => {
      const { bytes, kind } = params.arguments;
      if (kind === 'progress') {
        ctx.progress(1, 2, 'p'.repeat(bytes));
        return { content: [{ type: 'text', text: 'done' }] };
      }
      return { content: [{ type: 'text', text: 'r'.repeat(bytes) }] };
    });
  };
  if (transport === 'stdio') {
    const { serveStdio } = await import('@mcp-inflight/stdio');
    await serveStdio(setup).closed;
    process.exit(0);
  }
  const { serveHttp } = await import('@mcp-inflight/http');
  const running = await serveHttp(setup, { port: 0 });
  process.once('SIGTERM', () => running.close().then(() => process.exit(0)));
}

async function main() {
  budget(Number(option('budget-ms', 300_000)), 'big-proxy');
  const bytes = Math.round(Number(option('mb', 10)) * 1_000_000);
  const legs = option('legs', 'stdio-stdio,stdio-http,http-stdio,http-http').split(',');
  const calls = Math.max(1, Number(option('calls', 5)));
  // --proxy-env NAME=VALUE: one variable for the proxy alone (and the stdio upstream it starts), e.g. a
  // malloc tunable an operator would set, measured without giving it to the host or an HTTP upstream.
  const extra = option('proxy-env', '');
  const proxyEnv = extra
    ? { ...process.env, [extra.split('=')[0]]: extra.slice(extra.indexOf('=') + 1) }
    : undefined;
  const { spawnStdio } = await import('@mcp-inflight/stdio');
  const { HttpClient } = await import('@mcp-inflight/http');
  const out = { bytes, jsonRoundTripMs: round(jsonRoundTripMs(bytes), 1), legs: {} };
  for (const leg of legs) {
    const [host, up] = leg.split('-');
    const started = [];
    let upstreamArgs;
    if (up === 'stdio')
      upstreamArgs = ['--upstream-stdio', [process.execPath, ...PROF, SELF, '--upstream', 'stdio'].join(' ')];
    else {
      const server = startNode(SELF, ['--upstream', 'http']);
      started.push(server);
      upstreamArgs = ['--upstream-http', await listeningUrl(server)];
    }
    const proxyArgs = [...PROF, PROXY, ...upstreamArgs, '--log', 'quiet', '--progress-interval', '0'];
    let client;
    if (host === 'stdio') {
      client = spawnStdio(
        { command: process.execPath, args: proxyArgs },
        { stderr: 'inherit', env: proxyEnv },
      );
    } else {
      const proxy = startNode(
        PROXY,
        [...upstreamArgs, '--http', '0', '--log', 'quiet', '--progress-interval', '0'],
        { env: proxyEnv },
      );
      started.push(proxy);
      client = new HttpClient({ url: await listeningUrl(proxy), listen: false });
    }
    await client.connect({ revision: '2025-11-25' });
    const call = async (kind, n) => {
      let progressChars = 0;
      const before = treeUsage();
      const t0 = performance.now();
      const result = await client.callTool(
        'big',
        { bytes: n, kind },
        { idleMs: 120_000, ceilingMs: 240_000, onprogress: (p) => (progressChars = p.message?.length ?? 0) },
      );
      const ms = performance.now() - t0;
      const after = treeUsage();
      const cpuMs = after.cpuMs - before.cpuMs;
      const faults = {};
      for (const role of ['host', 'proxy', 'upstream'])
        faults[role] = after.faults[role] - before.faults[role];
      const chars = kind === 'result' ? result.content[0].text.length : progressChars;
      if (chars !== n) throw new Error(`${leg} ${kind}: ${chars} characters arrived, not ${n}`);
      return { ms, cpuMs, faults };
    };
    await call('result', 10);
    await call('progress', 10);
    // The JSON round trip is timed right before each call, so both see the same load.
    const timed = async (kind) => {
      const rows = [];
      for (let i = 0; i < calls; i++) {
        const jsonMs = jsonRoundTripMs(bytes);
        rows.push({ ...(await call(kind, bytes)), jsonMs });
      }
      return rows;
    };
    const results = await timed('result');
    const progresses = await timed('progress');
    out.legs[leg] = { ...figures('result', results), ...figures('progress', progresses) };
    await client.close();
    for (const p of started) await p.stop();
    process.stderr.write(`${leg}: ${JSON.stringify(out.legs[leg])}\n`);
  }
  finish(out);
}

/**
 * A kind's figures over its calls: the first (`resultMs`: every process of the leg still growing its heap
 * for a message this size) and the median of the later ones (`resultWarmMs`: a proxy that has carried one
 * before), each also over the JSON round trip timed just before it, and the CPU of each.
 */
function figures(kind, rows) {
  const [first, ...later] = rows;
  const median = (values) =>
    percentile(
      values.sort((a, b) => a - b),
      50,
    );
  return {
    [`${kind}Ms`]: round(first.ms, 1),
    [`${kind}OverJson`]: round(first.ms / first.jsonMs, 2),
    [`${kind}CpuMs`]: round(first.cpuMs, 0),
    [`${kind}Faults`]: first.faults,
    ...(later.length === 0
      ? {}
      : {
          [`${kind}WarmMs`]: round(median(later.map((r) => r.ms)), 1),
          [`${kind}WarmOverJson`]: round(median(later.map((r) => r.ms / r.jsonMs)), 2),
          [`${kind}WarmCpuMs`]: round(median(later.map((r) => r.cpuMs)), 0),
        }),
  };
}

/** One JSON.parse + JSON.stringify of a result message carrying `bytes` characters (median of 3). */
function jsonRoundTripMs(bytes) {
  const text = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    result: { content: [{ type: 'text', text: 'r'.repeat(bytes) }] },
  });
  const times = [];
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    JSON.stringify(JSON.parse(text));
    times.push(performance.now() - t0);
  }
  return times.sort((a, b) => a - b)[1];
}

/**
 * CPU ms (user + system) of this process and all its descendants, and the minor page faults of each role
 * (this process is the host; the one running examples/proxy is the proxy; the rest are upstreams), from
 * /proc (10 ms ticks). A fault is a first touch of a fresh 4 KiB page: a 10 MB copy into new memory is
 * about 2,441 of them, the cost a process's first large message pays and its later ones mostly do not.
 * NaN where /proc is missing. A descendant that exits between two readings drops out, so read around
 * live calls only.
 */
function treeUsage() {
  const none = { cpuMs: Number.NaN, faults: { host: Number.NaN, proxy: Number.NaN, upstream: Number.NaN } };
  let entries;
  try {
    entries = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return none;
  }
  const parent = new Map();
  const stats = new Map();
  for (const pid of entries) {
    let stat;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue; // gone
    }
    // Fields after the command (which may hold spaces), from its closing parenthesis: state ppid ... minflt
    // (index 7) ... utime stime (11, 12)
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    parent.set(Number(pid), Number(fields[1]));
    stats.set(Number(pid), { ticks: Number(fields[11]) + Number(fields[12]), faults: Number(fields[7]) });
  }
  const inTree = (pid) => {
    for (let p = pid; p > 1; p = parent.get(p) ?? 0) if (p === process.pid) return true;
    return false;
  };
  const role = (pid) => {
    if (pid === process.pid) return 'host';
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(PROXY) ? 'proxy' : 'upstream';
    } catch {
      return 'upstream';
    }
  };
  let ticks = 0;
  const faults = { host: 0, proxy: 0, upstream: 0 };
  for (const [pid, s] of stats) {
    if (!inTree(pid)) continue;
    ticks += s.ticks;
    faults[role(pid)] += s.faults;
  }
  return { cpuMs: (ticks * 1000) / 100, faults }; // USER_HZ is 100 on Linux
}
