import {
  type Clock,
  type Endpoint,
  JsonRpcError,
  JsonRpcErrorCode,
  type RequestContext,
  systemClock,
  type TimerHandle,
} from '@mcp-inflight/core';
import {
  declaresTasksExtension,
  isLegacy,
  isTerminalStatus,
  RELATED_TASK_META_KEY,
  TASKS_EXTENSION,
  taskStateOf,
  withTasksExtension,
} from '@mcp-inflight/core/adapter';
import type { PassHeaders } from './pass-headers.js';
import {
  type BridgeContext,
  type BridgedOutcome,
  bridgeTaskRequest,
  legacyView,
  stripResultType,
} from './task-bridge.js';
import type { StoreHealth, TaskDirectory, TaskTableOptions } from './task-directory.js';
import { type TaskLeg, type TaskShape, taskShapeOf, upstreamTaskOf, upstreamTaskParams } from './task-leg.js';
import type { UpstreamConnection } from './upstream-link.js';

/** One upstream task as one host knows it. */
interface RelayedTask {
  /** The id the host sees: minted here, random, so no host can guess another's. */
  readonly hostTaskId: string;
  /** The upstream's id; `undefined` when a bridged upstream answered at once (the outcome is `final`). */
  readonly upstreamTaskId: string | undefined;
  /** A 2025-11-25 host on a 2026-07-28 upstream: each leg sees its own shape (task-bridge.ts). */
  readonly bridged: boolean;
  /** A bridged task's outcome once known. */
  final: BridgedOutcome | undefined;
  /** A legacy host's session (rule 9); `undefined` for a 2026-07-28 host, whose requests carry no session. */
  readonly owner: Endpoint | undefined;
  /** Where the task's status notifications go (a legacy host). */
  readonly host: Endpoint;
  readonly upstream: UpstreamConnection;
  /** The upstream leg's progress route, held past the CreateTaskResult [PG14]. */
  release: () => void;
  /** The host leg's progress route, open past the CreateTaskResult [PG14]. */
  readonly endProgress: () => void;
  ended: boolean;
  timer: TimerHandle | undefined;
  /** A bridged task's input request keys its host has answered. */
  answered?: Set<string>;
}

/**
 * The proxy's task table: relays task-augmented calls (2025-11-25 `params.task`, the 2026-07-28 tasks
 * extension) from each host to the one upstream, and `tasks/get`, `tasks/result`, `tasks/cancel`,
 * `tasks/list` (2025-11-25), `tasks/update` (2026-07-28) back. Each upstream task gets a host-facing id
 * minted here, bound to the host's session, so a host can see, list and cancel only its own (rule 9, [T27]);
 * status notifications go to the owning host only. Upstream progress keeps flowing to the host's token
 * until the task is terminal [PG14 PG15]. An entry is dropped when the task's TTL passes (capped by
 * `maxTtlMs`), and the table holds at most `maxTasks`, so it cannot grow for ever (rule 8).
 */
export class TaskTable {
  readonly #clock: Clock;
  readonly #defaultTtlMs: number;
  readonly #maxTtlMs: number;
  readonly #maxTasks: number;
  readonly #byHostId = new Map<string, RelayedTask>();
  readonly #byUpstreamId = new Map<string, RelayedTask>();
  readonly #watched = new WeakSet<Endpoint>();
  readonly #directory: TaskDirectory | undefined;
  readonly #bridgeContext: BridgeContext;
  readonly #passHeaders: PassHeaders | undefined;

  /** `passHeaders`: every upstream request a host's task request causes carries that host's headers. */
  constructor(options: TaskTableOptions = {}, passHeaders?: PassHeaders) {
    this.#passHeaders = passHeaders;
    this.#clock = options.clock ?? systemClock;
    this.#defaultTtlMs = options.defaultTtlMs ?? 60_000;
    this.#maxTtlMs = options.maxTtlMs ?? 3_600_000;
    this.#maxTasks = options.maxTasks ?? 1_000;
    this.#directory = options.directory;
    this.#bridgeContext = {
      clock: this.#clock,
      cancelUpstream: (upstream, taskId) => void this.#cancelUpstream(upstream, taskId, true),
    };
    // Another instance's host asking about a task relayed here: answered as for a host of ours (a
    // 2026-07-28 task belongs to no session, so any host that knows the id may ask [rule 15]).
    this.#directory?.serve(async (method, params, headers) => {
      const id = params.taskId;
      const entry = typeof id === 'string' ? this.#byHostId.get(id) : undefined;
      if (!entry || entry.owner !== undefined || entry.bridged)
        throw new JsonRpcError(JsonRpcErrorCode.InvalidParams, 'Failed to retrieve task: Task not found');
      // The asking host's headers, sent upstream as its own proxy would have sent them (`--pass-header`).
      const relay = () => this.#relayEntry(entry, method, params, new AbortController().signal, true);
      return this.#passHeaders ? this.#passHeaders.sendWith(headers ?? {}, relay) : relay();
    });
  }

  /** Tasks mapped now. */
  get size(): number {
    return this.#byHostId.size;
  }

  /** The shared directory's link to its store (`undefined` without a directory, or one that says nothing). */
  get store(): StoreHealth | undefined {
    return this.#directory?.health;
  }

  /** Sends upstream on behalf of `host`: with its passed headers (`--pass-header`), or as it is. */
  #send<T>(host: Endpoint, send: () => T): T {
    return this.#passHeaders ? this.#passHeaders.send(host, send) : send();
  }

  /**
   * The task leg for a host's `tools/call`, when both legs speak tasks (see `taskShapeOf`, task-leg.ts);
   * `undefined` relays it plainly. A full table refuses it (-32010) before anything reaches the upstream.
   */
  legFor(
    host: Endpoint,
    params: Record<string, unknown> | undefined,
    ctx: RequestContext,
    upstream: UpstreamConnection | undefined,
  ): TaskLeg | undefined {
    const shape = upstream && taskShapeOf(params, ctx, upstream);
    if (!upstream || shape === undefined) return undefined;
    if (this.#byHostId.size >= this.#maxTasks)
      throw new JsonRpcError(JsonRpcErrorCode.Overloaded, 'the proxy holds too many tasks; retry later');
    let release: () => void = noop;
    return {
      params: (relayed) => upstreamTaskParams(shape, relayed, params, upstream),
      taskRoute: {
        onCreated: (stop) => {
          release = stop;
        },
        // The host's call ended first, but the upstream made the task anyway: nobody can reach it, end it.
        onLateResult: (result) => {
          const id = upstreamTaskOf(result, shape)?.taskId;
          if (id) void this.#send(host, () => this.#cancelUpstream(upstream, id, shape !== 'legacy'));
        },
      },
      result: (result) => this.#created(result, { shape, host, ctx, upstream, release: () => release() }),
    };
  }

  /** The upstream's answer to a task call: a task mapped here (or a bridged host's completed one). */
  #created(result: unknown, made: MadeTask): unknown | Promise<unknown> {
    const { shape, host, upstream } = made;
    const created = upstreamTaskOf(result, shape);
    const upstreamTaskId = created?.taskId;
    if (upstreamTaskId === undefined) made.release();
    // The upstream chose to answer directly: a modern host takes that as is; a bridged host asked for a
    // task and gets one, already completed [T6].
    if (upstreamTaskId === undefined && shape !== 'bridged') return result;
    const entry: RelayedTask = {
      hostTaskId: globalThis.crypto.randomUUID(),
      upstreamTaskId,
      bridged: shape === 'bridged',
      final: undefined,
      owner: shape === 'modern' ? undefined : host,
      host,
      upstream,
      release: made.release,
      endProgress: () => made.ctx.endProgress(),
      ended: false,
      timer: undefined,
    };
    const ttl = created?.ttlMs;
    const keepMs = Math.min(typeof ttl === 'number' && ttl >= 0 ? ttl : this.#defaultTtlMs, this.#maxTtlMs);
    entry.timer = this.#clock.setTimer(() => this.#drop(entry), keepMs);
    this.#byHostId.set(entry.hostTaskId, entry);
    if (upstreamTaskId !== undefined) this.#byUpstreamId.set(upstreamTaskId, entry);
    this.#watch(upstream);
    if (shape === 'bridged') return this.#bridged(entry, result, keepMs);
    const mapped = mapTaskIds(result, upstreamTaskId as string, entry.hostTaskId);
    // Claimed before the CreateTaskResult goes, so any instance finds it; a store that is away keeps the
    // claim for later. A claim refused outright refuses the task: nothing acknowledged is lost (rule 15).
    if (!this.#directory || shape !== 'modern') return mapped;
    return this.#directory.claim(entry.hostTaskId, keepMs).then(
      () => mapped,
      (error: unknown) => {
        this.#drop(entry);
        void this.#send(host, () => this.#cancelUpstream(upstream, upstreamTaskId as string, true));
        throw error instanceof JsonRpcError
          ? error
          : new JsonRpcError(
              JsonRpcErrorCode.InternalError,
              `the task could not be recorded: ${String(error)}`,
            );
      },
    );
  }

  /** A bridged task as its 2025-11-25 host first sees it. */
  #bridged(entry: RelayedTask, result: unknown, keepMs: number): Record<string, unknown> {
    // No progress comes from a 2026-07-28 task [T13]: the host's route ends now.
    this.#end(entry);
    if (entry.upstreamTaskId === undefined) {
      const now = new Date().toISOString();
      entry.final = { status: 'completed', result: stripResultType(result) };
      const task = { status: 'completed', result, createdAt: now, ttlMs: keepMs };
      return { task: legacyView(task, entry.hostTaskId) };
    }
    return { task: legacyView(result as Record<string, unknown>, entry.hostTaskId) };
  }

  /** Serves the `tasks/*` methods on one host endpoint, each for that host's own tasks only. */
  attach(host: Endpoint, upstreamOf: () => UpstreamConnection | undefined): void {
    const relay =
      (method: string) => async (params: Record<string, unknown> | undefined, ctx: RequestContext) => {
        const id = params?.taskId;
        if (
          this.#directory &&
          !isLegacy(ctx.revision) &&
          method !== 'tasks/result' &&
          typeof id === 'string' &&
          !this.#byHostId.has(id) &&
          declaresTasksExtension(ctx.meta)
        ) {
          // Relayed by another instance behind the balancer: it answers, or Redis does once it ended.
          const headers = this.#passHeaders?.headersOf(host);
          const forwarded = await this.#directory.forward(id, method, { ...params, taskId: id }, headers);
          if (forwarded.held) return forwarded.result;
        }
        const entry = this.#find(host, params, ctx);
        // Every upstream request this causes (a bridged task's polls too) carries the host's headers.
        if (entry.bridged) return this.#send(host, () => this.#bridge(method, entry, ctx));
        if (upstreamOf() !== entry.upstream)
          throw new JsonRpcError(
            JsonRpcErrorCode.InvalidParams,
            'Failed to retrieve task: the upstream that held it is gone',
          );
        return this.#send(host, () =>
          this.#relayEntry(entry, method, params, ctx.signal, !isLegacy(ctx.revision)),
        );
      };
    for (const method of ['tasks/get', 'tasks/result', 'tasks/cancel', 'tasks/update'])
      host.setRequestHandler(method, relay(method));
    host.setRequestHandler('tasks/list', async (_params, ctx) => {
      if (!isLegacy(ctx.revision))
        throw new JsonRpcError(JsonRpcErrorCode.MethodNotFound, 'Method not found: tasks/list');
      // The host's own tasks only: asked of the upstream one by one, never the upstream's whole list.
      const mine = [...this.#byHostId.values()].filter((e) => e.owner === host);
      const tasks = await this.#send(host, () =>
        Promise.all(
          mine.map((e) =>
            e.bridged
              ? this.#bridge('tasks/get', e, ctx).catch(() => undefined)
              : e.upstream
                  .request('tasks/get', { taskId: e.upstreamTaskId }, { signal: ctx.signal, progress: false })
                  .then(
                    (t) => mapTaskIds(t, e.upstreamTaskId as string, e.hostTaskId),
                    () => undefined,
                  ),
          ),
        ),
      );
      return { tasks: tasks.filter((t) => t !== undefined) };
    });
  }

  /** One `tasks/*` request for a relayed (not bridged) task, asked of its upstream, ids mapped back. */
  async #relayEntry(
    entry: RelayedTask,
    method: string,
    params: Record<string, unknown> | undefined,
    signal: AbortSignal,
    modern: boolean,
  ): Promise<unknown> {
    const upstreamParams = {
      taskId: entry.upstreamTaskId as string,
      ...(method === 'tasks/update' ? { inputResponses: params?.inputResponses ?? {} } : {}),
    };
    const upstream = entry.upstream;
    if (upstream.endpoint.closed)
      throw new JsonRpcError(
        JsonRpcErrorCode.InvalidParams,
        'Failed to retrieve task: the upstream that held it is gone',
      );
    const result = await upstream.request(
      method,
      modern ? withTasksExtension(upstreamParams, upstream.endpoint.clientCapabilities) : upstreamParams,
      { signal, progress: false },
    );
    const status =
      method === 'tasks/cancel' || method === 'tasks/get' ? taskStateOf(result)?.status : undefined;
    const mapped = mapTaskIds(result, entry.upstreamTaskId as string, entry.hostTaskId);
    if (method === 'tasks/result' || (status !== undefined && isTerminalStatus(status))) {
      this.#end(entry);
      // Kept for every instance: the answer outlives this one.
      if (method === 'tasks/get' && entry.owner === undefined && isObject(mapped))
        void this.#directory?.settle(entry.hostTaskId, mapped).catch(noop);
    }
    return mapped;
  }

  /** A bridged task's `tasks/*` for its 2025-11-25 host (task-bridge.ts). */
  #bridge(method: string, entry: RelayedTask, ctx: RequestContext): Promise<unknown> {
    return bridgeTaskRequest(method, entry, ctx, this.#bridgeContext);
  }

  /** Forgets every task (the proxy is closing); their routes close. */
  clear(): void {
    for (const entry of [...this.#byHostId.values()]) this.#drop(entry);
  }

  #find(host: Endpoint, params: Record<string, unknown> | undefined, ctx: RequestContext): RelayedTask {
    // The same answers as server's own tasks methods give (rule 9: an unknown task and another host's read alike).
    if (!isLegacy(ctx.revision) && !declaresTasksExtension(ctx.meta))
      throw new JsonRpcError(JsonRpcErrorCode.MissingClientCapability, 'Missing required client capability', {
        requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
      });
    const id = params?.taskId;
    const entry = typeof id === 'string' ? this.#byHostId.get(id) : undefined;
    // Another host's task is as unknown as a task that never was (rule 9).
    if (!entry || (entry.owner !== undefined && entry.owner !== host))
      throw new JsonRpcError(JsonRpcErrorCode.InvalidParams, 'Failed to retrieve task: Task not found');
    return entry;
  }

  /** Upstream status notifications reach the owning host, under its task id. */
  #watch(upstream: UpstreamConnection): void {
    if (this.#watched.has(upstream.endpoint)) return;
    this.#watched.add(upstream.endpoint);
    upstream.endpoint.setNotificationHandler('notifications/tasks/status', (params) => {
      const id = params?.taskId;
      const entry = typeof id === 'string' ? this.#byUpstreamId.get(id) : undefined;
      if (!entry || entry.upstream !== upstream || entry.bridged) return;
      const status = taskStateOf(params)?.status;
      if (status !== undefined && isTerminalStatus(status)) this.#end(entry); // progress first, then the status [PG15]
      if (!entry.host.closed)
        entry.host.notify(
          'notifications/tasks/status',
          mapTaskIds(params, id as string, entry.hostTaskId) as Record<string, unknown>,
        );
    });
  }

  /** The task is terminal: both progress routes close; the mapping stays for `tasks/result` until its TTL. */
  #end(entry: RelayedTask): void {
    if (entry.ended) return;
    entry.ended = true;
    entry.release();
    entry.endProgress();
  }

  #drop(entry: RelayedTask): void {
    this.#end(entry);
    entry.timer?.clear();
    entry.timer = undefined;
    this.#byHostId.delete(entry.hostTaskId);
    const upstreamId = entry.upstreamTaskId;
    if (upstreamId !== undefined && this.#byUpstreamId.get(upstreamId) === entry)
      this.#byUpstreamId.delete(upstreamId);
  }

  #cancelUpstream(upstream: UpstreamConnection, taskId: string, modern: boolean): Promise<unknown> {
    const params = modern ? withTasksExtension({ taskId }, upstream.endpoint.clientCapabilities) : { taskId };
    return upstream.request('tasks/cancel', params, { ceilingMs: 5_000, progress: false }).catch(noop);
  }
}

function noop(): void {}

/** What `legFor` knows when the upstream answers a task call. */
interface MadeTask {
  readonly shape: TaskShape;
  readonly host: Endpoint;
  readonly ctx: RequestContext;
  readonly upstream: UpstreamConnection;
  readonly release: () => void;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Replaces the task id wherever the task messages carry it: the task, `task`, `tasks[]`, `_meta`. */
function mapTaskIds(value: unknown, from: string, to: string): unknown {
  if (!isObject(value)) return value;
  const out: Record<string, unknown> = { ...value };
  if (out.taskId === from) out.taskId = to;
  if (isObject(out.task) && out.task.taskId === from) out.task = { ...out.task, taskId: to };
  if (Array.isArray(out.tasks)) out.tasks = out.tasks.map((t) => mapTaskIds(t, from, to));
  const meta = out._meta;
  if (isObject(meta) && isObject(meta[RELATED_TASK_META_KEY]) && meta[RELATED_TASK_META_KEY].taskId === from)
    out._meta = { ...meta, [RELATED_TASK_META_KEY]: { ...meta[RELATED_TASK_META_KEY], taskId: to } };
  return out;
}
