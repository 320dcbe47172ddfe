// Does an official SDK v1 Client over stdio see the last progress update of every call? SDK v1 handles a
// notification one microtask after a response read in the same chunk, so a final progress line that
// arrives in the same read as its result is dropped ("unknown token"). Our stdio writer holds a result
// `resultGapMs` after that request's last progress line reached the OS; this measures the loss against
// the gap, at an idle host and at a busy one, and what the gap costs a call.
//
//   node bench/progress-gap.mjs [--calls N] [--gaps 0,1,2,5] [--busy-slice-ms 2] [--targets direct,proxy]
//                               [--loads idle,busy] [--json FILE]
//
// Targets: `direct`, an SDK v1 Client spawning a serveStdio server (this file with --serve) whose tool
// sends its progress and returns in one tick; `proxy`, the Client spawning examples/proxy in front of
// examples/server (`work`, intervalMs 0, 20 steps); `proxy-flood`, the proxy in front of the --serve server
// sending 1,000 updates in one tick (upstream progress coalesced by the proxy). Loads: `idle` (the host does nothing else)
// and `busy` (the host's event loop runs a CPU loop in setImmediate slices of --busy-slice-ms). Each
// configuration runs in a fresh host process with 1,000 sequential calls; a call is lost when the last
// value its onprogress saw is below its total. Needs `pnpm build` (stdio, the example server and proxy).
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DIRECT_STEPS = 10;
const PROXY_STEPS = 20;
const FLOOD_STEPS = 1000;

function argOf(name, fallback) {
  const at = process.argv.indexOf(name);
  return at === -1 ? fallback : process.argv[at + 1];
}

if (process.argv[2] === '--serve') await serve();
else if (process.argv[2] === '--host') await host(process.argv[3], Number(process.argv[4]), process.argv[5]);
else await main();

/** The direct target: a serveStdio server whose `burst` writes its progress and result back to back. */
async function serve() {
  const { serveLifecycle } = await import('@mcp-inflight/core');
  const { serveStdio } = await import(`${ROOT}packages/stdio/dist/index.js`);
  const gap = process.env.RESULT_GAP_MS;
  serveStdio(
    (endpoint) => {
      serveLifecycle(endpoint, {
        serverInfo: { name: 'progress-gap-bench', version: '1.0.0' },
        capabilities: { tools: {} },
      });
      endpoint.setRequestHandler('tools/call', (params, ctx) => {
        const steps = params?.arguments?.steps ?? DIRECT_STEPS;
        for (let i = 1; i <= steps; i++) ctx.progress(i, steps, `step ${i}`);
        return { content: [{ type: 'text', text: `done ${steps}` }] };
      });
    },
    gap === undefined ? {} : { resultGapMs: Number(gap) },
  );
}

/** One configuration in this process: the SDK v1 Client as the host. Prints one JSON line. */
async function host(target, gapMs, load) {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
  const calls = Number(argOf('--calls', 1000));
  const sliceMs = Number(argOf('--busy-slice-ms', 2));
  const ownServer = `"${process.execPath}" "${HERE}progress-gap.mjs" --serve`;
  const proxied = (upstream) => ({
    command: process.execPath,
    args: [`${ROOT}examples/proxy/dist/index.js`, '--upstream-stdio', upstream],
    env: { MCP_PROXY_RESULT_GAP_MS: String(gapMs) },
  });
  const server =
    target === 'direct'
      ? {
          command: process.execPath,
          args: [`${HERE}progress-gap.mjs`],
          env: { RESULT_GAP_MS: String(gapMs) },
        }
      : target === 'proxy-flood'
        ? proxied(ownServer)
        : proxied(`"${process.execPath}" "${ROOT}examples/server/dist/index.js"`);
  if (target === 'direct') server.args.push('--serve');
  const transport = new StdioClientTransport({
    ...server,
    env: { ...process.env, ...server.env },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'progress-gap-bench', version: '1.0.0' });
  let unknownToken = 0;
  let otherErrors = 0;
  client.onerror = (error) => {
    if (/unknown token/.test(String(error?.message))) unknownToken++;
    else otherErrors++;
  };
  await client.connect(transport);
  const args =
    target === 'direct'
      ? { steps: DIRECT_STEPS }
      : target === 'proxy-flood'
        ? { steps: FLOOD_STEPS }
        : { steps: PROXY_STEPS, intervalMs: 0 };
  const tool = target === 'proxy' ? 'work' : 'burst';
  // A warm-up, so the first calls do not measure module loading and JIT.
  for (let i = 0; i < 20; i++) await client.callTool({ name: tool, arguments: args });
  unknownToken = 0;

  let spinning = load === 'busy';
  const spin = () => {
    if (!spinning) return;
    const endMs = performance.now() + sliceMs;
    while (performance.now() < endMs) {}
    setImmediate(spin);
  };
  if (spinning) setImmediate(spin);

  let lost = 0;
  const durationsMs = [];
  for (let i = 0; i < calls; i++) {
    let last = -1;
    let total = Number.NaN;
    const startMs = performance.now();
    await client.callTool({ name: tool, arguments: args }, undefined, {
      onprogress: (p) => {
        last = p.progress;
        total = p.total;
      },
    });
    durationsMs.push(performance.now() - startMs);
    if (!(last >= args.steps) || total !== args.steps) lost++;
  }
  spinning = false;
  await client.close();
  durationsMs.sort((a, b) => a - b);
  const pick = (q) => durationsMs[Math.min(durationsMs.length - 1, Math.floor(q * durationsMs.length))];
  const row = {
    target,
    load,
    busySliceMs: load === 'busy' ? sliceMs : 0,
    gapMs,
    calls,
    lost,
    unknownTokenWarnings: unknownToken,
    otherErrors,
    p50Ms: round(pick(0.5)),
    p99Ms: round(pick(0.99)),
    // The machine's 1-minute load average at the end: other processes delay the host's reads too.
    loadAvg1m: round(loadavg()[0]),
  };
  process.stdout.write(`${JSON.stringify(row)}\n`);
}

async function main() {
  const gaps = argOf('--gaps', '0,1,2,5').split(',').map(Number);
  const passThrough = ['--calls', argOf('--calls', '1000'), '--busy-slice-ms', argOf('--busy-slice-ms', '2')];
  const rows = [];
  const targets = argOf('--targets', 'direct,proxy').split(',');
  const loads = argOf('--loads', 'idle,busy').split(',');
  for (const target of targets)
    for (const load of loads)
      for (const gapMs of gaps) {
        const row = await runHost([target, String(gapMs), load, ...passThrough]);
        rows.push(row);
        console.log(format(row));
      }
  const out = argOf('--json', undefined);
  if (out) writeFileSync(out, `${JSON.stringify({ node: process.version, rows }, null, 2)}\n`);
}

function runHost(args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [`${HERE}progress-gap.mjs`, '--host', ...args], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (text) => {
      out += text;
    });
    child.once('close', (code) =>
      code === 0
        ? resolve(JSON.parse(out.trim().split('\n').at(-1)))
        : reject(new Error(`host exited ${code}`)),
    );
  });
}

function format(row) {
  const load = row.load === 'busy' ? `busy(${row.busySliceMs}ms)` : 'idle';
  return [
    row.target.padEnd(7),
    load.padEnd(10),
    `gap ${row.gapMs}ms`.padEnd(9),
    `lost ${row.lost}/${row.calls}`.padEnd(15),
    `unknown-token ${row.unknownTokenWarnings}`.padEnd(19),
    `p50 ${row.p50Ms}ms`.padEnd(13),
    `p99 ${row.p99Ms}ms`.padEnd(13),
    `load ${row.loadAvg1m}`,
  ].join(' ');
}

function round(ms) {
  return Math.round(ms * 100) / 100;
}
