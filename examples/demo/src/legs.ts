import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { ProxyCallFacts } from './summary.js';

/**
 * The built entry points of the three legs, found next to the demo's own build
 * (examples/demo/dist/index.js -> examples/<leg>/dist/index.js); the proxy is the package's bin,
 * packages/proxy/dist/bin.js (`mcp-inflight-proxy`).
 *
 * @example
 * ```ts
 * import { legPaths } from './legs.js';
 * legPaths().proxy; // '/…/packages/proxy/dist/bin.js'
 * ```
 */
export function legPaths(from: string | URL = import.meta.url): {
  server: string;
  proxy: string;
  host: string;
} {
  const at = (leg: string) => fileURLToPath(new URL(`../../${leg}/dist/index.js`, from));
  const proxy = fileURLToPath(new URL('../../../packages/proxy/dist/bin.js', from));
  return { server: at('server'), proxy, host: at('host') };
}

/**
 * The legs not built yet, as paths from the repository root (`packages/proxy/dist/bin.js`): running
 * the demo before `pnpm build` is the usual first-run mistake, so it is checked for by name.
 *
 * @example
 * ```ts
 * import { missingLegs } from './legs.js';
 * missingLegs(); // [] once `pnpm build` has run
 * ```
 */
export function missingLegs(paths = legPaths()): string[] {
  return Object.entries(paths)
    .filter(([, path]) => !existsSync(path))
    .map(([leg]) => (leg === 'proxy' ? 'packages/proxy/dist/bin.js' : `examples/${leg}/dist/index.js`));
}

/**
 * One word of a command line for the proxy's `--upstream-stdio`, quoted so spaces survive its
 * shell-like splitting (single quotes are literal; a quote inside is closed, escaped and reopened).
 *
 * @example
 * ```ts
 * import { shellWord } from './legs.js';
 * shellWord('/my dir/server.js'); // "'/my dir/server.js'"
 * ```
 */
export function shellWord(word: string): string {
  return `'${word.replaceAll("'", "'\\''")}'`;
}

/** A running proxy: its URL, everything it logged, and how to stop it. */
export interface ProxyLeg {
  readonly url: string;
  readonly child: ChildProcess;
  /** The `call` events it logged so far. */
  readonly calls: ProxyCallFacts[];
  /** Lines on its stderr that were not its JSON log (the upstream server's own stderr). */
  readonly otherLines: string[];
  /** Sends SIGTERM and resolves with the exit code once it has exited. */
  stop(): Promise<number | null>;
}

/**
 * Starts the proxy on 127.0.0.1 with a free port, logging JSON on stderr, with the example server as
 * its stdio upstream. Its own process group, so a Ctrl-C in the terminal reaches the host (which cancels
 * its calls, the way a person would) rather than tearing the proxy down mid-demo.
 *
 * @example
 * ```ts
 * import { startProxy } from './legs.js';
 * const proxy = await startProxy(['--idle-timeout', '800']);
 * console.log(proxy.url);
 * await proxy.stop();
 * ```
 */
export function startProxy(extraArgs: string[], paths = legPaths()): Promise<ProxyLeg> {
  const upstream = `${shellWord(process.execPath)} ${shellWord(paths.server)}`;
  const child = spawn(
    process.execPath,
    [
      paths.proxy,
      '--http',
      '0',
      '--upstream-stdio',
      upstream,
      '--log',
      'json',
      '--log-arguments',
      ...extraArgs,
    ],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
      detached: true,
    },
  );
  const calls: ProxyCallFacts[] = [];
  const otherLines: string[] = [];
  let failedUpstream: string | undefined;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const stop = async (): Promise<number | null> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    return exited;
  };
  process.once('exit', () => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stderr! });
    lines.on('line', (line) => {
      let event: { type?: string; url?: string; message?: string } | undefined;
      try {
        event = JSON.parse(line) as { type?: string; url?: string; message?: string };
      } catch {
        otherLines.push(line);
        return;
      }
      if (event.type === 'listening' && typeof event.url === 'string')
        resolve({ url: event.url, child, calls, otherLines, stop });
      else if (event.type === 'call') calls.push(event as ProxyCallFacts);
      else if (event.type === 'upstream-failed') failedUpstream = event.message;
    });
    // One line that says why, for a person: the proxy's own last words, not a dump of its stderr.
    void exited.then((code) => {
      const said = [...otherLines]
        .reverse()
        .find((l) => l.startsWith('proxy: '))
        ?.slice('proxy: '.length);
      const why = said ?? failedUpstream ?? otherLines.at(-1) ?? 'it gave no reason';
      reject(new Error(`the proxy exited with code ${code} before listening: ${why}`));
    });
  });
}

/**
 * Runs the host CLI with its output on the demo's own terminal (or log file): it decides for itself
 * whether to draw live bars or plain lines. Resolves with its exit code.
 *
 * @example
 * ```ts
 * import { runHost } from './legs.js';
 * const code = await runHost(['--http', 'http://127.0.0.1:3000/mcp', '--tool', 'status']);
 * ```
 */
export function runHost(args: string[], paths = legPaths()): Promise<number | null> {
  const child = spawn(process.execPath, [paths.host, ...args], { stdio: ['ignore', 'inherit', 'inherit'] });
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}
