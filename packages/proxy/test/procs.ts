// Spawning the built proxy (and the fixture upstreams) for end-to-end tests, and reading what they say.
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const PROXY = fileURLToPath(new URL('../dist/bin.js', import.meta.url));
/** The package's own tool-layer upstream (fixtures/tool-server.mjs): work, confirm, change_tools, stats. */
export const SERVER = fileURLToPath(new URL('./fixtures/tool-server.mjs', import.meta.url));
export const V1_FIXTURE = fileURLToPath(new URL('./fixtures/v1-upstream.mjs', import.meta.url));

/** A command line for the proxy's `--upstream-stdio` (single-quoted words). */
export function commandLine(...words: string[]): string {
  return words.map((w) => `'${w.replaceAll("'", "'\\''")}'`).join(' ');
}

export interface RunningProxy {
  url: string;
  child: ChildProcess;
  /** Everything it logged with `--log json`. */
  events: Array<Record<string, unknown>>;
  /** Its stderr lines that were not JSON (e.g. the upstream's stderr). */
  other: string[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts the built proxy listening on HTTP (port 0) with a JSON log, and waits until it listens. */
export function startProxy(args: string[], until = 'listening'): Promise<RunningProxy> {
  const child = spawn(process.execPath, [PROXY, '--http', '0', '--log', 'json', ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const events: Array<Record<string, unknown>> = [];
  const other: string[] = [];
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const kill = (signal: NodeJS.Signals = 'SIGTERM') => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    return exited;
  };
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stderr! }).on('line', (line) => {
      let event: Record<string, unknown>;
      try {
        event = JSON.parse(line) as Record<string, unknown>;
      } catch {
        other.push(line);
        return;
      }
      events.push(event);
      if (event.type === until) resolve({ url: String(event.url), child, events, other, exited, kill });
    });
    void exited.then((e) =>
      reject(new Error(`proxy exited early (${e.code ?? e.signal}): ${other.join('\n')}`)),
    );
  });
}

/** Starts a server that prints its URL on stderr (`... listening on <url>`), and waits for it. */
export function startHttpServer(
  script: string,
  args: string[] = [],
): Promise<{ url: string; child: ChildProcess; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [script, ...args, '--http', '0'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    return exited;
  };
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stderr! }).on('line', (line) => {
      const match = /listening on (http:\/\/\S+)/.exec(line);
      if (match) resolve({ url: match[1] as string, child, stop });
    });
    void exited.then(() => reject(new Error(`${script} exited before listening`)));
  });
}

/** Waits until `check` passes or `ms` pass (then throws what it last threw). */
export async function eventually<T>(check: () => T | Promise<T>, ms = 20_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > until) throw error;
      await new Promise((r) => setTimeout(r, 25));
    }
  }
}

/** The text of the first content block of a tool result. */
export function textOf(result: unknown): string {
  return String((result as { content: Array<{ text: string }> }).content[0]?.text);
}

/** What the v1 fixture's `work` calls saw, from its `seen` tool's text. */
export interface SeenRecord {
  tag: string;
  token: unknown;
  end: 'running' | 'done' | 'aborted';
  reason: string | null;
  steps: number;
}
