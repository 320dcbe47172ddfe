// The processes of the soak: the built proxy and server, started the way a user starts them, with
// `--expose-gc` so their stats request can collect before it measures.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { PROXY_CEILING_MS, PROXY_IDLE_MS } from './plan.mjs';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
export const PROXY = here('../../examples/proxy/dist/index.js');
export const SERVER = here('../../examples/server/dist/index.js');
// The soak drives the built packages, as the examples do; bench depends on core only, so they are
// reached by path (each resolves its own @mcp-inflight/core, the same file, so one copy of each class).
export const STDIO_DIST = here('../../packages/stdio/dist/index.js');
export const HTTP_DIST = here('../../packages/http/dist/index.js');
export const CORE_DIST = here('../../packages/core/dist/index.js');

/** Throws a clear message when `pnpm build` has not run. */
export function requireBuilt() {
  const missing = [PROXY, SERVER, STDIO_DIST, HTTP_DIST, CORE_DIST].filter((path) => !existsSync(path));
  if (missing.length > 0)
    throw new Error(
      `run \`pnpm build\` first: missing ${missing.map((p) => p.split('/').slice(-4).join('/'))}`,
    );
}

const quote = (word) => `'${word.replaceAll("'", "'\\''")}'`;

/** The proxy's command line words (after `node`), with a stdio upstream and the soak's limits. */
export function proxyArgs({ http, upstreamRevision }) {
  const upstream = [process.execPath, '--expose-gc', SERVER].map(quote).join(' ');
  return [
    '--expose-gc',
    PROXY,
    ...(http === undefined ? [] : ['--http', String(http)]),
    '--log',
    'quiet',
    '--idle-timeout',
    String(PROXY_IDLE_MS),
    '--max-timeout',
    String(PROXY_CEILING_MS),
    ...(upstreamRevision ? ['--upstream-revision', upstreamRevision] : []),
    '--upstream-stdio',
    upstream,
  ];
}

/** The proxy's full command line for spawnStdio. */
export function proxyCommandLine(options) {
  return [process.execPath, ...proxyArgs(options)].map(quote).join(' ');
}

/** Starts the proxy listening on HTTP at `port`. */
export function spawnHttpProxy(port) {
  const child = spawn(process.execPath, proxyArgs({ http: port }), {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return { child, exited };
}

/** A port that was free a moment ago (the HTTP proxy logs quietly, so it cannot tell us its own). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * Whether a process of ours (a proxy or server this soak started) still runs as `pid`. Pids are reused
 * (32,768 of them on many Linux machines, in a run that starts hundreds of processes beside other work),
 * so where /proc exists the command line must still be ours.
 */
export function alive(pid) {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if (error.code !== 'EPERM') return false;
  }
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return cmdline.includes(PROXY) || cmdline.includes(SERVER);
  } catch (error) {
    // Gone between the signal and the read, or no /proc on this system (then the signal is all we have).
    return error.code !== 'ENOENT' || !existsSync('/proc/self');
  }
}

/** Waits until `pid` is gone, up to `ms`; returns whether it went. */
export async function gone(pid, ms) {
  const until = Date.now() + ms;
  while (alive(pid)) {
    if (Date.now() > until) return false;
    await sleep(20);
  }
  return true;
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
