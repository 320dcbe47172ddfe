// End-to-end checks of examples/worker on workerd (the Workers lane of .ci/runtimes.sh): starts workerd with
// examples/worker/config.capnp (dist/worker.js, from `pnpm build`) on a free loopback port and drives it with
// the project's HttpClient on Node, on 2026-07-28 and on a 2025-06-18 session. Per scenario: connect,
// progress then a result, a cancel after 2 progress updates (the Worker counts it cancelled), a cancel before
// any progress, a client's 300 ms idle limit (it stops the Worker's work), the Worker's 2 s ceiling (the
// caller gets CEILING) on a call with progress and on one without, close.
//
//   node .ci/workerd-e2e.mjs WORKERD_BINARY
//
// Prints one line per check, then "N passed, N failed"; exits 1 on any failure.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const example = join(root, 'examples/worker');
const workerd = process.argv[2];
if (!workerd) {
  console.error('usage: node .ci/workerd-e2e.mjs WORKERD_BINARY');
  process.exit(2);
}

/** The ESM root entry of `name` as installed for examples/worker. */
async function load(name) {
  const manifest = createRequire(join(example, 'package.json')).resolve(`${name}/package.json`);
  const { exports } = JSON.parse(readFileSync(manifest, 'utf8'));
  return import(pathToFileURL(join(dirname(manifest), exports['.'].import.default)).href);
}
const { InflightError } = await load('@mcp-inflight/core');
const { HttpClient } = await load('@mcp-inflight/http');

const CEILING_MS = 2_000; // config.capnp's HANDLER_CEILING_MS

let passed = 0;
let failed = 0;
function check(name, ok, detail = '') {
  if (ok) passed++;
  else failed++;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}${detail ? `: ${detail}` : ''}`);
}
const codeOf = (error) => (InflightError.is(error) ? error.code : String(error?.message ?? error));

function freePort() {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolvePort(port));
    });
  });
}

/** workerd serving the example on a free loopback port, once it answers. */
async function startWorkerd() {
  const port = await freePort();
  const child = spawn(workerd, ['serve', 'config.capnp', '--socket-addr', `http=127.0.0.1:${port}`], {
    cwd: example,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let seen = '';
  child.stdout.setEncoding('utf8').on('data', (chunk) => (seen += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk) => (seen += chunk));
  const url = `http://127.0.0.1:${port}/mcp`;
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`workerd exited (${child.exitCode}): ${seen}`);
    const up = await fetch(url, { method: 'GET' }).then(
      () => true,
      () => false,
    );
    if (up) return { url, child, output: () => seen };
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`workerd did not answer on ${url} within 30 s: ${seen}`);
}

async function status(client) {
  const result = await client.callTool('status', {});
  return JSON.parse(result.content[0].text);
}

/** The Worker's counts once `ready` holds for them, or after 2 s (then the check reads what they are). */
async function statusWhen(client, ready) {
  let counts = await status(client);
  for (let i = 0; i < 100 && !ready(counts); i++) {
    await new Promise((r) => setTimeout(r, 20));
    counts = await status(client);
  }
  return counts;
}

async function scenario(name, open) {
  const label = (what) => `workerd ${name}: ${what}`;
  let client;
  try {
    client = open();
    const handshake = await client.connect();
    check(label('connect'), Boolean(handshake), client.revision);

    const seen = [];
    const messages = [];
    const done = await client.callTool(
      'work',
      { steps: 3, intervalMs: 30, tag: 'e2e' },
      {
        onprogress: (p) => {
          seen.push(`${p.progress}/${p.total}`);
          messages.push(p.message);
        },
      },
    );
    check(
      label('progress 1/3, 2/3, 3/3 with messages'),
      seen.join() === '1/3,2/3,3/3',
      `${seen} ${messages.at(-1)}`,
    );
    check(label('result'), done.content?.[0]?.text === 'e2e: done 3 steps', done.content?.[0]?.text);

    let before = await status(client);
    const abort = new AbortController();
    let updates = 0;
    const cancelled = await client
      .callTool(
        'work',
        { steps: 20, intervalMs: 50 },
        { signal: abort.signal, onprogress: () => ++updates === 2 && abort.abort() },
      )
      .then(
        () => 'completed',
        (e) => codeOf(e),
      );
    check(
      label('cancel after 2 updates rejects CANCELLED'),
      cancelled === 'CANCELLED' && updates === 2,
      `${cancelled} after ${updates}`,
    );
    let after = await statusWhen(client, (s) => s.cancelled === before.cancelled + 1 && s.running === 0);
    check(
      label('the Worker stopped the cancelled work (counted cancelled)'),
      after.running === 0 && after.cancelled === before.cancelled + 1 && after.completed === before.completed,
      JSON.stringify(after),
    );

    before = after;
    const early = new AbortController();
    setTimeout(() => early.abort(), 300);
    const earlyCode = await client
      .callTool('work', { steps: 2, intervalMs: 3_000 }, { signal: early.signal, onprogress: () => {} })
      .then(
        () => 'completed',
        (e) => codeOf(e),
      );
    check(label('cancel before any progress rejects CANCELLED'), earlyCode === 'CANCELLED', earlyCode);
    after = await statusWhen(client, (s) => s.cancelled === before.cancelled + 1 && s.running === 0);
    check(
      label('the Worker stopped the work cancelled before any progress'),
      after.running === 0 && after.cancelled === before.cancelled + 1 && after.completed === before.completed,
      JSON.stringify(after),
    );

    before = after;
    const idleStart = Date.now();
    const idle = await client
      .callTool('work', { steps: 2, intervalMs: 1_000 }, { idleMs: 300, onprogress: () => {} })
      .then(
        () => 'completed',
        (e) => codeOf(e),
      );
    const idleMs = Date.now() - idleStart;
    check(
      label("client's idle limit 300 ms"),
      idle === 'IDLE_TIMEOUT' && idleMs < 900,
      `${idle} in ${idleMs} ms`,
    );
    // The client's limit reached the Worker as a cancel: the work stopped long before its 2 s were up.
    after = await statusWhen(client, (s) => s.cancelled === before.cancelled + 1 && s.running === 0);
    const stoppedAfter = Date.now() - idleStart;
    check(
      label("the client's idle limit stopped the Worker's work"),
      after.running === 0 && after.cancelled === before.cancelled + 1 && after.completed === before.completed,
      `${JSON.stringify(after)} ${stoppedAfter} ms after the call started`,
    );

    before = after;
    const ceilingStart = Date.now();
    let ceilingUpdates = 0;
    const ceiling = await client
      .callTool('work', { steps: 100, intervalMs: 100 }, { onprogress: () => ceilingUpdates++ })
      .then(
        () => 'completed',
        (e) => codeOf(e),
      );
    const ceilingMs = Date.now() - ceilingStart;
    check(
      label("the Worker's 2 s ceiling (the caller gets CEILING)"),
      ceiling === 'CEILING' && ceilingMs >= CEILING_MS - 100 && ceilingMs < CEILING_MS + 1_000,
      `${ceiling} in ${ceilingMs} ms after ${ceilingUpdates} progress updates`,
    );
    after = await statusWhen(client, (s) => s.stopped === before.stopped + 1 && s.running === 0);
    check(
      label('the ceiling stopped the work, nothing left running'),
      after.running === 0 && after.stopped === before.stopped + 1 && after.completed === before.completed,
      JSON.stringify(after),
    );

    // The ceiling fires by its own timer on a call that never reports progress (no write wakes anything).
    before = after;
    const quietStart = Date.now();
    const quiet = await client.callTool('work', { steps: 1, intervalMs: 10_000 }).then(
      () => 'completed',
      (e) => codeOf(e),
    );
    const quietMs = Date.now() - quietStart;
    check(
      label("the Worker's 2 s ceiling on a call without progress"),
      quiet === 'CEILING' && quietMs >= CEILING_MS - 100 && quietMs < CEILING_MS + 1_000,
      `${quiet} in ${quietMs} ms`,
    );
    after = await statusWhen(client, (s) => s.stopped === before.stopped + 1 && s.running === 0);
    check(
      label('that ceiling stopped the work too'),
      after.running === 0 && after.stopped === before.stopped + 1 && after.completed === before.completed,
      JSON.stringify(after),
    );

    await client.close();
    await client.closed;
    check(label('close'), true);
  } catch (error) {
    check(label('ran to the end'), false, error?.stack ?? String(error));
    await client?.close().catch(() => {});
  }
}

// The build bundled everything, @mcp-inflight/http from its root entry (its workerd condition): the Worker
// is one module that imports nothing, node:* included.
const bundle = readFileSync(join(example, 'dist/worker.js'), 'utf8');
const imports = [
  ...bundle.matchAll(/^\s*import\b[^;]*?from\s*["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']/gm),
];
check(
  'workerd dist/worker.js is self-contained (no import, no node:*)',
  imports.length === 0 && !/["']node:/.test(bundle),
  imports.map((m) => m[1] ?? m[2]).join(', '),
);

const { url, child, output } = await startWorkerd();
try {
  await scenario('2026-07-28', () => new HttpClient({ url }));
  await scenario('2025-06-18 session', () => new HttpClient({ url, revision: '2025-06-18' }));
} finally {
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}
if (failed > 0 && output().trim()) console.log(`workerd's output:\n${output().trim()}`);
console.log(`workerd (examples/worker): ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
