// The proxy's Prometheus metrics (the `./metrics` entry): only an app that imports that entry loads
// prom-client.
import type { Endpoint } from '@mcp-inflight/core';
import { Counter, Gauge, Registry } from 'prom-client';
import type { CallEvent, ProxyEvent } from './events.js';
import type { McpProxy } from './proxy.js';

/** What the metrics read from a proxy. */
type ProxySources = Pick<McpProxy, 'relay' | 'link' | 'hosts' | 'progress' | 'admission'>;

/**
 * The proxy's Prometheus metrics (`prom-client`, its own registry). Counted once each, where it happens
 * once: a call's outcome, cause and deadline when the call ends (its relay event); cancels from the
 * endpoints' own events; upstream restarts from the link's events; progress from the counters the relay
 * already keeps, read when scraped. Nothing is added per progress update.
 *
 * | metric | type | labels |
 * |---|---|---|
 * | `mcp_proxy_calls_in_flight` | gauge | `transport` (stdio, http), `revision` (the host's) |
 * | `mcp_proxy_calls_ended_total` | counter | `outcome`, `cause` (`none` when it completed) |
 * | `mcp_proxy_deadlines_fired_total` | counter | `kind` (idle, ceiling) |
 * | `mcp_proxy_cancels_sent_total` | counter | `how` (notification, close-stream): upstream cancels |
 * | `mcp_proxy_cancels_received_total` | counter | `how` (notification, stream-close): hosts' cancels |
 * | `mcp_proxy_progress_total` | counter | `fate` (received, relayed, coalesced, dropped) |
 * | `mcp_proxy_upstream_restarts_total` | counter | |
 * | `mcp_proxy_upstream_ready` | gauge | |
 * | `mcp_proxy_host_endpoints` | gauge | host connections, sessions and 2026-07-28 requests alive |
 * | `mcp_proxy_calls_queued` | gauge | host calls waiting for a slot (`--max-in-flight`, `--max-host-in-flight`) |
 * | `mcp_proxy_calls_refused_total` | counter | host calls refused `-32010`: the queue was full |
 * | `mcp_proxy_store_up` | gauge | with a task directory (`--redis`): 1 while the store answers and nothing kept waits |
 * | `mcp_proxy_store_errors_total` | counter | store commands that failed or went unanswered |
 * | `mcp_proxy_store_pending_writes` | gauge | claims and answers kept for when the store is back |
 */
export class ProxyMetrics {
  /** The `prom-client` registry holding these metrics (and only these). */
  readonly registry = new Registry();
  readonly #ended: Counter<'outcome' | 'cause'>;
  readonly #deadlines: Counter<'kind'>;
  readonly #cancelsSent: Counter<'how'>;
  readonly #cancelsReceived: Counter<'how'>;
  readonly #restarts: Counter;
  #progressIn = 0;
  #progressOut = 0;

  constructor(proxy: ProxySources) {
    const registers = [this.registry];
    registerCallGauges(registers, proxy);
    this.#ended = new Counter({
      name: 'mcp_proxy_calls_ended_total',
      help: 'Relayed calls that ended, by outcome and cause.',
      labelNames: ['outcome', 'cause'],
      registers,
    });
    this.#deadlines = new Counter({
      name: 'mcp_proxy_deadlines_fired_total',
      help: "Relayed calls ended by the proxy's own limits, by kind.",
      labelNames: ['kind'],
      registers,
    });
    this.#cancelsSent = new Counter({
      name: 'mcp_proxy_cancels_sent_total',
      help: 'Cancels the proxy sent upstream, by how (notification or closing the request stream).',
      labelNames: ['how'],
      registers,
    });
    this.#cancelsReceived = new Counter({
      name: 'mcp_proxy_cancels_received_total',
      help: "Hosts' cancels, by how (notification or a 2026-07-28 stream close).",
      labelNames: ['how'],
      registers,
    });
    this.#restarts = registerUpstreamMetrics(registers, proxy, {
      progressIn: () => this.#progressIn,
      progressOut: () => this.#progressOut,
    });
    registerStoreMetrics(registers, proxy);
    for (const how of ['notification', 'close-stream']) this.#cancelsSent.inc({ how }, 0);
    for (const how of ['notification', 'stream-close']) this.#cancelsReceived.inc({ how }, 0);
    for (const kind of ['idle', 'ceiling']) this.#deadlines.inc({ kind }, 0);
  }

  /** Counts one proxy event (pass every event of `onEvent`). */
  observe(event: ProxyEvent): void {
    if (event.type === 'call') this.#call(event);
    else if (event.type === 'upstream-started' && event.start > 1) this.#restarts.inc();
  }

  /** Counts the cancels an upstream endpoint sends. */
  watchUpstream(endpoint: Endpoint): void {
    endpoint.events.on('cancel-sent', (_id, _method, _cause, how) => this.#cancelsSent.inc({ how }));
  }

  /** Counts the cancels a host endpoint receives as notifications. */
  watchHost(endpoint: Endpoint): void {
    endpoint.events.on('cancel-received', () => this.#cancelsReceived.inc({ how: 'notification' }));
  }

  /** The text exposition format. */
  metrics(): Promise<string> {
    return this.registry.metrics();
  }

  #call(event: CallEvent): void {
    this.#progressIn += event.progressIn;
    this.#progressOut += event.progressOut;
    this.#ended.inc({ outcome: event.outcome, cause: event.cause ?? 'none' });
    if (event.cause === 'IDLE_TIMEOUT') this.#deadlines.inc({ kind: 'idle' });
    else if (event.cause === 'CEILING') this.#deadlines.inc({ kind: 'ceiling' });
    // 2026-07-28 HTTP: the host closing its stream is its cancel [CN24]; it ends the call as DISCONNECTED.
    else if (event.cause === 'DISCONNECTED') this.#cancelsReceived.inc({ how: 'stream-close' });
  }
}

/** The call gauges read at scrape: queued and refused (the admission), in flight (the relay's call table). */
function registerCallGauges(registers: Registry[], { relay, admission }: ProxySources): void {
  new Gauge({
    name: 'mcp_proxy_calls_queued',
    help: 'Host calls waiting for a slot, hosts taken round robin.',
    registers,
    collect() {
      this.set(admission.stats.queuedRequests);
    },
  });
  new Counter({
    name: 'mcp_proxy_calls_refused_total',
    help: 'Host calls refused with -32010 because the queue was full.',
    registers,
    collect() {
      this.reset();
      this.inc(admission.stats.refusedRequests);
    },
  });
  new Gauge({
    name: 'mcp_proxy_calls_in_flight',
    help: 'Relayed calls in flight, by host transport and host revision.',
    labelNames: ['transport', 'revision'],
    registers,
    collect() {
      this.reset();
      for (const call of relay.calls()) {
        this.inc({ transport: call.host.startsWith('http') ? 'http' : 'stdio', revision: call.revision });
      }
    },
  });
}

/**
 * Progress (ended calls' counts, read through `read`, and the progress relay's), upstream restarts (the
 * counter returned, counted from the link's events), readiness and host endpoints (read at scrape).
 */
function registerUpstreamMetrics(
  registers: Registry[],
  { link, hosts, progress }: ProxySources,
  read: { progressIn: () => number; progressOut: () => number },
): Counter {
  new Counter({
    name: 'mcp_proxy_progress_total',
    help: 'Progress updates: received from the upstream, relayed to hosts, coalesced, dropped.',
    labelNames: ['fate'],
    registers,
    collect() {
      const stats = progress.stats;
      this.reset();
      this.inc({ fate: 'received' }, read.progressIn());
      this.inc({ fate: 'relayed' }, read.progressOut());
      this.inc({ fate: 'coalesced' }, stats.coalesced);
      this.inc({ fate: 'dropped' }, stats.dropped);
    },
  });
  const restarts = new Counter({
    name: 'mcp_proxy_upstream_restarts_total',
    help: 'Upstream connections opened after the first.',
    registers,
  });
  new Gauge({
    name: 'mcp_proxy_upstream_ready',
    help: '1 while the upstream is connected, else 0.',
    registers,
    collect() {
      this.set(link.current === undefined ? 0 : 1);
    },
  });
  new Gauge({
    name: 'mcp_proxy_host_endpoints',
    help: 'Host connections, legacy HTTP sessions and 2026-07-28 requests alive.',
    registers,
    collect() {
      this.set(hosts.list().length);
    },
  });
  return restarts;
}

/** The task directory's store (`--redis`), read at scrape; nothing without a directory that reports it. */
function registerStoreMetrics(registers: Registry[], { relay }: ProxySources): void {
  if (relay.tasks.store === undefined) return;
  const health = () => relay.tasks.store ?? { up: false, errors: 0, pendingWrites: 0 };
  new Gauge({
    name: 'mcp_proxy_store_up',
    help: '1 while the shared task store (Redis) answers and every write kept during an outage is in it, else 0.',
    registers,
    collect() {
      this.set(health().up ? 1 : 0);
    },
  });
  new Counter({
    name: 'mcp_proxy_store_errors_total',
    help: 'Shared task store commands that failed or went unanswered.',
    registers,
    collect() {
      this.reset();
      this.inc(health().errors);
    },
  });
  new Gauge({
    name: 'mcp_proxy_store_pending_writes',
    help: 'Task claims and answers kept while the store is away, written once it is back.',
    registers,
    collect() {
      this.set(health().pendingWrites);
    },
  });
}
