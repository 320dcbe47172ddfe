// Starts the system services a deployment needs (redis-server, haproxy from PATH) and our example
// server, each on a free loopback port, for the services tests and bench/services.mjs. Every process
// started here is stopped by the caller through the handle it got; nothing is left behind.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Every child started here: killed when this process exits, even after a test timed out mid-way. */
const started = new Set();
process.once('exit', () => {
  for (const child of started)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});
function track(child) {
  started.add(child);
  child.once('exit', () => started.delete(child));
  return child;
}

export const EXAMPLE_SERVER = fileURLToPath(
  new URL('../../../../examples/server/dist/index.js', import.meta.url),
);

/** A port free on 127.0.0.1 now: bind port 0, read it, close (redis-server cannot take port 0). */
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

/** Resolves once `child` printed a line matching `pattern` on stdout or stderr; rejects if it exits first. */
function readyLine(child, pattern, what) {
  return new Promise((resolve, reject) => {
    let seen = '';
    const onData = (chunk) => {
      seen += chunk.toString();
      const match = seen.match(pattern);
      if (match) {
        cleanup();
        resolve(match);
      }
    };
    const onExit = (code, signal) => {
      cleanup();
      reject(new Error(`${what} exited (${code ?? signal}) before it was ready:\n${seen.slice(-2000)}`));
    };
    const cleanup = () => {
      child.stdout?.off('data', onData);
      child.stderr?.off('data', onData);
      child.off('exit', onExit);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', onExit);
  });
}

function stopChild(child, signal = 'SIGTERM') {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill(signal);
  });
}

/**
 * redis-server on a free port with `--appendonly yes` in a fresh directory. `shutdown()` asks it to stop
 * (SHUTDOWN, which writes the AOF), `kill()` sends SIGKILL, `start()` brings it back on the same port and
 * directory, `pause()` and `resume()` stop and continue it (SIGSTOP, SIGCONT), `stop()` ends it and removes
 * the directory.
 *
 * `appendfsync` is `always` by default: the tests kill Redis and expect every acknowledged write back.
 * Under `everysec`, Redis delays its AOF writes for up to 2 s while an fsync is still running, and still
 * replies; a kill then loses them (seen in CI under disk load: the task was gone after the restart).
 */
export async function startRedis({ appendfsync = 'always' } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-inflight-redis-'));
  const port = await freePort();
  const handle = {
    port,
    url: `redis://127.0.0.1:${port}`,
    dir,
    child: undefined,
    async start() {
      const child = track(
        spawn(
          'redis-server',
          [
            '--port',
            String(port),
            '--bind',
            '127.0.0.1',
            '--save',
            '',
            '--appendonly',
            'yes',
            '--appendfsync',
            appendfsync,
            '--dir',
            dir,
          ],
          { stdio: ['ignore', 'pipe', 'pipe'] },
        ),
      );
      handle.child = child;
      await readyLine(child, /Ready to accept connections/, 'redis-server');
    },
    /** SHUTDOWN from a client: Redis flushes its AOF and exits. */
    async shutdown() {
      const child = handle.child;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      const cli = spawn('redis-cli', ['-p', String(port), 'SHUTDOWN'], { stdio: 'ignore' });
      await new Promise((resolve) => cli.once('exit', resolve));
      await exited;
    },
    async kill() {
      await stopChild(handle.child, 'SIGKILL');
    },
    /** SIGSTOP: Redis hangs with its sockets open (no reply, no reset), as a stalled host would. */
    pause() {
      handle.child.kill('SIGSTOP');
    },
    /** SIGCONT: it answers what waited on its sockets. */
    resume() {
      handle.child.kill('SIGCONT');
    },
    async stop() {
      if (handle.child) await stopChild(handle.child, 'SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await handle.start();
  return handle;
}

/** `node examples/server/dist/index.js --http PORT ...args` on a free port; `kill()` ends it at once. */
export async function startExampleServer(args) {
  const port = await freePort();
  const child = track(
    spawn(process.execPath, [EXAMPLE_SERVER, '--http', String(port), ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  let log = '';
  child.stderr.on('data', (chunk) => {
    log += chunk.toString();
  });
  await readyLine(child, /listening on (\S+)/, 'the example server');
  return {
    port,
    child,
    url: `http://127.0.0.1:${port}/mcp`,
    log: () => log,
    kill: () => stopChild(child, 'SIGKILL'),
    stop: () => stopChild(child, 'SIGTERM'),
  };
}

/**
 * haproxy round robin (nothing sticky) in front of `backends` (loopback ports), HTTP mode, on a free
 * port, with a short health check so a dead backend leaves the rotation. `stop()` ends it.
 */
export async function startHaproxy(backends, { sticky = false } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-inflight-haproxy-'));
  const port = await freePort();
  const config = [
    'global',
    '  maxconn 4096',
    'defaults',
    '  mode http',
    '  timeout connect 2s',
    '  timeout client 120s',
    '  timeout server 120s',
    '  option http-server-close',
    'frontend mcp',
    `  bind 127.0.0.1:${port}`,
    '  default_backend servers',
    'backend servers',
    '  balance roundrobin',
    '  retry-on conn-failure',
    '  option redispatch',
    ...(sticky
      ? [
          '  stick-table type string len 64 size 100k expire 30m',
          '  stick store-response res.hdr(mcp-session-id)',
          '  stick match req.hdr(mcp-session-id)',
        ]
      : []),
    ...backends.map((b, i) => `  server s${i} 127.0.0.1:${b} check inter 500 fall 2 rise 1`),
    '',
  ].join('\n');
  const file = join(dir, 'haproxy.cfg');
  writeFileSync(file, config);
  const child = track(spawn('haproxy', ['-db', '-f', file], { stdio: ['ignore', 'pipe', 'pipe'] }));
  let log = '';
  child.stderr.on('data', (chunk) => {
    log += chunk.toString();
  });
  child.stdout.on('data', (chunk) => {
    log += chunk.toString();
  });
  // haproxy prints nothing when it is up: wait until its port accepts.
  const { connect } = await import('node:net');
  for (;;) {
    if (child.exitCode !== null) throw new Error(`haproxy exited: ${log}`);
    const ok = await new Promise((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (ok) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    port,
    url: `http://127.0.0.1:${port}/mcp`,
    config,
    log: () => log,
    async stop() {
      await stopChild(child, 'SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export const PROXY_BIN = fileURLToPath(new URL('../../../proxy/dist/bin.js', import.meta.url));

/**
 * `mcp-inflight-proxy --http PORT --log json ...args` on a free port; `kill()` ends it at once. `events`
 * holds every JSON line it logged; `adminUrl` is its `--admin-port` listener's base URL, if it has one.
 */
export async function startProxyInstance(args) {
  const port = await freePort();
  const child = track(
    spawn(process.execPath, [PROXY_BIN, '--http', String(port), '--log', 'json', ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  const events = [];
  let partial = '';
  child.stderr.on('data', (chunk) => {
    const lines = (partial + chunk.toString()).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      try {
        events.push(JSON.parse(line));
      } catch {
        // not one of its JSON lines (an upstream's stderr)
      }
    }
  });
  await readyLine(child, /"type":"listening"/, 'the proxy');
  return {
    port,
    child,
    events,
    url: `http://127.0.0.1:${port}/mcp`,
    adminUrl: () => events.find((e) => e.type === 'admin-listening')?.url,
    kill: () => stopChild(child, 'SIGKILL'),
    stop: () => stopChild(child, 'SIGTERM'),
  };
}
