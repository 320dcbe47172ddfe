// The proxy CLI: one upstream (spawned on stdio, or over HTTP) fronted for any number of hosts (on stdio,
// or over HTTP at 127.0.0.1:PORT/mcp). See README.md for flags and behaviour.
import { ProgressRelay, withTimeout } from '@mcp-inflight/core';
import { Listeners } from '@mcp-inflight/core/listen';
import { LiveEndpoints } from '@mcp-inflight/core/stats';
import { logEndpointEvents } from './endpoint-log.js';
import { formatEvent, type ProxyEvent } from './events.js';
import { type Listener, listenHttp, listenStdio } from './listeners.js';
import { type ProxyOptions, parseProxyArgs, USAGE } from './options.js';
import { ProxyRelay } from './proxy-relay.js';
import { serveProxyStats } from './stats.js';
import { clientUpstream } from './upstream-client.js';
import { UpstreamLink } from './upstream-link.js';

/** How long shutdown waits for cancels and error responses to be written before closing. */
const SHUTDOWN_GRACE_MS = 2_000;

let options: ProxyOptions;
try {
  if (process.argv.includes('--help')) {
    process.stdout.write(USAGE);
    process.exit(0);
  }
  options = parseProxyArgs(process.argv.slice(2));
} catch (error) {
  process.stderr.write(`proxy: ${(error as Error).message}\n\n${USAGE}`);
  process.exit(2);
}

// Logs go to stderr: on stdio, stdout carries only MCP messages.
const log = (event: ProxyEvent): void => {
  if (options.log === 'quiet') return;
  process.stderr.write(`${options.log === 'json' ? JSON.stringify(event) : formatEvent(event)}\n`);
};

const logging = options.log !== 'quiet';
// Hosts' listen streams (2026-07-28) and legacy sessions get the upstream's list changes.
const listeners = new Listeners({ offer: { resourceSubscriptions: false } });
const connect = clientUpstream(options.upstream, listeners);
// Each upstream connection's event stream feeds the log: the cancels it sent, the deadlines that fired on
// it, the late answers it absorbed. With --log quiet nobody subscribes, so its endpoint emits nothing.
const connector = async () => {
  const connection = await connect();
  if (logging) logEndpointEvents(connection.endpoint, `upstream #${link.starts}`, log);
  return connection;
};
const link = new UpstreamLink(connector, log);
try {
  await link.get();
} catch (error) {
  // The text log has just said why (the upstream-failed line); say it here only when it did not.
  if (options.log !== 'text') process.stderr.write(`proxy: ${(error as Error).message}\n`);
  process.exit(1);
}

// `inflight/stats` (README, "Stats") on every host endpoint; it reads the listener once there is one.
const hosts = new LiveEndpoints();
const statsSources = () => ({
  relay,
  link,
  transport: (stateless: boolean) => {
    const stats = listener.stats();
    // A 2026-07-28 stats request over HTTP is itself a stateless request in flight: it is left out.
    if (stateless && typeof stats.statelessInFlight === 'number') stats.statelessInFlight--;
    return stats;
  },
});
const relay = new ProxyRelay(link, {
  idleMs: options.idleMs,
  ceilingMs: options.ceilingMs,
  input: { holdMs: options.inputHoldMs },
  onEvent: log,
  onAttach: (endpoint, host) => {
    if (logging) logEndpointEvents(endpoint, host, log); // the hosts' cancels, late results, errors
    hosts.add(endpoint);
    serveProxyStats(endpoint, host === 'http request', hosts, statsSources);
  },
});
// `--progress-interval`: one relay for every host endpoint, coalescing at that interval (0: every value).
const progress =
  options.minIntervalMs === undefined
    ? undefined
    : new ProgressRelay({ minIntervalMs: options.minIntervalMs });
let listener: Listener;
try {
  listener =
    options.listen.kind === 'stdio'
      ? listenStdio(relay, listeners, progress)
      : await listenHttp(relay, options.listen.port, options, listeners, progress);
} catch (error) {
  // A port in use is a mistake to name, not a crash to show.
  process.stderr.write(`proxy: cannot listen: ${(error as Error).message}\n`);
  await link.close();
  process.exit(1);
}
if (options.listen.kind === 'http') log({ type: 'listening', url: listener.url });

let stopping = false;
const stop = async (why: string): Promise<void> => {
  if (stopping) return;
  stopping = true;
  // Every host is answered with SHUTDOWN and every upstream call cancelled with that reason.
  relay.shutdown(why);
  // A time bound that is no request's deadline: wait for the calls to end, but never past the grace.
  await withTimeout(relay.idle(), SHUTDOWN_GRACE_MS).catch(() => undefined);
  await listener.close().catch(() => undefined);
  await link.close();
  log({ type: 'stats', stats: relay.stats });
  process.exit(0);
};
process.once('SIGINT', () => void stop('proxy received SIGINT'));
process.once('SIGTERM', () => void stop('proxy received SIGTERM'));
void listener.closed.then(() => stop('the host closed the connection'));
