// The proxy's command line (the `./cli` entry, the bin's): one upstream (spawned on stdio, or over HTTP)
// fronted for any number of hosts (on stdio, or over HTTP). README.md lists every flag; `--help` prints
// them with their defaults. It loads prom-client (the admin listener's metrics); the root entry does not.
import { withTimeout } from '@mcp-inflight/core';
import { isLegacy } from '@mcp-inflight/core/adapter';
import type { RedisTaskDirectory, StoreEvent } from '@mcp-inflight/redis';
import { RequestStateSigner } from '@mcp-inflight/server/input';
import { type AdminListener, listenAdmin } from './admin.js';
import { escapeForLog, formatEvent, jsonLine, type ProxyEvent } from './events.js';
import { USAGE, UsageError } from './flags.js';
import type { Listener } from './listeners.js';
import { type ProxyOptions, parseProxyArgs } from './options.js';
import { PassHeaders } from './pass-headers.js';
import { createProxy, type McpProxy } from './proxy.js';
import { ProxyMetrics } from './proxy-metrics.js';
import { storeLogLine } from './store-log.js';

/** How long shutdown waits for cancels and error responses to be written before closing. */
const SHUTDOWN_GRACE_MS = 2_000;

/** Exit codes: 0 after a clean stop, 1 when the upstream cannot be reached at start, 2 for bad start-up input. */
const EXIT_USAGE = 2;

/**
 * Runs the proxy CLI with `argv` (without node and the script): parses the flags, connects the upstream,
 * listens, and on SIGTERM or SIGINT drains (second signal: cancels at once) and exits 0. A start-up mistake
 * (a bad flag, an unreadable token file, a port in use, an upstream command that does not exist) ends the
 * process with one line on stderr and exit code 2.
 *
 * @example
 * ```ts
 * import { runCli } from '@mcp-inflight/proxy/cli';
 * await runCli(['--upstream-stdio', 'node server.js', '--http', '3000']);
 * ```
 */
export async function runCli(argv: readonly string[]): Promise<void> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(USAGE);
    process.exit(0);
  }
  let options: ProxyOptions;
  try {
    options = parseProxyArgs(argv);
  } catch (error) {
    return usageExit(error, ' (see --help)');
  }
  if (options.listen.kind === 'http' && !isLoopback(options.host)) {
    process.stderr.write(
      `proxy: warning: --host ${options.host} is reachable from other machines: anyone who can reach it can call the upstream's tools${options.authTokens ? '' : ' (no --auth-token-file is set)'}\n`,
    );
  }
  const run = new CliRun(options);
  const directory = await openDirectory(options, run.logStore);
  const proxy = createProxy(run.config(directory));
  await run.start(proxy, directory);
}

/** One run of the CLI: what it opened (to close on the way out) and where it logs. */
class CliRun {
  readonly #options: ProxyOptions;
  #metrics: ProxyMetrics | undefined;
  #closers: Array<() => Promise<unknown>> = [];
  /** The hosts' listener, once it listens (for /stats). */
  #serving: Listener | undefined;

  constructor(options: ProxyOptions) {
    this.#options = options;
  }

  /** Logs go to stderr: on stdio, stdout carries only MCP messages. */
  readonly log = (event: ProxyEvent): void => {
    this.#metrics?.observe(event);
    const format = this.#options.log;
    if (format === 'quiet') return;
    process.stderr.write(`${format === 'json' ? jsonLine(event) : formatEvent(event)}\n`);
  };

  /** The task store's outage and its end (`--redis`), beside the proxy's own events. */
  readonly logStore = (event: StoreEvent): void => {
    const format = this.#options.log;
    if (format !== 'quiet') process.stderr.write(`${storeLogLine(event, format)}\n`);
  };

  /** The proxy the flags describe. */
  config(directory: RedisTaskDirectory | undefined): Parameters<typeof createProxy>[0] {
    const options = this.#options;
    return {
      ...(directory ? { tasks: { directory } } : {}),
      upstream: options.upstream,
      upstreamOptions: {
        connectTimeoutMs: options.connectTimeoutMs,
        // Into the proxy's log (escaped there), not straight to stderr: the tool's name is the upstream's.
        onWarning: ({ tool, message }) => this.log({ type: 'upstream-warning', tool, message }),
        ...(Object.keys(options.headers).length > 0 ? { headers: options.headers } : {}),
      },
      idleMs: options.idleMs,
      ceilingMs: options.ceilingMs,
      input: {
        holdMs: options.inputHoldMs,
        // Every instance behind a balancer signs with one secret, so any of them verifies a host's retry.
        ...(options.requestStateSecret === undefined
          ? {}
          : {
              signer: new RequestStateSigner({
                ttlMs: options.inputHoldMs,
                secret: options.requestStateSecret,
              }),
            }),
      },
      logArguments: options.logArguments,
      ...(options.passHeaders.length > 0 ? { passHeaders: new PassHeaders(options.passHeaders) } : {}),
      ...(options.minIntervalMs === undefined ? {} : { minIntervalMs: options.minIntervalMs }),
      onEvent: this.log,
      logEndpoints: options.log !== 'quiet',
      onAttach: (endpoint) => this.#metrics?.watchHost(endpoint),
      onUpstream: (endpoint) => this.#metrics?.watchUpstream(endpoint),
      maxInFlight: options.maxInFlight,
      maxHostInFlight: options.maxHostInFlight,
    };
  }

  /** Admin listener, upstream, hosts' listener, in that order; then it waits for a signal or the host. */
  async start(proxy: McpProxy, directory: RedisTaskDirectory | undefined): Promise<void> {
    this.#closers.push(() => proxy.close());
    if (directory) this.#closers.push(() => directory.close());
    const readiness = (): string | undefined => {
      if (proxy.relay.draining !== undefined) return `draining: ${proxy.relay.draining}`;
      return proxy.link.unready;
    };
    // The admin listener comes first, so /readyz says 503 while a slow upstream starts.
    if (this.#options.adminPort !== undefined) await this.#admin(proxy, this.#options.adminPort, readiness);
    await this.#connect(proxy);
    let listener: Listener;
    try {
      listener = await this.#listen(proxy, readiness);
    } catch (error) {
      await this.#closeAll();
      return usageExit(new UsageError(`cannot listen: ${(error as Error).message}`));
    }
    this.#serving = listener;
    if (this.#options.listen.kind === 'http') this.log({ type: 'listening', url: listener.url });
    this.#closers.unshift(() => listener.close());
    this.#stopOnSignals(proxy, listener);
  }

  async #admin(proxy: McpProxy, port: number, readiness: () => string | undefined): Promise<void> {
    this.#metrics = new ProxyMetrics(proxy);
    let admin: AdminListener;
    try {
      admin = await listenAdmin(port, readiness, this.#metrics, () => ({
        relay: { ...proxy.relay.stats, inFlightTable: proxy.relay.inFlight },
        admission: proxy.admission.stats,
        transport: this.#serving?.stats(),
      }));
    } catch (error) {
      return usageExit(new UsageError(`cannot listen on --admin-port: ${(error as Error).message}`));
    }
    // Closed after the hosts' listener, before the proxy.
    this.#closers.unshift(() => admin.close());
    this.log({ type: 'admin-listening', url: admin.url });
  }

  async #connect(proxy: McpProxy): Promise<void> {
    try {
      await proxy.connect();
    } catch (error) {
      const message = (error as Error).message;
      // The text log has just said why (the upstream-failed line); say it here only when it did not.
      if (this.#options.log !== 'text') process.stderr.write(`proxy: ${escapeForLog(message)}\n`);
      await this.#closeAll();
      // A command that does not exist is a start-up mistake like a bad flag.
      process.exit(/\b(ENOENT|EACCES)\b/.test(message) ? EXIT_USAGE : 1);
    }
    const revision = proxy.link.current?.revision;
    if (this.#options.passHeaders.length > 0 && (revision === undefined || isLegacy(revision))) {
      // One legacy session serves every host: a host's header would travel with other hosts' calls.
      await this.#closeAll();
      return usageExit(
        new UsageError(
          `--pass-header needs a 2026-07-28 HTTP upstream; this one speaks ${revision ?? 'an unknown revision'}, whose one session serves every host`,
        ),
      );
    }
  }

  #listen(proxy: McpProxy, readiness: () => string | undefined): Listener | Promise<Listener> {
    const options = this.#options;
    if (options.listen.kind === 'stdio') return proxy.serveStdio();
    return proxy.serveHttp({
      port: options.listen.port,
      host: options.host,
      path: options.path,
      maxSessions: options.maxSessions,
      sessionIdleMs: options.sessionIdleMs,
      maxClientSessions: options.maxClientSessions,
      maxAddressClients: options.maxAddressClients,
      maxConnections: options.maxConnections,
      maxIdleConnectionsPerAddress: options.maxIdleConnectionsPerAddress,
      // Refusals name the flags that change them, not the library's option names.
      optionNames: {
        allowedOrigins: '--allowed-origins',
        allowedHosts: '--allowed-hosts',
        maxConnections: '--max-connections',
        maxIdleConnectionsPerAddress: '--max-idle-connections-per-address',
      },
      ...(options.allowedOrigins ? { allowedOrigins: options.allowedOrigins } : {}),
      ...(options.allowedHosts ? { allowedHosts: options.allowedHosts } : {}),
      ...(options.authTokens ? { authTokens: options.authTokens } : {}),
      readiness,
    });
  }

  /** SIGTERM or SIGINT drains (a second one cancels at once); the host closing stdio stops at once. */
  #stopOnSignals(proxy: McpProxy, listener: Listener): void {
    let stopping = false;
    const stop = async (why: string, drainMs: number): Promise<void> => {
      if (stopping) {
        // A second signal: cancel what is still draining, at once.
        proxy.shutdown(`${why} (second signal)`);
        return;
      }
      stopping = true;
      proxy.relay.drain(why);
      this.log({ type: 'draining', why, inFlight: proxy.relay.inFlight, drainMs });
      if (drainMs > 0) await withTimeout(proxy.relay.idle(), drainMs).catch(() => undefined);
      // Whatever is left is cancelled: each host told SHUTDOWN, each upstream call cancelled with that reason.
      if (proxy.relay.inFlight > 0) proxy.shutdown(why);
      await withTimeout(proxy.relay.idle(), SHUTDOWN_GRACE_MS).catch(() => undefined);
      await this.#closeAll(true);
      this.log({ type: 'stats', stats: proxy.relay.stats });
      process.exit(0);
    };
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.on(signal, () => void stop(`proxy received ${signal}`, this.#options.drainMs));
    }
    // The connection's own reason: a host that went, or one cut off for not reading its answers.
    void listener.closed.then(() => stop(listener.closeReason?.() ?? 'the host closed the connection', 0));
  }

  /** Closes what was opened, in order: the hosts' listener, the admin listener, the proxy, Redis. */
  async #closeAll(quietly = false): Promise<void> {
    for (const close of this.#closers.splice(0)) {
      if (quietly) await close().catch(() => undefined);
      else await close();
    }
  }
}

/** Which instance relays each task, in Redis, when there is more than one (docs/deploy.md). */
async function openDirectory(
  options: ProxyOptions,
  onStore: (event: StoreEvent) => void,
): Promise<RedisTaskDirectory | undefined> {
  if (options.redisUrl === undefined) return undefined;
  try {
    // Loaded only when asked for: a proxy without --redis never loads the Redis client.
    const { RedisTaskDirectory: Directory } = await import('@mcp-inflight/redis');
    return await Directory.connect({ url: options.redisUrl, onStore });
  } catch (error) {
    return usageExit(new UsageError(`--redis: ${(error as Error).message}`));
  }
}

function usageExit(error: unknown, hint = ''): never {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`proxy: ${escapeForLog(message)}${hint}\n`);
  process.exit(EXIT_USAGE);
}

function isLoopback(host: string): boolean {
  return (
    host === '127.0.0.1' || host === 'localhost' || host === '::1' || host === '[::1]' || /^127\./.test(host)
  );
}
