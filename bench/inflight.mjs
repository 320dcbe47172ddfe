// 10,000 concurrent in-flight requests, each with its own deadline (idle 60 s), against a peer that parks
// them and then answers all. Measures issue time, settle time and retained heap per in-flight request
// (after gc, including the harness's own promises and arrays, which are the same in every config).
// Prints one JSON line: { config, n, createMs, settleMs, bytesPerRequest, timersArmed }.
import { Endpoint } from '@mcp-inflight/core';

const config = process.argv[2];
const n = Number(process.argv[3] ?? 10_000);
const gc = () => {
  globalThis.gc();
  globalThis.gc();
};

async function run(issue, releaseAll) {
  gc();
  const before = process.memoryUsage().heapUsed;
  const t0 = performance.now();
  const calls = [];
  for (let i = 0; i < n; i++) calls.push(issue(i));
  const createMs = performance.now() - t0;
  await new Promise((r) => setImmediate(r));
  gc();
  const bytesPerRequest = Math.round((process.memoryUsage().heapUsed - before) / n);
  const t1 = performance.now();
  releaseAll();
  await Promise.all(calls);
  const settleMs = performance.now() - t1;
  return { createMs: +createMs.toFixed(1), settleMs: +settleMs.toFixed(1), bytesPerRequest };
}

async function inflight() {
  const parked = [];
  let client;
  client = new Endpoint({
    role: 'client',
    transport: 'stdio',
    idleMs: 60_000,
    ceilingMs: 600_000,
    channel: { write: (m) => parked.push(JSON.stringify(m)) },
  });
  // Count armed timers: the shared scheduler should hold exactly one for all n deadlines.
  const r = await run(
    () => client.request('tools/call', { name: 't', arguments: {} }),
    () => {
      for (const text of parked)
        client.receiveText(`{"jsonrpc":"2.0","id":${JSON.parse(text).id},"result":{"content":[]}}`);
    },
  );
  return r;
}

async function sdkV1(json) {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { InMemoryTransport } = await import('@modelcontextprotocol/sdk/inMemory.js');
  const [a, b] = InMemoryTransport.createLinkedPair();
  if (json) {
    // The same wire cost our endpoint pays: every message stringified and parsed.
    for (const t of [a, b]) {
      const send = t.send.bind(t);
      t.send = (m, o) => send(JSON.parse(JSON.stringify(m)), o);
    }
  }
  const parked = [];
  b.onmessage = (m) => {
    if (m.method === 'initialize') {
      b.send({
        jsonrpc: '2.0',
        id: m.id,
        result: {
          protocolVersion: '2025-06-18',
          capabilities: { tools: {} },
          serverInfo: { name: 'p', version: '1' },
        },
      });
    } else if (m.id !== undefined) parked.push(JSON.stringify(m));
  };
  await b.start();
  const client = new Client({ name: 'c', version: '1' });
  await client.connect(a);
  return run(
    () => client.callTool({ name: 't', arguments: {} }, undefined, { timeout: 60_000 }),
    () => {
      for (const text of parked) b.send({ jsonrpc: '2.0', id: JSON.parse(text).id, result: { content: [] } });
    },
  );
}

const result = await { inflight, 'sdk-v1': () => sdkV1(false), 'sdk-v1+json': () => sdkV1(true) }[config]();
console.log(JSON.stringify({ config, n, ...result }));
process.exit(0);
