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
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createChecks, load } from './e2e-checks.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const example = join(root, 'examples/worker');
const workerd = process.argv[2];
if (!workerd) {
  console.error('usage: node .ci/workerd-e2e.mjs WORKERD_BINARY');
  process.exit(2);
}

const { InflightError } = await load(example, '@mcp-inflight/core');
const { HttpClient } = await load(example, '@mcp-inflight/http');

const CEILING_MS = 2_000; // config.capnp's HANDLER_CEILING_MS

const e2e = createChecks({ InflightError, ceilingMs: CEILING_MS });
const { check, settle, timed, hitCeiling, status, statusWhen } = e2e;

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

/**
 * The Worker's counts once the `key` count is one more than in `before` and nothing runs; the check that the
 * work stopped that way and none completed.
 */
async function stoppedOnce(client, label, what, before, key, detail = '') {
  const after = await statusWhen(client, (s) => s[key] === before[key] + 1 && s.running === 0);
  check(
    label(what),
    after.running === 0 && after[key] === before[key] + 1 && after.completed === before.completed,
    `${JSON.stringify(after)}${detail ? ` ${detail()}` : ''}`,
  );
  return after;
}

function scenario(name, open) {
  const label = (what) => `workerd ${name}: ${what}`;
  return e2e.scenario(label, open, async (client) => {
    const { updates, done } = await e2e.workWithProgress(client, { steps: 3, intervalMs: 30, tag: 'e2e' });
    const seen = updates.map((p) => `${p.progress}/${p.total}`);
    const messages = updates.map((p) => p.message);
    check(
      label('progress 1/3, 2/3, 3/3 with messages'),
      seen.join() === '1/3,2/3,3/3',
      `${seen} ${messages.at(-1)}`,
    );
    check(label('result'), done.content?.[0]?.text === 'e2e: done 3 steps', done.content?.[0]?.text);

    let before = await status(client);
    await e2e.cancelAfterTwoUpdates(client, label);
    before = await stoppedOnce(
      client,
      label,
      'the Worker stopped the cancelled work (counted cancelled)',
      before,
      'cancelled',
    );

    const early = new AbortController();
    setTimeout(() => early.abort(), 300);
    const earlyCode = await settle(
      client.callTool(
        'work',
        { steps: 2, intervalMs: 3_000 },
        { signal: early.signal, onprogress: () => {} },
      ),
    );
    check(label('cancel before any progress rejects CANCELLED'), earlyCode === 'CANCELLED', earlyCode);
    before = await stoppedOnce(
      client,
      label,
      'the Worker stopped the work cancelled before any progress',
      before,
      'cancelled',
    );

    const idle = await timed(() =>
      client.callTool('work', { steps: 2, intervalMs: 1_000 }, { idleMs: 300, onprogress: () => {} }),
    );
    check(
      label("client's idle limit 300 ms"),
      idle.code === 'IDLE_TIMEOUT' && idle.ms < 900,
      `${idle.code} in ${idle.ms} ms`,
    );
    // The client's limit reached the Worker as a cancel: the work stopped long before its 2 s were up.
    before = await stoppedOnce(
      client,
      label,
      "the client's idle limit stopped the Worker's work",
      before,
      'cancelled',
      () => `${Date.now() - idle.start} ms after the call started`,
    );

    let ceilingUpdates = 0;
    const ceiling = await timed(() =>
      client.callTool('work', { steps: 100, intervalMs: 100 }, { onprogress: () => ceilingUpdates++ }),
    );
    check(
      label("the Worker's 2 s ceiling (the caller gets CEILING)"),
      hitCeiling(ceiling, 1_000),
      `${ceiling.code} in ${ceiling.ms} ms after ${ceilingUpdates} progress updates`,
    );
    before = await stoppedOnce(
      client,
      label,
      'the ceiling stopped the work, nothing left running',
      before,
      'stopped',
    );

    // The ceiling fires by its own timer on a call that never reports progress (no write wakes anything).
    const quiet = await timed(() => client.callTool('work', { steps: 1, intervalMs: 10_000 }));
    check(
      label("the Worker's 2 s ceiling on a call without progress"),
      hitCeiling(quiet, 1_000),
      `${quiet.code} in ${quiet.ms} ms`,
    );
    await stoppedOnce(client, label, 'that ceiling stopped the work too', before, 'stopped');
  });
}

/** A raw 2025-06-18 session on `url`: its POST headers, for probes the client does not expose. */
async function rawSession(url) {
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const params = {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'raw', version: '1' },
  };
  const init = await fetch(url, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params }),
  });
  await init.text();
  const session = {
    ...headers,
    'mcp-session-id': init.headers.get('mcp-session-id'),
    'mcp-protocol-version': '2025-06-18',
  };
  await fetch(url, {
    method: 'POST',
    headers: session,
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  }).then((r) => r.text());
  return session;
}

/** Reads SSE from `response` until `enough(text)` or its end; the text read and the last event id seen. */
async function readEvents(response, enough = () => false) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
    if (enough(text)) break;
  }
  return { text, lastId: [...text.matchAll(/^id: (\S+)$/gm)].at(-1)?.[1] };
}

/**
 * A legacy session's streams on workerd: the GET stream is held (not reopened), and a call whose client
 * dropped runs on (a disconnect is no cancel before 2026-07-28) with its events resumable by
 * Last-Event-ID, during the call and after it, once: workerd ends a request's timers and promises with
 * its response unless the Worker hands its work to ctx.waitUntil.
 */
async function legacyStreams(url, client) {
  const label = (what) => `workerd 2025-06-18 streams: ${what}`;
  let gets = 0;
  const counting = (input, init) => {
    if ((init?.method ?? 'GET') === 'GET') gets++;
    return fetch(input, init);
  };
  const listening = new HttpClient({ url, revision: '2025-06-18', fetch: counting });
  await listening.connect();
  await new Promise((r) => setTimeout(r, 3_000));
  await listening.close();
  check(label('the GET stream stays open for 3 s (opened once)'), gets === 1, `${gets} GETs`);

  for (const resumeAfterMs of [0, 1_500]) {
    const when = resumeAfterMs === 0 ? 'during the call' : 'after the call ended';
    const session = await rawSession(url);
    const before = await status(client);
    const dropped = new AbortController();
    const call = { name: 'work', arguments: { steps: 5, intervalMs: 200 }, _meta: { progressToken: 'p' } };
    const response = await fetch(url, {
      method: 'POST',
      headers: session,
      signal: dropped.signal,
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: call }),
    });
    const first = await readEvents(response, (text) => text.includes('"progress":2'));
    dropped.abort();
    await new Promise((r) => setTimeout(r, resumeAfterMs));
    // Bounded: a resume that touches a finished request's stream hangs on workerd rather than failing.
    const resume = (lastId) =>
      fetch(url, {
        headers: { ...session, accept: 'text/event-stream', 'last-event-id': lastId },
        signal: AbortSignal.timeout(5_000),
      }).catch((error) => ({ status: error.name, text: async () => '' }));
    const resumed = await resume(first.lastId);
    const rest =
      resumed.status === 200
        ? await readEvents(resumed).catch((error) => ({ text: error.name }))
        : { text: await resumed.text().catch((error) => error.name) };
    const progress = [...rest.text.matchAll(/"progress":(\d+)/g)].map((m) => m[1]).join();
    check(
      label(`a dropped call's events resume ${when}: progress 3,4,5 then its result`),
      resumed.status === 200 && progress === '3,4,5' && rest.text.includes('done 5 steps'),
      `${resumed.status} progress ${progress} ${rest.text.slice(-120)}`,
    );
    const again = await resume(first.lastId);
    check(
      label(`a second resume ${when} is refused (400, nothing to resume)`),
      again.status === 400,
      `${again.status} ${(await again.text().catch((error) => error.name)).slice(0, 120)}`,
    );
    const after = await Promise.race([
      statusWhen(client, (s) => s.completed === before.completed + 1 && s.running === 0),
      new Promise((r) => setTimeout(() => r(undefined), 5_000)).then(() => status(client)),
    ]);
    check(
      label(`the dropped call ran to completion (${when})`),
      after.completed === before.completed + 1 && after.running === 0,
      JSON.stringify(after),
    );
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
  const statusClient = new HttpClient({ url });
  await statusClient.connect();
  await legacyStreams(url, statusClient).finally(() => statusClient.close());
  // workerd warns when a promise or stream of a finished request is touched from another request.
  check(
    'workerd logged no cross-request warning',
    !/different request|hanging promise/i.test(output()),
    output(),
  );
} finally {
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}
if (e2e.failed() > 0 && output().trim()) console.log(`workerd's output:\n${output().trim()}`);
console.log(`workerd (examples/worker): ${e2e.summary()}`);
process.exit(e2e.failed() === 0 ? 0 : 1);
