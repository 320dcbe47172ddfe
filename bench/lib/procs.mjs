// Child processes for the transport and proxy benchmarks, cleaned up on every way out: each child we start
// runs in its own process group (its children, such as a proxy's upstream, join it), and every group is
// SIGKILLed when this process exits, throws, is signalled or runs past its time budget. A child started with
// `watchParent` also exits by itself when its stdin closes, which covers this process being SIGKILLed.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** Loaded with `--import` into HTTP servers and proxies: see preload.mjs. */
export const PRELOAD = fileURLToPath(new URL('./preload.mjs', import.meta.url));

/**
 * Wall-clock instant with sub-millisecond resolution: `performance.timeOrigin + performance.now()`. Two
 * processes' readings can disagree by the error in each one's `timeOrigin`, which is fixed at start-up and
 * was seen at 27 ms on a loaded machine; compare instants across processes with {@link monoMs}.
 */
export const wallMs = () => performance.timeOrigin + performance.now();

/**
 * The machine's monotonic clock in ms (`process.hrtime`, CLOCK_MONOTONIC on Linux: one clock for every
 * process, nanosecond resolution), so instants read in two processes compare directly.
 */
export const monoMs = () => Number(process.hrtime.bigint()) / 1e6;

const groups = new Set();

function killGroups() {
  for (const pid of groups) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  groups.clear();
}

let installed = false;
function installCleanup() {
  if (installed) return;
  installed = true;
  process.on('exit', killGroups);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.once(signal, () => {
      killGroups();
      process.exit(1);
    });
  }
  process.on('uncaughtException', (error) => {
    process.stderr.write(`${error?.stack ?? error}\n`);
    killGroups();
    process.exit(1);
  });
  process.on('unhandledRejection', (error) => {
    process.stderr.write(`unhandled rejection: ${error?.stack ?? error}\n`);
    killGroups();
    process.exit(1);
  });
}

/**
 * Ends this process with exit code 1 (children killed) if it is still running after `ms`. Every benchmark
 * script calls it first, so a hung peer never hangs the harness.
 */
export function budget(ms, what) {
  installCleanup();
  setTimeout(() => {
    process.stderr.write(`${what}: still running after ${ms} ms, giving up\n`);
    killGroups();
    process.exit(1);
  }, ms).unref();
}

/**
 * Starts `node [--import preload] script ...args` in its own process group. stderr is read line by line
 * (kept to the last 50 lines for error messages, and offered to `onLine`); stdout is ignored.
 */
export function startNode(script, args = [], { watchParent = true, onLine, env, nodeArgs = [] } = {}) {
  installCleanup();
  const child = spawn(
    process.execPath,
    [...(watchParent ? ['--import', PRELOAD] : []), ...profiling(), ...nodeArgs, script, ...args],
    {
      stdio: ['pipe', 'ignore', 'pipe'],
      detached: true,
      env: { ...process.env, ...env },
    },
  );
  groups.add(child.pid);
  const tail = [];
  const listeners = new Set(onLine ? [onLine] : []);
  createInterface({ input: child.stderr }).on('line', (line) => {
    if (tail.length === 50) tail.shift();
    tail.push(line);
    for (const listener of listeners) listener(line);
  });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  void exited.then(() => groups.delete(child.pid));
  return {
    child,
    exited,
    tail,
    /** Resolves with the first stderr line matching `pattern` (its match), or rejects on exit or timeout. */
    waitFor(pattern, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const done = (fn, value) => {
          listeners.delete(listener);
          clearTimeout(timer);
          fn(value);
        };
        const listener = (line) => {
          const match = pattern.exec(line);
          if (match) done(resolve, match);
        };
        const timer = setTimeout(
          () =>
            done(reject, new Error(`${script}: no ${pattern} within ${timeoutMs} ms:\n${tail.join('\n')}`)),
          timeoutMs,
        );
        listeners.add(listener);
        void exited.then((code) =>
          done(reject, new Error(`${script} exited (${code}) before ${pattern}:\n${tail.join('\n')}`)),
        );
      });
    },
    onLine(listener) {
      listeners.add(listener);
    },
    /** SIGTERM to the group, SIGKILL after `graceMs`; resolves once the child has exited. */
    async stop(graceMs = 2_000) {
      if (child.exitCode === null && child.signalCode === null) {
        try {
          process.kill(-child.pid, 'SIGTERM');
        } catch {
          // already gone
        }
        const timer = setTimeout(() => {
          try {
            process.kill(-child.pid, 'SIGKILL');
          } catch {
            // already gone
          }
        }, graceMs);
        await exited;
        clearTimeout(timer);
      }
      // Whatever the group still holds (an upstream that ignored SIGTERM) goes too.
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // the group is empty
      }
      groups.delete(child.pid);
    },
  };
}

/** `BENCH_CPU_PROF_DIR=DIR`: every child writes a CPU profile there (`--cpu-prof`), for bench/README.md. */
function profiling() {
  const dir = process.env.BENCH_CPU_PROF_DIR;
  if (!dir) return [];
  // Node samples every 1,000 µs by default: too coarse for a path of tens of µs per call.
  const intervalUs = process.env.BENCH_CPU_PROF_INTERVAL_US;
  return ['--cpu-prof', '--cpu-prof-dir', dir, ...(intervalUs ? ['--cpu-prof-interval', intervalUs] : [])];
}

/** The port a child reports through the preload (`BENCH-LISTENING <port>` on stderr). */
export async function listeningUrl(proc, path = '/mcp', timeoutMs = 15_000) {
  const [, port] = await proc.waitFor(/^BENCH-LISTENING (\d+)$/, timeoutMs);
  return `http://127.0.0.1:${port}${path}`;
}

/** p-th percentile (0..100) of sorted values, nearest rank. */
export function percentile(sorted, p) {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

/** Rounds to `digits` decimals. */
export const round = (value, digits = 2) => Number(value.toFixed(digits));

/** `--name value` from argv, or `fallback`. */
export function option(name, fallback) {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : process.argv[at + 1];
}

/** Prints the result as the last stdout line (what run.mjs reads) and exits 0 after cleanup. */
export function finish(result) {
  process.stdout.write(`${JSON.stringify(result)}\n`);
  killGroups();
  process.exit(0);
}
