// Proxies side by side: examples/proxy and mcp-proxy 6.7.19, each listening on Streamable HTTP at
// 127.0.0.1 (port 0) /mcp in front of the same upstream (upstream.mjs: an SDK v1 McpServer on stdio that
// each proxy spawns), with an official SDK client as the host, in this process.
//
//   node relay.mjs <proxy> <era> flood [--n 20000] [--coalesce]
//   node relay.mjs <proxy> <era> cancel [--calls 200] [--warmup 20]
//
//   proxy:  inflight (examples/proxy, `--log quiet`; `--progress-interval 0` unless --coalesce) or
//           mcp-proxy (its CLI with its defaults; it relays every update and has no coalescing to set)
//   era:    the host's side: legacy (SDK v1 Client, 2025-11-25) or modern (SDK v2 Client pinned to
//           2026-07-28). The upstream leg is legacy stdio for both proxies.
//   flood:  one call whose upstream sends n progress updates as fast as the SDK writes them; what the
//           upstream sent, what the host received, whether the last value arrived, and the rates over the
//           whole call as the host saw it (request sent to result read)
//   cancel: sequential calls to `wait`; once the upstream handler has started (its stderr says so) the
//           host aborts; the time from the host's abort to the upstream handler's abort, read in each
//           process on the machine's monotonic clock (`process.hrtime`: one clock for all processes,
//           sub-microsecond). Each side also reads `performance.timeOrigin + performance.now()`; the
//           two processes' disagreement on that clock is reported as `timeOriginSkewMs` (it is fixed
//           per process pair, and under load it reaches tens of ms, so it cannot time a trip)
// Prints one JSON line.
import { fileURLToPath } from 'node:url';
import {
  budget,
  finish,
  listeningUrl,
  monoMs,
  option,
  percentile,
  round,
  startNode,
  wallMs,
} from '../lib/procs.mjs';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const UPSTREAM = here('./upstream.mjs');
const OUR_PROXY = here('../../examples/proxy/dist/index.js');
const MCP_PROXY = here('../node_modules/mcp-proxy/dist/bin/mcp-proxy.mjs');

const [proxyName, era, workload] = process.argv.slice(2);
const coalesce = process.argv.includes('--coalesce');
budget(Number(option('budget-ms', 120_000)), `proxies/relay ${process.argv.slice(2).join(' ')}`);

// The upstream's stderr lines, by kind and tag, with waiters for the ones not seen yet.
const seen = new Map();
const waiting = new Map();
function onLine(line) {
  const match = /^(?:upstream: )?BENCH-(START|ABORT|FLOOD) (\S+) (.*)$/.exec(line);
  if (!match) return;
  const key = `${match[1]} ${match[2]}`;
  const fields = match[3].split(' ').map(Number);
  const waiter = waiting.get(key);
  if (waiter) {
    waiting.delete(key);
    waiter(fields);
  } else seen.set(key, fields);
}
function upstreamSaid(kind, tag, timeoutMs = 10_000) {
  const key = `${kind} ${tag}`;
  if (seen.has(key)) {
    const fields = seen.get(key);
    seen.delete(key);
    return Promise.resolve(fields);
  }
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      waiting.delete(key);
      reject(new Error(`the upstream never said ${key}`));
    }, timeoutMs);
    waiting.set(key, (fields) => {
      clearTimeout(timer);
      resolve(fields);
    });
  });
}

const upstreamCommand = [process.execPath, UPSTREAM];
const proxy =
  proxyName === 'inflight'
    ? startNode(
        OUR_PROXY,
        [
          '--http',
          '0',
          '--log',
          'quiet',
          ...(coalesce || workload !== 'flood' ? [] : ['--progress-interval', '0']),
          '--upstream-stdio',
          upstreamCommand.map((word) => `'${word}'`).join(' '),
        ],
        { onLine },
      )
    : startNode(MCP_PROXY, ['--port', '0', '--host', '127.0.0.1', '--', ...upstreamCommand], { onLine });
const url = await listeningUrl(proxy);
const host = await connectHost(url);

const result = workload === 'flood' ? await flood(Number(option('n', 20_000))) : await cancel();
await host.close();
await proxy.stop();
finish({ proxy: proxyName, era, workload, ...(workload === 'flood' ? { coalesce } : {}), ...result });

async function connectHost(target) {
  if (era === 'legacy') {
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const { StreamableHTTPClientTransport } = await import(
      '@modelcontextprotocol/sdk/client/streamableHttp.js'
    );
    const client = new Client({ name: 'bench-host', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(target)));
    return {
      call: (name, args, options) => client.callTool({ name, arguments: args }, undefined, options),
      close: () => client.close(),
    };
  }
  const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
  const client = new Client(
    { name: 'bench-host', version: '2.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(target)));
  return {
    call: (name, args, options) => client.callTool({ name, arguments: args }, options),
    close: () => client.close(),
  };
}

async function flood(n) {
  // A small call first, so both proxies have their upstream started and warm.
  await host.call('flood', { n: 100, tag: 'warm' }, { onprogress: () => {}, timeout: 60_000 });
  let received = 0;
  let last = 0;
  const t0 = performance.now();
  await host.call(
    'flood',
    { n, tag: 'main' },
    {
      timeout: 60_000,
      onprogress: (p) => {
        received++;
        last = p.progress;
      },
    },
  );
  const hostMs = performance.now() - t0;
  const [sent, start, end] = await upstreamSaid('FLOOD', 'main');
  return {
    n,
    upstreamSent: sent,
    received,
    lastValue: last,
    lastArrived: last === n,
    hostMs: round(hostMs, 1),
    upstreamWriteMs: round(end - start, 1),
    upstreamPerSec: Math.round((sent / hostMs) * 1000),
    receivedPerSec: Math.round((received / hostMs) * 1000),
  };
}

async function cancel() {
  const calls = Number(option('calls', 200));
  const warmup = Number(option('warmup', 20));
  const trips = [];
  const skews = [];
  let missing = 0;
  for (let i = 0; i < warmup + calls; i++) {
    const tag = `c${i}`;
    const stop = new AbortController();
    const call = host.call('wait', { tag }, { signal: stop.signal, timeout: 60_000 }).then(
      () => 'completed',
      () => 'rejected',
    );
    await upstreamSaid('START', tag);
    const t0 = monoMs();
    const w0 = wallMs();
    stop.abort(new Error('bench: host abort'));
    let t1;
    let w1;
    try {
      [t1, w1] = await upstreamSaid('ABORT', tag, 5_000);
    } catch {
      missing++; // the cancel never reached the handler; the call ends on its own after 30 s
    }
    if ((await call) !== 'rejected') throw new Error(`call ${tag} was not cancelled at the host`);
    if (i >= warmup && t1 !== undefined) {
      trips.push(t1 - t0);
      skews.push(w1 - w0 - (t1 - t0));
    }
  }
  trips.sort((a, b) => a - b);
  skews.sort((a, b) => a - b);
  return {
    timeOriginSkewMs: round(percentile(skews, 50), 3),
    calls,
    measured: trips.length,
    missing,
    p50Ms: round(percentile(trips, 50), 3),
    p90Ms: round(percentile(trips, 90), 3),
    p99Ms: round(percentile(trips, 99), 3),
    maxMs: round(trips.at(-1), 3),
    minMs: round(trips[0], 3),
  };
}
