// Progress throughput: N notifications/progress for one request, server handler -> client callback.
// Configs: `floor` (bare JSON stringify+parse, no protocol), `sdk-v1` (official SDK Client+Server over
// InMemoryTransport with a JSON round trip on every message), `inflight` (two core Endpoints joined by a
// channel that stringifies and parses every message, coalescing off so every update is delivered).
// Each config runs twice on the same objects: a first, cold pass (JIT warming up: `coldRatePerSec`) and the
// timed, warm pass (`ratePerSec`, `ms`). A pass is timed from just before the request to its result (the
// result follows the last update in every config), with no clock read per update, as in the floor's loop.
// Prints one JSON line: { config, n, ratePerSec, ms, heapMB, coldRatePerSec }. `floor-vs-inflight`
// alternates the two in one process and prints the median ratio (see floorVsInflight).
import { Endpoint, ProgressRelay } from '@mcp-inflight/core';

const config = process.argv[2];
const n = Number(process.argv[3] ?? 100_000);

const rateOf = (ms, received) => Math.round((received / ms) * 1000);

/** Runs `pass` twice (cold, then warm) and prints the warm pass, with the cold rate beside it. */
async function measure(pass, lossy = false) {
  const check = (received) => {
    if (lossy ? received < n * 0.99 : received !== n)
      throw new Error(`${config}: received ${received} of ${n}`);
  };
  const cold = await pass();
  check(cold.received);
  const warm = await pass();
  check(warm.received);
  globalThis.gc?.();
  const heapMB = process.memoryUsage().heapUsed / 1e6;
  console.log(
    JSON.stringify({
      config,
      n,
      ratePerSec: rateOf(warm.ms, warm.received),
      ms: +warm.ms.toFixed(1),
      heapMB: +heapMB.toFixed(1),
      coldRatePerSec: rateOf(cold.ms, cold.received),
    }),
  );
}

async function floorPass() {
  let received = 0;
  const t0 = performance.now();
  for (let i = 1; i <= n; i++) {
    const m = JSON.parse(
      JSON.stringify({
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: 0, progress: i, total: n },
      }),
    );
    if (m.params.progress === i) received++;
  }
  return { ms: performance.now() - t0, received };
}

async function floor() {
  await measure(floorPass);
}

/** Two core Endpoints joined by a JSON channel; returns one timed pass of n updates through them. */
function inflightPass() {
  const relay = new ProgressRelay({ minIntervalMs: 0 });
  let client;
  const server = new Endpoint({
    role: 'server',
    transport: 'stdio',
    progressRelay: relay,
    channel: { write: (m) => client.receiveText(JSON.stringify(m)) },
  });
  client = new Endpoint({
    role: 'client',
    transport: 'stdio',
    progressRelay: relay,
    channel: { write: (m) => server.receiveText(JSON.stringify(m)) },
  });
  server.setRequestHandler('tools/call', (_p, ctx) => {
    for (let i = 1; i <= n; i++) ctx.progress(i, n);
    return { content: [] };
  });
  return async () => {
    let received = 0;
    const t0 = performance.now();
    await client.request('tools/call', { name: 'flood' }, { onprogress: () => void received++ });
    return { ms: performance.now() - t0, received };
  };
}

async function inflight() {
  await measure(inflightPass());
}

/**
 * `floor-vs-inflight`: the floor and inflight passes alternated in one process, `pairs` times after a warm
 * pass of each, so both see the same load; prints the median of the per-pair ratios (what a loaded machine
 * distorts least) beside each config's median rate.
 */
async function floorVsInflight(pairs = 9) {
  const pass = inflightPass();
  await floorPass();
  await pass();
  const ratios = [];
  const floorRates = [];
  const inflightRates = [];
  for (let i = 0; i < pairs; i++) {
    const f = await floorPass();
    const p = await pass();
    if (f.received !== n || p.received !== n) throw new Error('lost updates');
    floorRates.push(rateOf(f.ms, n));
    inflightRates.push(rateOf(p.ms, n));
    ratios.push(p.ms / f.ms);
  }
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  console.log(
    JSON.stringify({
      config,
      n,
      pairs,
      floorRatePerSec: median(floorRates),
      inflightRatePerSec: median(inflightRates),
      floorOverInflight: +median(ratios).toFixed(3),
      floorOverInflightRange: [+Math.min(...ratios).toFixed(3), +Math.max(...ratios).toFixed(3)],
    }),
  );
}

async function sdkV1() {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { Server } = await import('@modelcontextprotocol/sdk/server/index.js');
  const { InMemoryTransport } = await import('@modelcontextprotocol/sdk/inMemory.js');
  const { CallToolRequestSchema } = await import('@modelcontextprotocol/sdk/types.js');
  const [a, b] = InMemoryTransport.createLinkedPair();
  for (const t of [a, b]) {
    const send = t.send.bind(t);
    t.send = (m, o) => send(JSON.parse(JSON.stringify(m)), o);
  }
  const server = new Server({ name: 's', version: '1' }, { capabilities: { tools: {} } });
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const progressToken = req.params._meta?.progressToken;
    for (let i = 1; i <= n; i++) {
      await extra.sendNotification({
        method: 'notifications/progress',
        params: { progressToken, progress: i, total: n },
      });
    }
    return { content: [] };
  });
  const client = new Client({ name: 'c', version: '1' });
  await Promise.all([server.connect(b), client.connect(a)]);
  await measure(async () => {
    let received = 0;
    const t0 = performance.now();
    await client.callTool({ name: 'flood', arguments: {} }, undefined, {
      timeout: 600_000,
      onprogress: () => void received++,
    });
    return { ms: performance.now() - t0, received };
  });
}

async function sdkV2() {
  const { Client, InMemoryTransport } = await import('@modelcontextprotocol/client');
  const { McpServer } = await import('@modelcontextprotocol/server');
  const [a, b] = InMemoryTransport.createLinkedPair();
  for (const t of [a, b]) {
    const send = t.send.bind(t);
    t.send = (m, o) => send(JSON.parse(JSON.stringify(m)), o);
  }
  const server = new McpServer({ name: 's', version: '2' }, { capabilities: { tools: {} } });
  server.registerTool('flood', {}, async (ctx) => {
    const progressToken = ctx.mcpReq._meta?.progressToken;
    for (let i = 1; i <= n; i++) {
      await ctx.mcpReq.notify({
        method: 'notifications/progress',
        params: { progressToken, progress: i, total: n },
      });
    }
    return { content: [] };
  });
  const client = new Client({ name: 'c', version: '2' });
  await Promise.all([server.connect(b), client.connect(a)]);
  // The SDKs drop progress that shares a turn with the response; count what arrived.
  await measure(async () => {
    let received = 0;
    const t0 = performance.now();
    await client.callTool(
      { name: 'flood', arguments: {} },
      { timeout: 600_000, onprogress: () => void received++ },
    );
    return { ms: performance.now() - t0, received };
  }, true);
}

await { floor, inflight, 'sdk-v1': sdkV1, 'sdk-v2': sdkV2, 'floor-vs-inflight': floorVsInflight }[config]();
process.exit(0);
