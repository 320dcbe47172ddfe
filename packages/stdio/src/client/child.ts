import { type ChildProcess, spawn } from 'node:child_process';
import type { Writable } from 'node:stream';
import { withTimeout } from '@mcp-inflight/core';
import type { CommandSpec } from './command-line.js';

/**
 * What to do with the child's stderr, where the spec lets a server log anything [stdio: "MAY write
 * UTF-8 strings to stderr"]: pass it through (`inherit`), drop it, leave it on `child.stderr` (`pipe`),
 * keep its tail in memory (`capture`, read it with `stderrText`), or copy it into a stream of yours.
 *
 * @example
 * ```ts
 * import { createWriteStream } from 'node:fs';
 * import { type StderrMode, spawnStdio } from '@mcp-inflight/stdio';
 * // The server's logs go to a file of ours; the stream is not ended when the child exits.
 * const stderr: StderrMode = createWriteStream('server.log', { flags: 'a' });
 * const client = spawnStdio('node server.js', { stderr });
 * ```
 */
export type StderrMode = 'inherit' | 'ignore' | 'pipe' | 'capture' | Writable;

/**
 * How a child process ended.
 *
 * @example
 * ```ts
 * import { type ChildExit, spawnStdio } from '@mcp-inflight/stdio';
 * const client = spawnStdio('node server.js');
 * const exit: ChildExit = await client.exited;
 * if (exit.error) console.error(`could not start: ${exit.error.message}`); // e.g. ENOENT: no such program
 * else if (exit.signal) console.error(`killed by ${exit.signal}`);
 * else if (exit.code !== 0) console.error(`exited with code ${exit.code}`);
 * ```
 */
export interface ChildExit {
  /** The exit code, or null when a signal ended it or it never started. */
  code: number | null;
  /** The signal that ended it, if any. */
  signal: NodeJS.Signals | null;
  /** Why it never started (ENOENT, EACCES), if that is what happened. */
  error?: Error;
}

/**
 * Options for starting the child.
 *
 * @example
 * ```ts
 * import { type ChildOptions, spawnStdio } from '@mcp-inflight/stdio';
 * const child: ChildOptions = {
 *   cwd: '/srv/tools',
 *   env: { ...process.env, LOG_LEVEL: 'debug' }, // replaces the environment: spread process.env to keep it
 *   stderr: 'capture',
 *   maxStderrBytes: 8_192, // keep only the most recent 8 192 characters
 * };
 * const client = spawnStdio('node server.js', child);
 * ```
 */
export interface ChildOptions {
  /** The child's working directory. @default the current directory */
  cwd?: string;
  /** The child's environment. @default process.env */
  env?: NodeJS.ProcessEnv;
  /** @default 'inherit' */
  stderr?: StderrMode;
  /** How much of stderr `capture` keeps, in characters (the most recent). @default 65 536 */
  maxStderrBytes?: number;
}

/** A started child and what the client needs to watch it. */
export interface StartedChild {
  child: ChildProcess;
  exited: Promise<ChildExit>;
  stderrText(): string;
}

const DEFAULT_MAX_STDERR_BYTES = 64 * 1024;

/** Spawns the server without a shell (no injection), stdin and stdout piped for MCP. */
export function startChild(spec: CommandSpec, options: ChildOptions): StartedChild {
  const mode = options.stderr ?? 'inherit';
  const stderrOption = mode === 'inherit' || mode === 'ignore' ? mode : 'pipe';
  const child = spawn(spec.command, [...(spec.args ?? [])], {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: ['pipe', 'pipe', stderrOption],
    windowsHide: true,
  });
  const exited = new Promise<ChildExit>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    child.on('error', (error) => {
      // 'error' without a pid is a failed spawn, after which no 'exit' comes.
      if (child.pid === undefined) resolve({ code: null, signal: null, error });
    });
  });
  let captured = '';
  if (child.stderr && mode === 'capture') {
    const limit = options.maxStderrBytes ?? DEFAULT_MAX_STDERR_BYTES;
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (text: string) => {
      captured += text;
      if (captured.length > limit) captured = captured.slice(captured.length - limit);
    });
  } else if (child.stderr && typeof mode === 'object') {
    child.stderr.pipe(mode, { end: false });
  }
  return { child, exited, stderrText: () => captured };
}

/**
 * Ends the child the way the spec asks a client to: its stdin was already closed; wait for it to exit,
 * then SIGTERM, then SIGKILL [stdio: Shutdown]. Resolves with how it ended.
 */
export async function stopChild(
  started: StartedChild,
  exitGraceMs: number,
  killGraceMs: number,
): Promise<ChildExit> {
  const { child, exited } = started;
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return exited;
  if (await within(exited, exitGraceMs)) return exited;
  child.kill('SIGTERM');
  if (await within(exited, killGraceMs)) return exited;
  child.kill('SIGKILL');
  return exited;
}

/** Whether `promise` settles within `ms`: a graceful close's time bound, on core's `withTimeout`. */
function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  return withTimeout(
    promise.then(() => true),
    ms,
  ).catch(() => false);
}

/** A readable account of how the child ended, for the UPSTREAM_CLOSED message. */
export function describeExit(exit: ChildExit | undefined, commandName: string): string {
  if (!exit) return `the server process (${commandName}) closed its output`;
  if (exit.error) return `the server process (${commandName}) could not start: ${exit.error.message}`;
  if (exit.signal) return `the server process (${commandName}) was killed by ${exit.signal}`;
  return `the server process (${commandName}) exited with code ${exit.code}`;
}
