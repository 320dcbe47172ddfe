import { type CacheHints, NO_CACHING } from '@mcp-inflight/client';
import { isInputRequired } from '@mcp-inflight/client/input';
import {
  type Clock,
  DeadlineController,
  type Endpoint,
  InflightError,
  type RequestContext,
  serveLifecycle,
  systemClock,
} from '@mcp-inflight/core';
import {
  declareParamHeaders,
  IdTable,
  isLegacy,
  type ParamHeader,
  paramHeadersOf,
  relayedParams,
} from '@mcp-inflight/core/adapter';
import { type CallOutcome, countCall, type ProxyEvent, type ProxyStats } from './events.js';
import { InputBroker, type InputBrokerOptions } from './input-broker.js';
import type { InputFlow } from './input-flow.js';
import type { PassHeaders } from './pass-headers.js';
import { RelayedCall, totalsOver } from './relayed-call.js';
import { RELAYED_METHODS, resultForHost } from './relayed-methods.js';
import type { TaskTableOptions } from './task-directory.js';
import type { TaskLeg } from './task-leg.js';
import { TaskTable } from './task-table.js';
import type { UpstreamConnection, UpstreamLink } from './upstream-link.js';

/** Options for a {@link CallRelay}. */
export interface CallRelayOptions {
  /** Idle limit for every relayed call: upstream progress resets it. @default 60_000 */
  idleMs?: number;
  /** Hard ceiling for every relayed call, from the host's request; nothing extends it. @default 600_000 */
  ceilingMs?: number;
  /** @default the system clock in whole milliseconds */
  clock?: Clock;
  /** Called with every event (ended calls, upstream life, shutdown). */
  onEvent?: (event: ProxyEvent) => void;
  /** Called for each host endpoint after the relay has set it up (to serve more methods on it). */
  onAttach?: (endpoint: Endpoint, host: string) => void;
  /**
   * Caching hints for a 2026-07-28 host on a cacheable result the upstream sent without them (a legacy
   * upstream has none to give) [CA1]. @default NO_CACHING: `{ ttlMs: 0, cacheScope: 'private' }`
   */
  cacheHints?: CacheHints;
  /** The task table's TTL bounds and cap (see {@link TaskTable}). */
  tasks?: TaskTableOptions;
  /** How upstream server-to-client requests wait for a 2026-07-28 host's retry (see {@link InputBroker}). */
  input?: Omit<InputBrokerOptions, 'clock'>;
  /** Call events carry the tool's `arguments` (cut to 200 characters); they may hold secrets. @default false */
  logArguments?: boolean;
  /** `--pass-header`: hosts' named headers sent with their own upstream calls (see {@link PassHeaders}). */
  passHeaders?: PassHeaders;
}

/**
 * The proxy's relay step, independent of transports: {@link CallRelay.attach} makes any host-facing server
 * endpoint (a stdio pipe, an HTTP session, one stateless 2026-07-28 request) answer the lifecycle with
 * the upstream's identity and relay every other request to the one shared upstream. Each relayed call
 * gets an upstream id and progress token minted by the upstream endpoint (hosts' ids and tokens are only
 * unique per host [PG4 J3]); upstream progress goes to the host's own token, strictly increasing,
 * coalesced and flushed before the result [PG6 PG12]; the host's cancel, the host leaving, and the
 * proxy's idle and ceiling limits each cancel the upstream call era-correctly on the upstream's leg, with
 * a reason naming the cause [CN25 CN24 TO8], and the host gets the JSON-RPC error whose `data.cause`
 * names it.
 *
 * @example
 * ```ts
 * import { CallRelay } from './call-relay.js';
 * import { UpstreamLink } from './upstream-link.js';
 * import { clientUpstream } from './upstream-client.js';
 * import { serveStdio } from '@mcp-inflight/stdio';
 *
 * const link = new UpstreamLink(
 *   clientUpstream({ kind: 'stdio', commandLine: 'node examples/server/dist/index.js', revision: 'auto' }),
 * );
 * await link.get();
 * const relay = new CallRelay(link, { idleMs: 60_000, ceilingMs: 600_000 });
 * serveStdio((endpoint) => relay.attach(endpoint, 'stdio'));
 * ```
 */
export class CallRelay {
  /** The one upstream every host's calls go to. */
  readonly link: UpstreamLink;
  /** The idle limit of every relayed call (ms). */
  readonly idleMs: number;
  /** The ceiling of every relayed call (ms). */
  readonly ceilingMs: number;
  /** Calls in flight, by a per-relay key: the one record of each (see {@link RelayedCall}). */
  readonly #calls = new IdTable<RelayedCall>(); // not a Map: one entry per relayed call (see IdTable)
  /** Running totals over every relayed call; `inFlight` is read from the call table, not counted apart. */
  readonly stats: ProxyStats = totalsOver(this.#calls);
  /** Task-augmented calls relayed, mapped per host. */
  readonly tasks: TaskTable;
  readonly #clock: Clock;
  readonly #onEvent: (event: ProxyEvent) => void;
  readonly #onAttach: ((endpoint: Endpoint, host: string) => void) | undefined;
  readonly #cacheHints: CacheHints;
  readonly #logArguments: boolean;
  readonly #passHeaders: PassHeaders | undefined;
  #draining: string | undefined;
  #nextKey = 0;
  /** Server-to-client requests from a legacy upstream, carried to the host whose call they belong to. */
  readonly inputs: InputBroker;
  /** Upstream endpoints whose server-to-client requests the broker already serves. */
  readonly #served = new WeakSet<Endpoint>();
  /** Resolvers of {@link CallRelay.idle} promises, called when the last call in flight ends. */
  #waitingForIdle: Array<() => void> = [];
  /** The upstream tools' mirrored parameters, from every `tools/list` relayed (SEP-2243). */
  readonly #paramHeaders = new Map<string, readonly ParamHeader[]>();

  constructor(link: UpstreamLink, options: CallRelayOptions = {}) {
    this.link = link;
    this.idleMs = options.idleMs ?? 60_000;
    this.ceilingMs = options.ceilingMs ?? 600_000;
    this.#clock = options.clock ?? systemClock;
    this.#onEvent = options.onEvent ?? (() => {});
    this.#onAttach = options.onAttach;
    this.#cacheHints = options.cacheHints ?? NO_CACHING;
    this.#logArguments = options.logArguments ?? false;
    this.#passHeaders = options.passHeaders;
    this.tasks = new TaskTable({ clock: this.#clock, ...options.tasks }, this.#passHeaders);
    this.inputs = new InputBroker({ clock: this.#clock, ...options.input }, () => this.#flows());
  }

  /** Calls relayed and not yet ended. */
  get inFlight(): number {
    return this.#calls.size;
  }

  /** The calls in flight now, by host label and host revision (read when scraped, never kept). */
  *calls(): IterableIterator<{
    /** The host's label (`stdio`, `http session …`, `http request`). */
    host: string;
    /** The revision the host's request was served under. */
    revision: string;
  }> {
    for (const call of this.#calls.list()) yield call;
  }

  /** The input flows of the calls in flight (what an upstream's request may belong to). */
  *#flows(): IterableIterator<InputFlow> {
    for (const call of this.#calls.list()) if (call.flow) yield call.flow;
  }

  /** Settles once no call is in flight (at once if none is); bound it with `withTimeout`. */
  idle(): Promise<void> {
    if (this.#calls.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#waitingForIdle.push(resolve));
  }

  /** Serves one host connection: the lifecycle from the upstream's identity, and every relayed method. */
  attach(endpoint: Endpoint, host: string): void {
    this.#passHeaders?.bind(endpoint);
    serveLifecycle(endpoint, this.link.identity);
    for (const method of RELAYED_METHODS) {
      endpoint.setRequestHandler(method, (params, ctx) => this.call(endpoint, host, params, ctx));
    }
    // A task-augmented tools/call keeps its routes past the CreateTaskResult; tasks/* reach only the host's own.
    endpoint.setRequestHandler('tools/call', (params, ctx) =>
      this.call(endpoint, host, params, ctx, this.tasks.legFor(endpoint, params, ctx, this.link.current)),
    );
    // The upstream's tools, as relayed, tell the HTTP server which Mcp-Param-* headers a 2026-07-28
    // host's call must carry: it refuses one that disagrees with its body (400, -32020) before relaying.
    endpoint.setRequestHandler('tools/list', async (params, ctx) =>
      this.#listed(await this.call(endpoint, host, params, ctx)),
    );
    declareParamHeaders(endpoint, (name) => this.#paramHeaders.get(name));
    this.tasks.attach(endpoint, () => this.link.current);
    this.#onAttach?.(endpoint, host);
  }

  /** Learns each listed tool's mirrored parameters (a tool with invalid annotations mirrors none). */
  #listed(result: unknown): unknown {
    const tools = (result as { tools?: unknown } | null)?.tools;
    if (!Array.isArray(tools)) return result;
    for (const tool of tools as Array<{ name?: unknown; inputSchema?: unknown } | null>) {
      if (typeof tool?.name !== 'string') continue;
      const { headers } = paramHeadersOf(tool.inputSchema);
      if (headers.length > 0) this.#paramHeaders.set(tool.name, headers);
      else this.#paramHeaders.delete(tool.name);
    }
    return result;
  }

  #sender(endpoint: Endpoint): <T>(send: () => T) => T {
    const pass = this.#passHeaders;
    return pass ? (send) => pass.send(endpoint, send) : direct;
  }

  /** Why new calls are refused (draining), or `undefined` while the relay takes calls. */
  get draining(): string | undefined {
    return this.#draining;
  }

  /**
   * Refuses new calls with `SHUTDOWN` (the host is told why) and lets the calls in flight go on: wait for
   * {@link CallRelay.idle}, bounded, then {@link CallRelay.shutdown} what is left.
   */
  drain(why: string): void {
    this.#draining ??= why;
  }

  /**
   * Cancels every relayed call with the shutdown cause: each host is answered with the error that says so,
   * and each upstream call is cancelled on the wire with that reason.
   */
  shutdown(why: string): void {
    this.#onEvent({ type: 'shutdown', why, inFlight: this.#calls.size });
    const cause = new InflightError('SHUTDOWN', why);
    for (const call of this.#calls.list()) call.endpoint.abortInbound(call.ctx.id, cause, false);
    this.tasks.clear(); // the task table's timers and held routes go with the proxy
    this.inputs.shutdown(cause);
  }

  /**
   * The one relay step: serves a host's request (`ctx` on a host-facing `endpoint`, labelled `host` in
   * events) by calling the upstream, under the relay's limits, with progress and cancellation carried
   * both ways. {@link CallRelay.attach} registers it for every relayed method; call it from a handler
   * of your own to relay a method of your choosing.
   *
   * @example
   * ```ts
   * import type { CallRelay } from '@mcp-inflight/proxy';
   * declare const relay: CallRelay;
   * declare const endpoint: import('@mcp-inflight/core').Endpoint;
   * endpoint.setRequestHandler('custom/run', (params, ctx) => relay.call(endpoint, 'stdio', params, ctx));
   * ```
   */
  async call(
    endpoint: Endpoint,
    host: string,
    params: Record<string, unknown> | undefined,
    ctx: RequestContext,
    task?: TaskLeg,
  ): Promise<unknown> {
    if (this.#draining !== undefined) throw new InflightError('SHUTDOWN', this.#draining);
    const record = new RelayedCall(this.#nextKey++, endpoint, host, ctx, params);
    record.startedAt = this.#clock.now();
    this.#calls.set(record.key, record);
    this.stats.calls++;
    // The ceiling runs from the host's request, so waiting for a (re)started upstream counts against it;
    // its parent is the host's signal, so the host's cancel, its stream closing and shutdown end it too.
    const call = new DeadlineController({
      ceilingMs: this.ceilingMs,
      clock: this.#clock,
      parent: ctx.signal,
    });
    try {
      // A (re)start in progress: wait at most this call's idle limit (and the connect timeout), then
      // UPSTREAM_UNAVAILABLE while the start goes on [issue 21 item 5].
      const upstream = await call.race(this.link.get(this.idleMs));
      if (!this.#served.has(upstream.endpoint)) {
        this.#served.add(upstream.endpoint);
        this.inputs.serveUpstream(upstream.endpoint);
      }
      if (task) return await this.#callTask(record, upstream, call, task);
      const result = await this.#callWithInput(record, upstream, call);
      this.#end(record, isInputRequired(result) ? 'input-required' : 'completed');
      return resultForHost(result, ctx.revision, ctx.method, this.#cacheHints);
    } catch (error) {
      const e = error instanceof Error ? error : new Error(String(error));
      // UPSTREAM_CLOSED fails this call only; whether the whole upstream is gone is the link's business
      // (it watches the connection itself), since over HTTP one broken exchange leaves the rest working.
      if (e instanceof InflightError && (e.code === 'UPSTREAM_CLOSED' || e.code === 'UPSTREAM_UNAVAILABLE'))
        this.#end(record, 'upstream-closed', e);
      else if (e instanceof InflightError) this.#end(record, 'cancelled', e);
      else this.#end(record, 'error', e);
      // Thrown on: the host endpoint answers with e.toJsonRpc() (data.cause names the cause) or the
      // upstream's own JSON-RPC error, unchanged; after a host cancel nothing is sent [CN9].
      throw e;
    } finally {
      // The upstream call may outlive this host request (parked for a 2026-07-28 host's input), so its
      // deadline is then the flow's to dispose, not this request's.
      if (!record.flow) call.dispose();
    }
  }

  /** A task-augmented call, relayed as one request; its task lives on in the task table. */
  async #callTask(
    record: RelayedCall,
    upstream: UpstreamConnection,
    call: DeadlineController,
    task: TaskLeg,
  ): Promise<unknown> {
    const { ctx } = record;
    const send = this.#sender(record.endpoint);
    const result = await send(() =>
      upstream.request(ctx.method, task.params(relayedParams(record.params)), {
        onprogress: (p) => {
          record.progressIn++;
          if (ctx.progress(p.progress, p.total, p.message)) record.progressOut++;
        },
        parent: call,
        idleMs: this.idleMs,
        ceilingMs: Number.POSITIVE_INFINITY,
        taskRoute: task.taskRoute,
      }),
    );
    // Only a task claimed in a shared directory waits (the claim goes before the answer); a task the
    // directory refused ends the call as an error, not as completed.
    const shaped = task.result(result);
    const answer = shaped instanceof Promise ? await shaped : shaped;
    this.#end(record, 'completed');
    return resultForHost(answer, ctx.revision, ctx.method, this.#cacheHints);
  }

  /**
   * A call that may need input on the way: a new upstream call driven by an input flow, or, for a retry
   * carrying a requestState from the proxy (its upstream is legacy), the parked call it resumes.
   */
  #callWithInput(
    record: RelayedCall,
    upstream: UpstreamConnection,
    call: DeadlineController,
  ): Promise<unknown> {
    const { ctx } = record;
    const legacyUpstream = upstream.revision === undefined || isLegacy(upstream.revision);
    if (legacyUpstream && typeof record.params?.requestState === 'string') {
      call.dispose();
      return this.inputs.claim(record.host, ctx).then((flow) => {
        record.flow = flow;
        return flow.drive(record);
      });
    }
    const send = this.#sender(record.endpoint);
    const flow = this.inputs.open(call, record, this.idleMs);
    record.flow = flow;
    flow.start(upstream.revision, (p) =>
      send(() =>
        upstream.request(ctx.method, relayedParams(p), {
          onprogress: (p) => {
            flow.touch();
            const current = flow.round;
            if (!current) return; // parked: that host request is over, and nothing follows a result
            record.progressIn++;
            if (current.ctx.progress(p.progress, p.total, p.message)) record.progressOut++;
          },
          // When `call` ends (host cancel, host gone, shutdown, ceiling, the flow's idle window) the
          // upstream endpoint cancels on its own leg's terms (notification, or closing that stream) with
          // a reason naming the cause [CN25 CN24 TO5].
          parent: call,
          idleMs: Number.POSITIVE_INFINITY,
          ceilingMs: Number.POSITIVE_INFINITY,
        }),
      ),
    );
    return flow.drive(record);
  }

  /** The call is over for its host: out of the table, counted, reported (once). */
  #end(record: RelayedCall, outcome: CallOutcome, error?: InflightError | Error): void {
    if (!this.#calls.delete(record.key)) return;
    if (this.#calls.size === 0) for (const resolve of this.#waitingForIdle.splice(0)) resolve();
    const event = record.endEvent(outcome, error, this.#clock.now(), this.#logArguments);
    countCall(this.stats, event);
    this.#onEvent(event);
  }
}

/** Sends with the host's passed headers (`--pass-header`), or as it is. */
const direct = <T>(send: () => T): T => send();
