import {
  type Clock,
  type Endpoint,
  JsonRpcError,
  JsonRpcErrorCode,
  type RequestContext,
  systemClock,
  type TimerHandle,
} from '@mcp-inflight/core';
import type { InputRequest } from '@mcp-inflight/core/adapter';
import {
  declaresTasksExtension,
  hasTask,
  isLegacy,
  isTerminalStatus,
  RELATED_TASK_META_KEY,
  TASKS_EXTENSION,
  type TaskRouteHooks,
  type TaskStatus,
  withTasksExtension,
} from '@mcp-inflight/core/adapter';
import {
  answerForLegacyHost,
  type BridgedOutcome,
  legacyView,
  outcomeOf,
  pollUntilTerminal,
  refuseTerminalCancel,
  resultFor,
} from './task-bridge.js';
import { isObject, mapTaskIds, stripResultType, ttlOf, upstreamTaskIdOf } from './task-ids.js';
import type { UpstreamConnection } from './upstream-link.js';

/** Options for a {@link TaskRelay}. */
export interface TaskRelayOptions {
  /** @default the system clock */
  clock?: Clock;
  /** How long a task whose upstream named no TTL stays mapped, in ms. @default 60_000 */
  defaultTtlMs?: number;
  /** The longest a task stays mapped, whatever its TTL. @default 3_600_000 */
  maxTtlMs?: number;
  /** The most tasks mapped at once; a host's task request beyond it is refused (-32010). @default 1_000 */
  maxTasks?: number;
  /**
   * Where proxies behind a balancer record which instance relays each 2026-07-28 task, so a task request
   * that lands on another instance is forwarded to it (`RedisTaskDirectory` of `@mcp-inflight/redis`).
   * @default none: a task's requests must reach the instance that relayed it
   */
  directory?: TaskDirectory;
}

/**
 * Which proxy instance relays each task, shared by every instance (see {@link TaskRelayOptions.directory}).
 *
 * @example
 * ```ts
 * import type { TaskDirectory } from '@mcp-inflight/proxy';
 * declare const directory: TaskDirectory;
 * const answer = await directory.forward('task-1', 'tasks/get', { taskId: 'task-1' });
 * if (!answer.held) console.log('no instance holds it');
 * ```
 */
export interface TaskDirectory {
  /** Records that this instance relays `taskId` for `ttlMs`. */
  claim(taskId: string, ttlMs: number): Promise<void>;
  /** Keeps the task's terminal `tasks/get` answer for every instance. */
  settle(taskId: string, answer: Record<string, unknown>): Promise<void>;
  /** Has the instance relaying `taskId` (or what is kept of it) answer `method`. */
  forward(
    taskId: string,
    method: string,
    params: Record<string, unknown>,
  ): Promise<
    | {
        /** No instance holds the task: it never was, or its TTL passed. */
        held: false;
      }
    | {
        /** An instance holds it, or its end was kept. */
        held: true;
        /** The answer, as the holder's host would have had it. */
        result: unknown;
      }
  >;
  /** Answers what other instances forward for the tasks relayed here. */
  serve(answer: (method: string, params: Record<string, unknown>) => Promise<unknown>): void;
}

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

/** What the relay needs to relay one host call as a task (see {@link TaskRelay.legFor}). */
export interface TaskLeg {
  /** The upstream params: the `task` the host asked for, or the extension declared (2026-07-28). */
  params(relayed: Record<string, unknown> | undefined): Record<string, unknown>;
  /** Keeps the upstream progress route past the CreateTaskResult. */
  readonly taskRoute: TaskRouteHooks;
  /** The upstream's answer as the host must see it: a mapped task, or a plain result. */
  result(result: unknown): unknown | Promise<unknown>;
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
export class TaskRelay {
  readonly #clock: Clock;
  readonly #defaultTtlMs: number;
  readonly #maxTtlMs: number;
  readonly #maxTasks: number;
  readonly #byHostId = new Map<string, RelayedTask>();
  readonly #byUpstreamId = new Map<string, RelayedTask>();
  readonly #watched = new WeakSet<Endpoint>();
  readonly #directory: TaskDirectory | undefined;

  constructor(options: TaskRelayOptions = {}) {
    this.#clock = options.clock ?? systemClock;
    this.#defaultTtlMs = options.defaultTtlMs ?? 60_000;
    this.#maxTtlMs = options.maxTtlMs ?? 3_600_000;
    this.#maxTasks = options.maxTasks ?? 1_000;
    this.#directory = options.directory;
    // Another instance's host asking about a task relayed here: answered as for a host of ours (a
    // 2026-07-28 task belongs to no session, so any host that knows the id may ask [rule 15]).
    this.#directory?.serve(async (method, params) => {
      const id = params.taskId;
      const entry = typeof id === 'string' ? this.#byHostId.get(id) : undefined;
      if (!entry || entry.owner !== undefined || entry.bridged)
        throw new JsonRpcError(JsonRpcErrorCode.InvalidParams, 'Failed to retrieve task: Task not found');
      return this.#relayEntry(entry, method, params, new AbortController().signal, true);
    });
  }

  /** Tasks mapped now. */
  get size(): number {
    return this.#byHostId.size;
  }

  /**
   * The task leg for a host's `tools/call`, when both legs speak tasks the same way (a 2025-11-25 host
   * asking with `params.task` of a 2025-11-25 upstream offering `tasks.requests.tools.call`; a 2026-07-28
   * host declaring the extension to a 2026-07-28 upstream declaring it); `undefined` relays it plainly.
   */
  legFor(
    host: Endpoint,
    params: Record<string, unknown> | undefined,
    ctx: RequestContext,
    upstream: UpstreamConnection | undefined,
  ): TaskLeg | undefined {
    if (!upstream) return undefined;
    const caps = upstream.identity.capabilities as Record<string, Record<string, unknown> | undefined>;
    const legacyTask =
      ctx.revision === '2025-11-25' &&
      upstream.revision === '2025-11-25' &&
      hasTask(params) &&
      isObject((caps.tasks?.requests as Record<string, Record<string, unknown>> | undefined)?.tools?.call);
    const modernTask =
      !isLegacy(ctx.revision) &&
      upstream.revision !== undefined &&
      !isLegacy(upstream.revision) &&
      declaresTasksExtension(ctx.meta) &&
      isObject(caps.extensions?.[TASKS_EXTENSION]);
    // A 2025-11-25 host asking a 2026-07-28 upstream: the proxy bridges the two shapes.
    const bridged =
      ctx.revision === '2025-11-25' &&
      hasTask(params) &&
      upstream.revision !== undefined &&
      !isLegacy(upstream.revision) &&
      isObject(caps.extensions?.[TASKS_EXTENSION]);
    if (!legacyTask && !modernTask && !bridged) return undefined;
    if (this.#byHostId.size >= this.#maxTasks)
      throw new JsonRpcError(JsonRpcErrorCode.Overloaded, 'the proxy holds too many tasks; retry later');
    let release: () => void = noop;
    const modern = modernTask || bridged; // the upstream leg's shape
    return {
      params: (relayed) => {
        if (!modern) return { ...relayed, task: params?.task ?? {} };
        const { task: _task, ...rest } = relayed ?? {};
        return withTasksExtension(rest, upstream.endpoint.clientCapabilities);
      },
      taskRoute: {
        onCreated: (stop) => {
          release = stop;
        },
        // The host's call ended first, but the upstream made the task anyway: nobody can reach it, end it.
        onLateResult: (result) => {
          const id = upstreamTaskIdOf(result, modern);
          if (id) void this.#cancelUpstream(upstream, id, modern);
        },
      },
      result: (result) => {
        const upstreamTaskId = upstreamTaskIdOf(result, modern);
        if (upstreamTaskId === undefined) release();
        // The upstream chose to answer directly: a modern host takes that as is; a bridged host asked for a
        // task and gets one, already completed [T6].
        if (upstreamTaskId === undefined && !bridged) return result;
        const entry: RelayedTask = {
          hostTaskId: globalThis.crypto.randomUUID(),
          upstreamTaskId,
          bridged,
          final: undefined,
          owner: modernTask ? undefined : host,
          host,
          upstream,
          release,
          endProgress: () => ctx.endProgress(),
          ended: false,
          timer: undefined,
        };
        const ttl = ttlOf(modern ? result : (result as { task?: unknown }).task, modern);
        const keepMs = Math.min(ttl ?? this.#defaultTtlMs, this.#maxTtlMs);
        entry.timer = this.#clock.setTimer(() => this.#drop(entry), keepMs);
        this.#byHostId.set(entry.hostTaskId, entry);
        if (upstreamTaskId !== undefined) this.#byUpstreamId.set(upstreamTaskId, entry);
        this.#watch(upstream);
        if (!bridged) {
          const mapped = mapTaskIds(result, upstreamTaskId as string, entry.hostTaskId);
          // Claimed before the CreateTaskResult goes, so any instance finds it; a directory that is away
          // leaves the task reachable here only.
          if (!this.#directory || !modernTask) return mapped;
          return this.#directory.claim(entry.hostTaskId, keepMs).then(
            () => mapped,
            () => mapped,
          );
        }
        // No progress comes from a 2026-07-28 task [T13]: the host's route ends now.
        this.#end(entry);
        if (upstreamTaskId === undefined) {
          const now = new Date().toISOString();
          entry.final = { status: 'completed', result: stripResultType(result) };
          const task = { status: 'completed', result, createdAt: now, ttlMs: keepMs };
          return { task: legacyView(task, entry.hostTaskId) };
        }
        return { task: legacyView(result as Record<string, unknown>, entry.hostTaskId) };
      },
    };
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
          const forwarded = await this.#directory.forward(id, method, { ...params, taskId: id });
          if (forwarded.held) return forwarded.result;
        }
        const entry = this.#find(host, params, ctx);
        if (entry.bridged) return this.#bridge(method, entry, ctx);
        if (upstreamOf() !== entry.upstream)
          throw new JsonRpcError(
            JsonRpcErrorCode.InvalidParams,
            'Failed to retrieve task: the upstream that held it is gone',
          );
        return this.#relayEntry(entry, method, params, ctx.signal, !isLegacy(ctx.revision));
      };
    for (const method of ['tasks/get', 'tasks/result', 'tasks/cancel', 'tasks/update'])
      host.setRequestHandler(method, relay(method));
    host.setRequestHandler('tasks/list', async (_params, ctx) => {
      if (!isLegacy(ctx.revision))
        throw new JsonRpcError(JsonRpcErrorCode.MethodNotFound, 'Method not found: tasks/list');
      // The host's own tasks only: asked of the upstream one by one, never the upstream's whole list.
      const mine = [...this.#byHostId.values()].filter((e) => e.owner === host);
      const tasks = await Promise.all(
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
    const status = (
      method === 'tasks/cancel' || method === 'tasks/get'
        ? (result as { status?: unknown })?.status
        : undefined
    ) as TaskStatus | undefined;
    const mapped = mapTaskIds(result, entry.upstreamTaskId as string, entry.hostTaskId);
    if (method === 'tasks/result' || (status !== undefined && isTerminalStatus(status))) {
      this.#end(entry);
      // Kept for every instance: the answer outlives this one.
      if (method === 'tasks/get' && entry.owner === undefined && isObject(mapped))
        void this.#directory?.settle(entry.hostTaskId, mapped).catch(noop);
    }
    return mapped;
  }

  /** A bridged task's `tasks/*` for its 2025-11-25 host, asked of the 2026-07-28 upstream. */
  async #bridge(method: string, entry: RelayedTask, ctx: RequestContext): Promise<unknown> {
    const upstreamId = entry.upstreamTaskId;
    const get = async (): Promise<Record<string, unknown>> => {
      if (upstreamId === undefined)
        throw new JsonRpcError(JsonRpcErrorCode.InternalError, 'no upstream task');
      const task = (await entry.upstream.request(
        'tasks/get',
        withTasksExtension({ taskId: upstreamId }, entry.upstream.endpoint.clientCapabilities),
        {
          signal: ctx.signal,
          progress: false,
        },
      )) as Record<string, unknown>;
      entry.final ??= outcomeOf(task);
      return task;
    };
    const known = (): Record<string, unknown> | undefined =>
      entry.final && {
        status: entry.final.status,
        statusMessage: entry.final.statusMessage,
        result: entry.final.result,
        createdAt: undefined,
      };
    switch (method) {
      case 'tasks/get':
        return legacyView(known() ?? (await get()), entry.hostTaskId);
      case 'tasks/result': {
        entry.answered ??= new Set();
        const answered = entry.answered;
        // Asked on the tasks/result the host is blocked in (its stream, on HTTP), marked as the task's [T5].
        const ask = (request: InputRequest): Promise<unknown> =>
          entry.host.request(
            request.method,
            { ...request.params, _meta: { [RELATED_TASK_META_KEY]: { taskId: entry.hostTaskId } } },
            { related: ctx.id, signal: ctx.signal, idleMs: Number.POSITIVE_INFINITY },
          );
        const update = (inputResponses: Record<string, unknown>): Promise<unknown> =>
          entry.upstream.request(
            'tasks/update',
            withTasksExtension(
              { taskId: upstreamId, inputResponses },
              entry.upstream.endpoint.clientCapabilities,
            ),
            { signal: ctx.signal, progress: false },
          );
        const onTask = (task: Record<string, unknown>): Promise<void> =>
          answerForLegacyHost(task, answered, ask, update).catch((error: unknown) => {
            if (ctx.signal.aborted) throw error;
            // The host could not answer: the task cannot go on; both legs see it fail.
            if (upstreamId !== undefined) void this.#cancelUpstream(entry.upstream, upstreamId, true);
            const wire = error instanceof JsonRpcError ? error : new JsonRpcError(-32603, String(error));
            entry.final = { status: 'failed', error: { code: wire.code, message: wire.message } };
          });
        const outcome = await pollUntilTerminal(get, () => entry.final, this.#clock, ctx.signal, onTask);
        return resultFor(outcome, entry.hostTaskId);
      }
      case 'tasks/cancel': {
        if (entry.final) refuseTerminalCancel(entry.final);
        await entry.upstream.request(
          'tasks/cancel',
          withTasksExtension({ taskId: upstreamId }, entry.upstream.endpoint.clientCapabilities),
          {
            signal: ctx.signal,
            progress: false,
          },
        );
        // 2025-11-25 wants the task cancelled in the answer [T2]; the upstream's cancel is cooperative [T12],
        // so from here on this host sees it cancelled, whatever the upstream still does.
        entry.final = { status: 'cancelled', statusMessage: 'The task was cancelled by request.' };
        return legacyView({ ...(known() ?? {}), createdAt: undefined }, entry.hostTaskId);
      }
      default:
        throw new JsonRpcError(JsonRpcErrorCode.MethodNotFound, `Method not found: ${method}`);
    }
  }

  /** Forgets every task (the proxy is closing); their routes close. */
  clear(): void {
    for (const entry of [...this.#byHostId.values()]) this.#drop(entry);
  }

  #find(host: Endpoint, params: Record<string, unknown> | undefined, ctx: RequestContext): RelayedTask {
    if (!isLegacy(ctx.revision) && !declaresTasksExtension(ctx.meta))
      throw new JsonRpcError(-32021, 'Missing required client capability', {
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
      const status = params?.status as TaskStatus;
      if (isTerminalStatus(status)) this.#end(entry); // progress first, then the status [PG15]
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
