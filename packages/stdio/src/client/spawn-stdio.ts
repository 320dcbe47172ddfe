import type { ChildProcess } from 'node:child_process';
import { PassThrough, type Readable, type Writable } from 'node:stream';
import type { ClientIdentity, McpClient } from '@mcp-inflight/client';
import { LifecycleClient } from '@mcp-inflight/client';
import { InflightError } from '@mcp-inflight/core';
import {
  connectStdio,
  type StdioConnection,
  type StdioConnectionOptions,
} from '../connection/connect-stdio.js';
import { type ChildExit, type ChildOptions, describeExit, startChild, stopChild } from './child.js';
import { type CommandSpec, parseCommandLine } from './command-line.js';

/**
 * Options for {@link spawnStdio}: the child's process options, the client's identity, and connection options.
 *
 * @example
 * ```ts
 * import { type SpawnStdioOptions, spawnStdio } from '@mcp-inflight/stdio';
 * const options: SpawnStdioOptions = {
 *   clientInfo: { name: 'my-host', version: '1.0.0' },
 *   idleMs: 30_000, // defaults for every request on this client
 *   ceilingMs: 300_000,
 *   exitGraceMs: 5_000, // close(): 5 s for the child to exit after its stdin closes, then SIGTERM…
 *   killGraceMs: 1_000, // …then 1 s more, then SIGKILL
 *   stderr: 'ignore',
 * };
 * const client = spawnStdio('python -m my_server', options);
 * ```
 */
export interface SpawnStdioOptions
  extends Omit<StdioConnectionOptions, 'input' | 'output' | 'role' | 'closeOnInputEnd' | 'endOutputOnClose'>,
    ChildOptions {
  /** @default { name: '@mcp-inflight/stdio', version: '0.1.0' } */
  clientInfo?: ClientIdentity['clientInfo'];
  /** Capabilities announced in `initialize` (legacy) or in each request's `_meta` (2026-07-28). @default {} */
  capabilities?: Record<string, unknown>;
  /** How long `close()` waits for the child to exit after closing its stdin, before SIGTERM. @default 2 000 */
  exitGraceMs?: number;
  /** How long `close()` waits after SIGTERM, before SIGKILL. @default 2 000 */
  killGraceMs?: number;
}

/**
 * A client of a child MCP server: the {@link McpClient} every transport implements, plus the child.
 *
 * @example
 * ```ts
 * import { InflightError } from '@mcp-inflight/core';
 * import { type StdioClient, spawnStdio } from '@mcp-inflight/stdio';
 * const client: StdioClient = spawnStdio('node server.js', { stderr: 'capture' });
 * try {
 *   await client.connect();
 *   await client.request('tools/list');
 * } catch (error) {
 *   // The child died: UPSTREAM_CLOSED, naming its exit code; its last words are in the captured stderr.
 *   if (InflightError.is(error) && error.code === 'UPSTREAM_CLOSED') {
 *     console.error(client.stderrText());
 *   }
 * } finally {
 *   await client.close();
 *   console.error('child exit', await client.exited);
 * }
 * ```
 */
export interface StdioClient extends McpClient {
  /** The child process. */
  readonly child: ChildProcess;
  /** The stdio connection to the child (its `endpoint`, `stats`). */
  readonly connection: StdioConnection;
  /** Resolves when the child has exited (or failed to start); `close()` waits for it. */
  readonly exited: Promise<ChildExit>;
  /** The tail of the child's stderr, with `stderr: 'capture'`; otherwise empty. */
  stderrText(): string;
}

/** How long after the child exits its output may still be read before every pending call fails. */
const EXIT_DRAIN_MS = 100;

/**
 * Spawns an MCP server as a child process and returns a client for it. The child gets no shell. Its exit
 * fails every pending call at once with UPSTREAM_CLOSED and a message naming the exit code or signal.
 * `close()` cancels what is in flight, closes the child's stdin and waits for it to exit, escalating to
 * SIGTERM and SIGKILL after `exitGraceMs` and `killGraceMs`.
 *
 * @example
 * ```ts
 * import { spawnStdio } from '@mcp-inflight/stdio';
 * const client = spawnStdio('node examples/server/dist/index.js', { stderr: 'capture' });
 * await client.connect(); // 'auto': probes with server/discover, falls back to initialize for a legacy server
 * const result = await client.callTool('work', { steps: 5, intervalMs: 100 }, {
 *   onprogress: (p) => console.log(`${p.progress}/${p.total}`),
 *   idleMs: 2_000,
 *   ceilingMs: 30_000,
 * });
 * await client.close();
 * ```
 */
export function spawnStdio(commandLine: string | CommandSpec, options: SpawnStdioOptions = {}): StdioClient {
  const spec = commandSpecOf(commandLine);
  checkChildOptions(options);
  const { cwd, env, stderr, maxStderrBytes, clientInfo, capabilities, exitGraceMs, killGraceMs, ...rest } =
    options;
  const identity: ClientIdentity = {
    clientInfo: clientInfo ?? { name: '@mcp-inflight/stdio', version: '0.1.0' },
    capabilities: capabilities ?? {},
  };
  const started = startChild(spec, { cwd, env, stderr, maxStderrBytes });
  // A spawn that failed before its pipes were made (EMFILE, ENFILE: the fd limit) has none: the client
  // gets stand-ins, and its calls fail with the spawn error once 'error' comes (the next tick).
  const pipes = pipesOf(started.child);
  const connection = connectStdio({
    ...rest,
    input: pipes.stdout,
    output: pipes.stdin,
    role: 'client',
    // The endpoint stamps both on every 2026-07-28 request [M2 M4].
    clientInfo: identity.clientInfo,
    clientCapabilities: identity.capabilities,
    closeOnInputEnd: false, // wait for the exit status, so the cause names it
  });
  watchExit(connection, started, pipes.stdout, spec.command);
  return new SpawnedClient(connection, started, identity, exitGraceMs ?? 2_000, killGraceMs ?? 2_000);
}

/** The child's pipes, or, when the spawn failed before making them, an ended input and a sink. */
function pipesOf(child: ChildProcess): { stdout: Readable; stdin: Writable } {
  if (child.stdout && child.stdin) return { stdout: child.stdout, stdin: child.stdin };
  const stdout = new PassThrough();
  stdout.end();
  return { stdout, stdin: new PassThrough().resume() };
}

const ACCEPTED_COMMANDS =
  "a command line ('node server.js') or { command, args } ({ command: 'node', args: ['server.js'] })";

// Plain JavaScript reaches here with anything; Node's own message for it ('The "file" argument must be of
// type string') names neither this function nor the forms it takes.
function commandSpecOf(commandLine: unknown): CommandSpec {
  if (typeof commandLine === 'string') return parseCommandLine(commandLine);
  if (Array.isArray(commandLine)) {
    const [command, ...args] = commandLine as unknown[];
    throw new TypeError(
      `spawnStdio takes ${ACCEPTED_COMMANDS}, not an array: for [${JSON.stringify(command)}, …] pass { command: ${JSON.stringify(command)}, args: ${JSON.stringify(args)} }`,
    );
  }
  const spec = commandLine as Partial<CommandSpec> | null | undefined;
  if (typeof spec !== 'object' || spec === null || typeof spec.command !== 'string' || spec.command === '') {
    const got =
      typeof spec === 'object' && spec !== null
        ? `an object whose command is ${shown(spec.command)}`
        : shown(commandLine);
    throw new TypeError(`spawnStdio takes ${ACCEPTED_COMMANDS}, got ${got}`);
  }
  if (
    spec.args !== undefined &&
    !(Array.isArray(spec.args) && spec.args.every((a) => typeof a === 'string'))
  ) {
    throw new TypeError(`spawnStdio: args must be an array of strings, got ${shown(spec.args)}`);
  }
  return spec as CommandSpec;
}

const STDERR_MODES = ['inherit', 'ignore', 'pipe', 'capture'];

function checkChildOptions(options: SpawnStdioOptions): void {
  const { stderr } = options;
  const isStream = typeof stderr === 'object' && stderr !== null && typeof stderr.write === 'function';
  if (stderr !== undefined && !STDERR_MODES.includes(stderr as string) && !isStream) {
    throw new TypeError(
      `spawnStdio: stderr must be 'inherit', 'ignore', 'pipe', 'capture' or a writable stream, got ${shown(stderr)}`,
    );
  }
  for (const name of ['exitGraceMs', 'killGraceMs', 'maxStderrBytes'] as const) {
    const value = options[name];
    if (value !== undefined && !(typeof value === 'number' && value >= 0 && Number.isFinite(value))) {
      throw new RangeError(`spawnStdio: ${name} must be a finite number >= 0, got ${shown(value)}`);
    }
  }
}

function shown(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'object') return Array.isArray(value) ? 'an array' : 'an object';
  return `${typeof value} ${String(value)}`;
}

/** The shared client behaviour on a child's pipes. */
class SpawnedClient extends LifecycleClient implements StdioClient {
  readonly child: ChildProcess;
  readonly connection: StdioConnection;
  readonly exited: Promise<ChildExit>;
  readonly stderrText: () => string;

  constructor(
    connection: StdioConnection,
    started: ReturnType<typeof startChild>,
    identity: ClientIdentity,
    exitGraceMs: number,
    killGraceMs: number,
  ) {
    const endpoint = connection.endpoint;
    super(endpoint, identity, {
      notify: async (method, params) => endpoint.notify(method, params),
      close: async () => {
        await connection.close('the client is closing');
        await stopChild(started, exitGraceMs, killGraceMs);
      },
      closed: connection.closed,
    });
    this.child = started.child;
    this.connection = connection;
    this.exited = started.exited;
    this.stderrText = started.stderrText;
  }
}

/**
 * Fails the connection when the child is gone: once its output has ended and its exit status is known,
 * or a short drain after exit if some grandchild keeps the pipe open.
 */
function watchExit(
  connection: StdioConnection,
  started: ReturnType<typeof startChild>,
  stdout: Readable,
  commandName: string,
): void {
  let exit: ChildExit | undefined;
  let outputEnded = false;
  const settle = (): void => {
    connection.abort(new InflightError('UPSTREAM_CLOSED', describeExit(exit, commandName)));
  };
  const onOutputEnd = (): void => {
    outputEnded = true;
    if (exit) return settle();
    // Output ended first: give the exit status a moment to arrive so the cause can name it.
    setTimeout(settle, EXIT_DRAIN_MS).unref();
  };
  stdout.once('end', onOutputEnd);
  stdout.once('close', () => {
    if (!outputEnded) onOutputEnd();
  });
  void started.exited.then((info) => {
    exit = info;
    if (outputEnded || info.error) return settle();
    setTimeout(settle, EXIT_DRAIN_MS).unref();
  });
}
