import type { Endpoint, ProgressRelay } from '@mcp-inflight/core';
import { systemClock } from '@mcp-inflight/core';
import { TimerQueue } from '@mcp-inflight/core/adapter';

/**
 * The method that asks a process for its tables and timers (see README, "Stats"). Its params are
 * `{ gc?: boolean }`: with `gc: true` and the process started with `--expose-gc`, the heap is collected
 * first, so `heapUsedBytes` is what is really retained.
 *
 * @example
 * ```ts
 * import { STATS_METHOD } from '@mcp-inflight/server/stats';
 * STATS_METHOD; // 'inflight/stats'
 * ```
 */
export const STATS_METHOD = 'inflight/stats';

/**
 * The endpoints of one process that are still open: a stdio pipe, each legacy HTTP session, each 2026-07-28
 * request in flight. Closed ones are swept out whenever the set doubles, so the table stays as large as
 * what is live (plus at most as much again), however many endpoints come and go [rule 8].
 *
 * @example
 * ```ts
 * import { LiveEndpoints } from '@mcp-inflight/server/stats';
 * declare const endpoint: import('@mcp-inflight/core').Endpoint;
 * const live = new LiveEndpoints();
 * live.add(endpoint);
 * live.list().length; // 1 while it is open, 0 once it has closed
 * ```
 */
export class LiveEndpoints {
  readonly #set = new Set<Endpoint>();
  #sweepAt = 64;

  /** Adds an open endpoint; it leaves the set by itself once it closes. */
  add(endpoint: Endpoint): void {
    this.#set.add(endpoint);
    if (this.#set.size < this.#sweepAt) return;
    this.#sweep();
    this.#sweepAt = Math.max(64, 2 * this.#set.size);
  }

  /** The open endpoints now. */
  list(): Endpoint[] {
    this.#sweep();
    return [...this.#set];
  }

  #sweep(): void {
    for (const endpoint of this.#set) if (endpoint.closed) this.#set.delete(endpoint);
  }
}

/** The request tables of a set of endpoints, summed. *
 * @example
 * ```ts
 * import type { Endpoint } from '@mcp-inflight/core';
 * import { type EndpointTables, tablesOf } from '@mcp-inflight/server/stats';
 * declare const endpoints: Endpoint[];
 * const tables: EndpointTables = tablesOf(endpoints);
 * ```
 */
export interface EndpointTables {
  /** Open endpoints. */
  endpoints: number;
  /** Requests the peers sent us that have not settled. */
  inboundInFlight: number;
  /** Requests we sent that have not settled. */
  outboundInFlight: number;
  /** Progress tokens held by outbound requests. */
  outboundTokens: number;
  /** Open progress routes (each relay counted once, however many endpoints share it). */
  progressRoutes: number;
}

/**
 * Sums the tables of `endpoints`. `self` is the endpoint serving the stats request: that request is left
 * out (it is in flight while it answers, with a route when it carried a progress token).
 *
 * @example
 * ```ts
 * import { tablesOf } from '@mcp-inflight/server/stats';
 * tablesOf([]); // { endpoints: 0, inboundInFlight: 0, outboundInFlight: 0, outboundTokens: 0, progressRoutes: 0 }
 * ```
 */
export function tablesOf(
  endpoints: readonly Endpoint[],
  self?: { endpoint: Endpoint; hasRoute: boolean },
): EndpointTables {
  const tables: EndpointTables = {
    endpoints: endpoints.length,
    inboundInFlight: 0,
    outboundInFlight: 0,
    outboundTokens: 0,
    progressRoutes: 0,
  };
  const relays = new Set<ProgressRelay>();
  for (const endpoint of endpoints) {
    const stats = endpoint.stats;
    tables.inboundInFlight += stats.inboundInFlight;
    tables.outboundInFlight += stats.outboundInFlight;
    tables.outboundTokens += stats.outboundTokens;
    relays.add(endpoint.progressRelay);
  }
  for (const relay of relays) tables.progressRoutes += relay.stats.openRoutes;
  if (self && endpoints.includes(self.endpoint)) {
    tables.inboundInFlight--;
    if (self.hasRoute) tables.progressRoutes--;
  }
  return tables;
}

/** The part of Node's `process` these stats read; core imports no `node:*` module. */
interface NodeLike {
  pid: number;
  memoryUsage(): { heapUsed: number };
  getActiveResourcesInfo(): string[];
}

const NO_PROCESS: NodeLike = {
  pid: 0,
  memoryUsage: () => ({ heapUsed: 0 }),
  getActiveResourcesInfo: () => [],
};

/** What every process reports about itself. *
 * @example
 * ```ts
 * import { type ProcessStats, processStats } from '@mcp-inflight/server/stats';
 * const stats: ProcessStats = processStats(false);
 * console.log(stats.heapUsedBytes);
 * ```
 */
export interface ProcessStats {
  /** The process id (0 outside Node). */
  pid: number;
  /** Whether a full collection ran before measuring (asked with `gc: true`, and `--expose-gc` given). */
  gc: boolean;
  /** V8 heap in use, in bytes (after the collection, when one ran). */
  heapUsedBytes: number;
  /** With `gc`: the heap in use just before the collection, so the garbage it freed shows. */
  heapBeforeGcBytes?: number;
  /** Timers: core's queue and Node's own. */
  timers: {
    /** Logical timers (deadlines, progress flushes) waiting in core's queue on the system clock. */
    queued: number;
    /** Whether that queue's one clock timer is armed. */
    armed: boolean;
    /** Node timers that keep the process alive (`Timeout` in `process.getActiveResourcesInfo()`). */
    nodeTimeouts: number;
  };
}

/**
 * The process's heap and timers, after a full collection when `gc` is asked for and available.
 *
 * @example
 * ```ts
 * import { processStats } from '@mcp-inflight/server/stats';
 * processStats(false).timers.queued; // 0 when nothing has a deadline
 * ```
 */
export function processStats(gc: boolean): ProcessStats {
  // Core is platform-neutral: outside Node (no `process`) the heap and Node timers read as 0.
  const process = (globalThis as { process?: NodeLike }).process ?? NO_PROCESS;
  const collect = (globalThis as { gc?: () => void }).gc;
  const collected = gc && typeof collect === 'function';
  const before = collected ? process.memoryUsage().heapUsed : undefined;
  if (collected) {
    // Twice: the first pass can leave objects that only become garbage when finalizers of the first have run.
    collect();
    collect();
  }
  const queue = TimerQueue.for(systemClock);
  return {
    pid: process.pid,
    gc: collected,
    heapUsedBytes: process.memoryUsage().heapUsed,
    ...(before === undefined ? {} : { heapBeforeGcBytes: before }),
    timers: {
      queued: queue.size,
      armed: queue.armed,
      nodeTimeouts: process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length,
    },
  };
}

/**
 * Whether the stats request asked for a collection first.
 *
 * @example
 * ```ts
 * import { wantsGc } from '@mcp-inflight/server/stats';
 * wantsGc({ gc: true }); // true
 * ```
 */
export function wantsGc(params: Record<string, unknown> | undefined): boolean {
  return params?.['gc'] === true;
}

/**
 * Answers {@link STATS_METHOD} on `endpoint`: the process (heap, timers), the tables of every open
 * endpoint in `live` (this request left out), and whatever `more` adds (the transport's own tables).
 * The request answers at once, so its own deadline is released first: the timers it reports are
 * everything else's.
 *
 * @example
 * ```ts
 * import { LiveEndpoints, serveStats } from '@mcp-inflight/server/stats';
 * declare const endpoint: import('@mcp-inflight/core').Endpoint;
 * const live = new LiveEndpoints();
 * live.add(endpoint);
 * serveStats(endpoint, live, () => ({ transport: 'stdio' }));
 * ```
 */
export function serveStats(
  endpoint: Endpoint,
  live: LiveEndpoints,
  more: (params: Record<string, unknown> | undefined) => unknown,
): void {
  // Stats answer while callers' work fills every slot [rule 14].
  const options = { bypassesAdmission: true };
  endpoint.setRequestHandler(
    STATS_METHOD,
    async (params, ctx) => {
      ctx.deadline.dispose();
      const self = { endpoint, hasRoute: ctx.progressToken !== undefined };
      const own = { ...processStats(wantsGc(params)), tables: tablesOf(live.list(), self) };
      const extra = await more(params);
      return typeof extra === 'object' && extra !== null ? { ...own, ...extra } : own;
    },
    options,
  );
}
