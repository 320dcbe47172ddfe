// A proxy built on core Endpoints (host-facing server endpoint -> upstream client endpoint), every hop a
// JSON stringify+parse, all in one process so only the library's own work is timed.
//   flood:  the upstream's handler writes N progress updates as fast as it can; how fast does the proxy
//           absorb them (read, check, map, coalesce) compared with how fast the upstream writes them?
//   cancel: a host aborts a call; how long until the upstream handler's signal aborts, direct vs proxied?
// Prints one JSON line per config.
import { Endpoint, ProgressRelay } from '@mcp-inflight/core';

const config = process.argv[2];
const n = Number(process.argv[3] ?? 100_000);

/** Two endpoints joined by JSON channels; `b` serves, `a` calls. */
function link(serverSetup, serverRelay) {
  let a;
  let b;
  b = new Endpoint({
    role: 'server',
    transport: 'stdio',
    progressRelay: serverRelay,
    channel: { write: (m) => a.receiveText(JSON.stringify(m)) },
  });
  a = new Endpoint({
    role: 'client',
    transport: 'stdio',
    channel: { write: (m) => b.receiveText(JSON.stringify(m)) },
  });
  serverSetup(b);
  return a;
}

function upstreamSetup(state) {
  return (server) => {
    server.setRequestHandler('tools/call', (params, ctx) => {
      if (params.name === 'flood') {
        const t0 = performance.now();
        for (let i = 1; i <= n; i++) ctx.progress(i, n);
        state.writeMs = performance.now() - t0;
        return { content: [] };
      }
      state.running?.(ctx);
      return new Promise(() => {});
    });
  };
}

// The upstream sends every update (no coalescing at the source): that is the flood.
const floodingRelay = () => new ProgressRelay({ minIntervalMs: 0 });

function proxied(state) {
  const upstream = link(upstreamSetup(state), floodingRelay());
  return link((host) => {
    host.setRequestHandler('tools/call', (params, ctx) =>
      upstream.request(
        'tools/call',
        { name: params.name, arguments: params.arguments },
        {
          signal: ctx.signal,
          onprogress: (p) => ctx.progress(p.progress, p.total, p.message),
        },
      ),
    );
  });
}

async function flood(viaProxy) {
  const state = {};
  // The upstream's own relay does not coalesce here, so it writes every update (the flood).
  const client = viaProxy ? proxied(state) : link(upstreamSetup(state), floodingRelay());
  let received = 0;
  const t0 = performance.now();
  await client.request('tools/call', { name: 'flood' }, { onprogress: () => received++ });
  const totalMs = performance.now() - t0;
  return {
    receivedByHost: received,
    writeOnlyMs: +state.writeMs.toFixed(1),
    upstreamWriteAndAbsorbMs: +totalMs.toFixed(1),
    absorbedPerSec: Math.round((n / totalMs) * 1000),
  };
}

async function cancelTrip(viaProxy) {
  const trips = [];
  for (let i = 0; i < 2_000; i++) {
    let running;
    const started = new Promise((resolve) => {
      running = resolve;
    });
    const state = { running: (ctx) => running(ctx) };
    const client = viaProxy ? proxied(state) : link(upstreamSetup(state));
    const stop = new AbortController();
    const call = client.request('tools/call', { name: 'wait' }, { signal: stop.signal }).catch(() => {});
    const ctx = await started;
    const t0 = performance.now();
    let t1 = 0;
    ctx.signal.addEventListener('abort', () => {
      t1 = performance.now();
    });
    stop.abort();
    await call;
    if (!t1) throw new Error('the upstream handler was not cancelled');
    trips.push((t1 - t0) * 1000);
  }
  trips.sort((x, y) => x - y);
  return {
    cancelTripMedianUs: +trips[trips.length >> 1].toFixed(2),
    cancelTripP99Us: +trips[Math.floor(trips.length * 0.99)].toFixed(2),
  };
}

const runs = {
  'flood-direct': () => flood(false),
  'flood-proxied': () => flood(true),
  'cancel-direct': () => cancelTrip(false),
  'cancel-proxied': () => cancelTrip(true),
};
console.log(JSON.stringify({ config, n, ...(await runs[config]()) }));
process.exit(0);
