// The example server: `work`, `status` and `confirm` on stdio, or with `--http PORT` on 127.0.0.1:PORT/mcp. See
// README.md.
import { readFileSync } from 'node:fs';
import type { Endpoint } from '@mcp-inflight/core';
import { serveHttp } from '@mcp-inflight/http';
import type { RedisTaskStore } from '@mcp-inflight/redis';
import { ListenStreams } from '@mcp-inflight/server/listen';
import { LiveEndpoints, serveStats } from '@mcp-inflight/server/stats';
import type { SharedTaskStore } from '@mcp-inflight/server/tasks';
import { serveStdio } from '@mcp-inflight/stdio';
import { parseServerArgs, type ServerOptions, USAGE } from './args.js';
import { conformanceServer } from './conformance.js';
import {
  EXAMPLE_TASK_LIMITS,
  exampleTaskStore,
  setupExampleServer,
  useRequestStateSecret,
  type WorkCounters,
} from './tools.js';

let options: ServerOptions;
try {
  options = parseServerArgs(process.argv.slice(2));
} catch (error) {
  process.stderr.write(`example server: ${(error as Error).message}\n\n${USAGE}`);
  process.exit(2);
}
if (options.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}

const counters: WorkCounters = { running: 0, completed: 0, cancelled: 0, stopped: 0 };
// Listen streams (2026-07-28 `subscriptions/listen`) on every transport; the conformance tools publish
// their list changes to them.
const listenStreams = new ListenStreams();
if (options.requestStateSecretFile !== undefined) {
  try {
    useRequestStateSecret(readSecret(options.requestStateSecretFile));
  } catch (error) {
    process.stderr.write(`example server: --request-state-secret-file: ${(error as Error).message}\n`);
    process.exit(2);
  }
}
let tasks: SharedTaskStore | undefined;
let redis: RedisTaskStore | undefined;
if (options.redisUrl !== undefined) {
  try {
    // Loaded only with --redis: its client is half of the server's start-up time, which a respawn waits on.
    const { RedisTaskStore } = await import('@mcp-inflight/redis');
    redis = await RedisTaskStore.connect({
      url: options.redisUrl,
      ...EXAMPLE_TASK_LIMITS,
      maxTasks: 10_000,
      onError: () => {}, // store calls report it (-32603); the client reconnects by itself
    });
  } catch (error) {
    process.stderr.write(`example server: --redis: ${(error as Error).message}\n`);
    process.exit(2);
  }
  tasks = redis;
} else if (options.tasks) tasks = exampleTaskStore();
const setupTools = options.conformance
  ? conformanceServer(counters, listenStreams, tasks, options.httpPort === undefined ? 'stdio' : 'http')
  : (endpoint: Endpoint) => setupExampleServer(endpoint, counters, tasks);
// `inflight/stats` (README, "Stats"): the process's tables and timers, over whichever transport serves it.
const live = new LiveEndpoints();
let transportStats: (stateless: boolean) => Record<string, unknown> = () => ({});
const setup = (endpoint: Endpoint, stateless = false): void => {
  setupTools(endpoint);
  live.add(endpoint);
  serveStats(endpoint, live, () => ({ work: { ...counters }, transport: transportStats(stateless) }));
};

if (options.httpPort !== undefined) {
  let server: Awaited<ReturnType<typeof serveHttp>>;
  try {
    server = await serveHttp((endpoint, info) => setup(endpoint, info.sessionId === undefined), {
      port: options.httpPort,
      host: '127.0.0.1',
      path: '/mcp',
      allowedOrigins: options.allowedOrigins, // unset: every loopback origin, any port (the adapter's default)
      maxSessions: options.maxSessions,
      sessionIdleMs: options.sessionIdleMs,
      handlerIdleMs: options.handlerIdleMs,
      handlerCeilingMs: options.handlerCeilingMs,
      listenStreams,
      // The one place an expiry shows: its calls end with SESSION_EXPIRED on the server side. A session id
      // is a bearer credential, so the log names only its first 8 characters.
      onSessionExpired: ({ sessionId, idleMs, inFlight }) =>
        process.stderr.write(
          `example server: session ${sessionId.slice(0, 8)}… expired after ${idleMs} ms without contact; ` +
            `${inFlight} call(s) cancelled (SESSION_EXPIRED)\n`,
        ),
    });
  } catch (error) {
    // A port in use is a mistake to name, not a crash to show.
    process.stderr.write(`example server: cannot listen: ${(error as Error).message}\n`);
    process.exit(1);
  }
  const { handler } = server;
  transportStats = (stateless) => {
    const { sessions, statelessInFlight } = handler.stats;
    // A 2026-07-28 stats request is itself a stateless request in flight: it is left out.
    return { kind: 'http', sessions, statelessInFlight: statelessInFlight - (stateless ? 1 : 0) };
  };
  process.stderr.write(`example server listening on ${server.url}\n`);
  const stop = (): void => {
    void server
      .close()
      .then(() => redis?.close())
      .then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
} else {
  const server = serveStdio((endpoint) => setup(endpoint), {
    listenStreams,
    handlerIdleMs: options.handlerIdleMs,
    handlerCeilingMs: options.handlerCeilingMs,
  });
  transportStats = () => ({ kind: 'stdio', ...server.stats });
  await server.closed;
  // The connection is over (stdin ended, or stdout broke while stdin stays open): nothing can be answered
  // any more, so exit rather than linger on open handles, as examples/proxy does.
  process.exit(0);
}

/** The secret's bytes, without the newline an editor or `echo` leaves; at least 32 of them. */
function readSecret(path: string): Uint8Array {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    throw new Error(
      `cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  let end = bytes.length;
  if (bytes[end - 1] === 0x0a) end--;
  if (bytes[end - 1] === 0x0d) end--;
  if (end < 32) throw new Error(`${path} holds ${end} bytes; the secret must be at least 32`);
  return new Uint8Array(bytes.subarray(0, end));
}
