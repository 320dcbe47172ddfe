// Progress throughput: N notifications/progress for one request, server handler -> client callback.
// Configs: `floor` (bare JSON stringify+parse, no protocol), `sdk-v1` (official SDK Client+Server over
// InMemoryTransport with a JSON round trip on every message), `inflight` (two core Endpoints joined by a
// channel that stringifies and parses every message, coalescing off so every update is delivered).
// Prints one JSON line: { config, n, ratePerSec, ms, heapMB }.
import { Endpoint, ProgressRelay } from '@mcp-inflight/core';

const config = process.argv[2];
const n = Number(process.argv[3] ?? 100_000);

function report(ms, received, lossy = false) {
  if (lossy ? received < n * 0.99 : received !== n)
    throw new Error(`${config}: received ${received} of ${n}`);
  globalThis.gc?.();
  const heapMB = process.memoryUsage().heapUsed / 1e6;
  console.log(
    JSON.stringify({
      config,
      n,
      ratePerSec: Math.round((received / ms) * 1000),
      ms: +ms.toFixed(1),
      heapMB: +heapMB.toFixed(1),
    }),
  );
}

async function floor() {
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
  report(performance.now() - t0, received);
}

async function inflight() {
  const relay = new ProgressRelay({ minIntervalMs: 0 });
  let client;
  const server = new Endpoint({
    role: 'server',
    transport: 'stdio',
    relay,
    channel: { write: (m) => client.receiveText(JSON.stringify(m)) },
  });
  client = new Endpoint({
    role: 'client',
    transport: 'stdio',
    relay,
    channel: { write: (m) => server.receiveText(JSON.stringify(m)) },
  });
  server.setRequestHandler('tools/call', (_p, ctx) => {
    for (let i = 1; i <= n; i++) ctx.progress(i, n);
    return { content: [] };
  });
  let received = 0;
  let first = 0;
  let last = 0;
  await client.request(
    'tools/call',
    { name: 'flood' },
    {
      onprogress: () => {
        if (received++ === 0) first = performance.now();
        last = performance.now();
      },
    },
  );
  report(last - first, received);
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
  let received = 0;
  let first = 0;
  let last = 0;
  await client.callTool({ name: 'flood', arguments: {} }, undefined, {
    timeout: 600_000,
    onprogress: () => {
      if (received++ === 0) first = performance.now();
      last = performance.now();
    },
  });
  report(last - first, received);
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
  let received = 0;
  let first = 0;
  let last = 0;
  await client.callTool(
    { name: 'flood', arguments: {} },
    {
      timeout: 600_000,
      onprogress: () => {
        if (received++ === 0) first = performance.now();
        last = performance.now();
      },
    },
  );
  // The SDKs drop progress that shares a turn with the response; count what arrived.
  report(last - first, received, true);
}

await { floor, inflight, 'sdk-v1': sdkV1, 'sdk-v2': sdkV2 }[config]();
process.exit(0);
