// End-to-end checks under whichever runtime runs this file (node, bun, deno): examples/server and the proxy
// bin over stdio and HTTP, driven by the project's own clients (spawnStdio, HttpClient) loaded in this same
// runtime, every child process started with this same runtime. Per scenario: connect, progress, a cancel
// after 2 progress updates (the server counts it cancelled), an idle limit, the server's 2 s ceiling, close.
//
//   <runtime> .ci/runtime-e2e.mjs                  packages from the built tree (pnpm build first)
//   <runtime> .ci/runtime-e2e.mjs --from DIR       packages (and the proxy bin) installed in DIR/node_modules
//                                                  from `pnpm pack` tarballs (.ci/runtimes.sh pack-install)
//
// Only the root entries of @mcp-inflight/core, /stdio and /http are imported; the servers and the proxy
// run as child processes. Prints one line per check, then "N passed, N failed"; exits 1 on any failure.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createChecks, load } from './e2e-checks.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const fromIndex = process.argv.indexOf('--from');
const from = fromIndex > 0 ? resolve(process.argv[fromIndex + 1]) : undefined;
// The built tree: examples/server depends on all three packages, so they resolve from there.
const base = from ?? join(root, 'examples/server');
const runtime = globalThis.Deno ? 'deno' : globalThis.Bun ? 'bun' : 'node';
const version = globalThis.Deno?.version.deno ?? globalThis.Bun?.version ?? process.versions.node;

const { InflightError } = await load(base, '@mcp-inflight/core');
const { spawnStdio } = await load(base, '@mcp-inflight/stdio');
const { HttpClient } = await load(base, '@mcp-inflight/http');

/** A command line that runs `script` on this runtime (deno needs `run` and its permissions). */
function command(script, args = []) {
  const pre = runtime === 'deno' ? ['run', '-A', script] : [script];
  return { command: process.execPath, args: [...pre, ...args] };
}
const quote = (parts) => parts.map((p) => JSON.stringify(p)).join(' ');

const SERVER = join(root, 'examples/server/dist/index.js');
const PROXY = from
  ? join(
      dirname(createRequire(join(base, 'package.json')).resolve('@mcp-inflight/proxy/package.json')),
      'dist/bin.js',
    )
  : join(root, 'examples/proxy/dist/index.js');
const CEILING_MS = 2_000;
const serverArgs = ['--handler-ceiling', String(CEILING_MS)];
const upstream = () => {
  const { command: cmd, args } = command(SERVER, serverArgs);
  return quote([cmd, ...args]);
};

const e2e = createChecks({ InflightError, ceilingMs: CEILING_MS });
const { check, timed, hitCeiling, status, statusWhen } = e2e;

/** Starts `script` as an HTTP server on a free port and waits for the URL it prints. */
function startHttp(script, args) {
  const { command: cmd, args: full } = command(script, [...args, '--http', '0']);
  const child = spawn(cmd, full, { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolveUrl, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`no URL from ${script}: ${seen}`)), 30_000);
    const read = (chunk) => {
      seen += chunk;
      const match = /listening on (http:\/\/\S+\/mcp)/.exec(seen);
      if (match) {
        clearTimeout(timer);
        resolveUrl({ url: match[1], child });
      }
    };
    child.stdout.setEncoding('utf8').on('data', read);
    child.stderr.setEncoding('utf8').on('data', read);
    child.on('exit', (code) => reject(new Error(`${script} exited (${code}): ${seen}`)));
  });
}

/** The checks of one scenario, on a client that `open()` makes (fresh per scenario). */
function scenario(name, open, stop) {
  const label = (what) => `${runtime} ${version} ${name}: ${what}`;
  return e2e.scenario(
    label,
    open,
    async (client) => {
      const { updates, done } = await e2e.workWithProgress(client, { steps: 3, intervalMs: 30 });
      const seen = updates.map((p) => p.progress);
      check(
        label('progress 1, 2, 3 then the result'),
        seen.join() === '1,2,3',
        `${seen} ${done.content?.[0]?.text}`,
      );
      check(label('result'), /^done 3\b/.test(done.content?.[0]?.text), done.content?.[0]?.text);

      const before = await status(client);
      await e2e.cancelAfterTwoUpdates(client, label);
      // The server saw the cancel: its handler stopped (counted cancelled), it did not run to completion.
      const after = await statusWhen(client, (s) => s.cancelled === before.cancelled + 1);
      check(label('the server stopped the cancelled work'), after.running === 0, JSON.stringify(after));

      const idle = await timed(() =>
        client.callTool('work', { steps: 2, intervalMs: 1_000 }, { idleMs: 200 }),
      );
      check(
        label('idle limit 200 ms'),
        idle.code === 'IDLE_TIMEOUT' && idle.ms < 900,
        `${idle.code} in ${idle.ms} ms`,
      );
      // The client's limit reached the server as a cancel: the work stopped, long before its 2 s were up.
      const afterIdle = await statusWhen(client, (s) => s.cancelled === before.cancelled + 2);
      check(
        label("the idle limit stopped the server's work"),
        afterIdle.running === 0 && afterIdle.completed === before.completed,
        JSON.stringify(afterIdle),
      );

      const ceiling = await timed(() => client.callTool('work', { steps: 100, intervalMs: 100 }));
      check(
        label("the server's 2 s ceiling"),
        hitCeiling(ceiling, 1_500),
        `${ceiling.code} in ${ceiling.ms} ms`,
      );
      const count = await statusWhen(client, (s) => s.running === 0);
      check(
        label('the ceiling stopped the work, nothing left running'),
        count.running === 0 && count.stopped === before.stopped + 1,
        JSON.stringify(count),
      );
    },
    stop,
  );
}

const stdioClient = (spec) => () => spawnStdio(spec, { stderr: 'ignore' });
const kill = (child) => async () => {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
};

await scenario('server over stdio', stdioClient(command(SERVER, serverArgs)));
{
  const { url, child } = await startHttp(SERVER, serverArgs);
  await scenario('server over HTTP (2026-07-28)', async () => new HttpClient({ url }), kill(child));
}
{
  const { url, child } = await startHttp(SERVER, serverArgs);
  await scenario(
    'server over HTTP (2025-06-18 session)',
    async () => new HttpClient({ url, revision: '2025-06-18' }),
    kill(child),
  );
}
await scenario(
  'proxy over stdio -> server over stdio',
  stdioClient(command(PROXY, ['--upstream-stdio', upstream(), '--log', 'quiet'])),
);
{
  const { url, child } = await startHttp(PROXY, ['--upstream-stdio', upstream()]);
  await scenario('proxy over HTTP -> server over stdio', async () => new HttpClient({ url }), kill(child));
}

console.log(`${runtime} ${version}${from ? ' (packages from tarballs)' : ' (built tree)'}: ${e2e.summary()}`);
process.exit(e2e.failed() === 0 ? 0 : 1);
