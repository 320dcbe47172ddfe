// 10,000 deadlines firing at once, on the real clock. Every call is issued with a whole-ms timeout chosen so
// that all of them fall due within 1 ms of the same instant T (about 1 s after the first is issued); the
// peer never answers. Each call's scheduled instant is the clock reading just before it was issued plus its
// timeout (a reading the library takes itself can only be later, so lateness is never understated).
// Each call's fire time is when its caller learns (its promise rejects, read in the rejection handler with
// performance.now()), so the figures include what each library does on a timeout (the cancel it writes).
// Configs:
//   inflight  our Endpoint client: each call's DeadlineController on the one shared scheduler (one timer)
//   deadlines bare DeadlineControllers on the shared scheduler, fire time read in onAbort
//   sdk-v1    the official SDK v1 Client (1.32.2) over InMemoryTransport to a server that answers
//             `initialize` and nothing else, `timeout` per call: the SDK's per-request setTimeout
// Prints as its last line: { config, fired, spreadMs, lateP50Ms, lateP99Ms, lateMaxMs, earlyCount,
// issueMs, probeLateMs }. spread = last fire - first fire; late = fire - scheduled; early = fired before its
// scheduled instant (must be 0 for ours). probe: other work that falls due during the storm (a plain timer
// due 2 ms after T, outside any library, standing for a response or a call of another caller): how late it
// runs, i.e. whether the storm holds the event loop until its last firing or lets other work take a turn.
import { DeadlineController, Endpoint } from '@mcp-inflight/core';

const config = process.argv[2];
const n = Number(process.argv[3] ?? 10_000);
const leadMs = Number(process.argv[4] ?? 1_000);

function report(scheduled, fires, issueMs, probeLateMs) {
  const fired = fires.filter((t) => t !== undefined);
  if (fired.length !== n) throw new Error(`${config}: ${fired.length} of ${n} fired`);
  const late = fires.map((t, i) => t - scheduled[i]).sort((a, b) => a - b);
  const at = (q) => late[Math.min(late.length - 1, Math.floor(q * late.length))];
  const round = (x) => +x.toFixed(3);
  console.log(
    JSON.stringify({
      config,
      fired: fired.length,
      spreadMs: round(Math.max(...fires) - Math.min(...fires)),
      lateP50Ms: round(at(0.5)),
      lateP99Ms: round(at(0.99)),
      lateMaxMs: round(late[late.length - 1]),
      earlyCount: late.filter((x) => x < 0).length,
      issueMs: round(issueMs),
      probeLateMs: round(probeLateMs),
    }),
  );
}

/** Issues n calls, all due within 1 ms of one instant; resolves with each call's scheduled and fire instants. */
async function storm(issue) {
  const fires = new Array(n).fill(undefined);
  const scheduled = new Array(n);
  const settled = [];
  const t0 = performance.now();
  const dueAt = t0 + leadMs;
  for (let i = 0; i < n; i++) {
    const issuedAt = performance.now();
    const timeoutMs = Math.ceil(dueAt - issuedAt);
    scheduled[i] = issuedAt + timeoutMs;
    settled.push(issue(timeoutMs, () => (fires[i] = performance.now())));
  }
  const issueMs = performance.now() - t0;
  if (issueMs > leadMs / 2) throw new Error(`issuing took ${issueMs} ms: raise the lead time`);
  const probeSetAt = performance.now();
  const probeMs = Math.ceil(dueAt - probeSetAt) + 2;
  const probe = new Promise((resolve) => setTimeout(() => resolve(performance.now()), probeMs));
  globalThis.gc?.(); // a collection now, not in the middle of the storm
  await Promise.all(settled);
  const probeLateMs = (await probe) - (probeSetAt + probeMs);
  return { scheduled, fires, issueMs, probeLateMs };
}

async function inflight() {
  const client = new Endpoint({
    role: 'client',
    transport: 'stdio',
    ceilingMs: 600_000,
    channel: { write: () => {} }, // the peer never answers; the cancel notifications go nowhere
  });
  return storm((timeoutMs, fired) =>
    client.request('tools/call', { name: 't', arguments: {} }, { idleMs: timeoutMs }).then(() => {
      throw new Error('answered');
    }, fired),
  );
}

async function deadlines() {
  return storm(
    (timeoutMs, fired) =>
      new Promise((resolve) => {
        new DeadlineController({
          idleMs: timeoutMs,
          onAbort: () => {
            fired();
            resolve();
          },
        });
      }),
  );
}

async function sdkV1() {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { InMemoryTransport } = await import('@modelcontextprotocol/sdk/inMemory.js');
  const [a, b] = InMemoryTransport.createLinkedPair();
  b.onmessage = (m) => {
    if (m.method === 'initialize') {
      b.send({
        jsonrpc: '2.0',
        id: m.id,
        result: {
          protocolVersion: '2025-06-18',
          capabilities: { tools: {} },
          serverInfo: { name: 'never-answers', version: '1' },
        },
      });
    }
  };
  await b.start();
  const client = new Client({ name: 'c', version: '1' });
  await client.connect(a);
  return storm((timeoutMs, fired) =>
    client.callTool({ name: 't', arguments: {} }, undefined, { timeout: timeoutMs }).then(() => {
      throw new Error('answered');
    }, fired),
  );
}

const run = { inflight, deadlines, 'sdk-v1': sdkV1 }[config];
if (!run) throw new Error(`unknown config ${config}: inflight, deadlines or sdk-v1`);
const { scheduled, fires, issueMs, probeLateMs } = await run();
report(scheduled, fires, issueMs, probeLateMs);
process.exit(0);
