// A 2025-11-25 host's task on a 2026-07-28 upstream: the proxy speaks each leg's shape. The upstream's
// task (`ttlMs`, `pollIntervalMs`, the outcome inline in `tasks/get`) is shown to the host as a
// 2025-11-25 task (`ttl`, `pollInterval`, the outcome through a blocking `tasks/result`).

import { checkInputRequired, type InputRequest } from '@mcp-inflight/client/input';
import {
  type Clock,
  type Endpoint,
  JsonRpcError,
  JsonRpcErrorCode,
  type RequestContext,
} from '@mcp-inflight/core';
import {
  isTerminalStatus,
  pause,
  RELATED_TASK_META_KEY,
  type TaskStatus,
  withTasksExtension,
} from '@mcp-inflight/core/adapter';
import type { UpstreamConnection } from './upstream-link.js';

/** A bridged task's outcome, once the upstream showed it (or the host cancelled it). */
export interface BridgedOutcome {
  status: TaskStatus;
  statusMessage?: string;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

/**
 * The upstream's 2026-07-28 task as a 2025-11-25 host sees it, under the host's task id. A tool result
 * with `isError` is `completed` on 2026-07-28 and `failed` on 2025-11-25 [T21 T22].
 */
export function legacyView(task: Record<string, unknown>, hostTaskId: string): Record<string, unknown> {
  let status = task.status as TaskStatus;
  if (status === 'completed' && (task.result as { isError?: unknown } | undefined)?.isError === true)
    status = 'failed';
  const view: Record<string, unknown> = {
    taskId: hostTaskId,
    status,
    createdAt: task.createdAt,
    lastUpdatedAt: task.lastUpdatedAt ?? task.createdAt,
    ttl: task.ttlMs ?? null,
  };
  if (typeof task.pollIntervalMs === 'number') view.pollInterval = task.pollIntervalMs;
  if (typeof task.statusMessage === 'string') view.statusMessage = task.statusMessage;
  return view;
}

/** The outcome a terminal 2026-07-28 task carries inline, if it is terminal. */
export function outcomeOf(task: Record<string, unknown>): BridgedOutcome | undefined {
  const status = task.status as TaskStatus;
  if (!isTerminalStatus(status)) return undefined;
  const outcome: BridgedOutcome = { status };
  if (typeof task.statusMessage === 'string') outcome.statusMessage = task.statusMessage;
  if (status === 'completed') outcome.result = task.result;
  if (status === 'failed')
    outcome.error = (task.error as BridgedOutcome['error']) ?? { code: -32603, message: 'the task failed' };
  return outcome;
}

/** What a 2025-11-25 `tasks/result` answers for an outcome: the result, or the same JSON-RPC error. */
export function resultFor(outcome: BridgedOutcome, hostTaskId: string): Record<string, unknown> {
  if (outcome.error) throw new JsonRpcError(outcome.error.code, outcome.error.message, outcome.error.data);
  if (outcome.status === 'cancelled')
    throw new JsonRpcError(-32800, 'the task was cancelled', { cause: 'CANCELLED' });
  const result = (outcome.result ?? {}) as Record<string, unknown>;
  const meta = (result._meta ?? {}) as Record<string, unknown>;
  return { ...result, _meta: { ...meta, [RELATED_TASK_META_KEY]: { taskId: hostTaskId } } };
}

/**
 * A bridged task waiting for input (2026-07-28 `input_required` with `inputRequests`): a 2025-11-25 host
 * has no `tasks/update`, so each request not yet answered goes to the host as a request of its own
 * (`ask`), the way a 2025-11-25 receiver asks during `tasks/result` [T37], and the answers go upstream
 * with `tasks/update` (`update`) [T32], each key once [T33]. A malformed request is -32603.
 */
export async function answerForLegacyHost(
  task: Record<string, unknown>,
  answered: Set<string>,
  ask: (request: InputRequest) => Promise<unknown>,
  update: (inputResponses: Record<string, unknown>) => Promise<unknown>,
): Promise<void> {
  if (task.status !== 'input_required') return;
  const asked = checkInputRequired('tools/call', {
    resultType: 'input_required',
    inputRequests: task.inputRequests,
  });
  const inputResponses: Record<string, unknown> = {};
  for (const [key, request] of Object.entries(asked.inputRequests ?? {})) {
    if (answered.has(key)) continue;
    inputResponses[key] = await ask(request);
    answered.add(key);
  }
  if (Object.keys(inputResponses).length > 0) await update(inputResponses);
}

/**
 * 2025-11-25 `tasks/result` blocks until the task is terminal [T23]; the 2026-07-28 upstream has no such
 * method, so the proxy polls `tasks/get` at the upstream's interval until the outcome shows, the host
 * gives up (`signal`), or `known()` has one (a cancel). `onTask` sees each state that is not terminal
 * (where input is answered).
 */
export async function pollUntilTerminal(
  get: () => Promise<Record<string, unknown>>,
  known: () => BridgedOutcome | undefined,
  clock: Clock,
  signal: AbortSignal,
  onTask: (task: Record<string, unknown>) => Promise<void>,
): Promise<BridgedOutcome> {
  for (;;) {
    const already = known();
    if (already) return already;
    const task = await get();
    const outcome = known() ?? outcomeOf(task);
    if (outcome) return outcome;
    await onTask(task);
    if (known()) continue; // answering ended it (the host could not answer)
    const waitMs = typeof task.pollIntervalMs === 'number' ? task.pollIntervalMs : 1_000;
    await pause(waitMs, signal, clock);
  }
}

/** A terminal task may not be cancelled on 2025-11-25 [T3]. */
export function refuseTerminalCancel(outcome: BridgedOutcome): never {
  throw new JsonRpcError(
    JsonRpcErrorCode.InvalidParams,
    `Cannot cancel task: already in terminal status '${outcome.status}'`,
  );
}

/** A 2026-07-28 result without its `resultType`, for a legacy host. */
export function stripResultType(result: unknown): unknown {
  if (typeof result !== 'object' || result === null || Array.isArray(result)) return result;
  const { resultType: _type, ...rest } = result as Record<string, unknown>;
  return rest;
}

/** A bridged task as the task table keeps it: what a bridged `tasks/*` request reads and updates. */
export interface BridgedTask {
  /** The id the 2025-11-25 host sees. */
  readonly hostTaskId: string;
  /** The upstream's id; `undefined` when the upstream answered at once (the outcome is `final`). */
  readonly upstreamTaskId: string | undefined;
  /** The outcome once known (seen upstream, or the host cancelled it). */
  final: BridgedOutcome | undefined;
  /** The host, asked for input on its `tasks/result`. */
  readonly host: Endpoint;
  readonly upstream: UpstreamConnection;
  /** The input request keys its host has answered. */
  answered?: Set<string>;
}

/** What a bridged `tasks/*` request needs beside its task: the clock it polls on, how to cancel upstream. */
export interface BridgeContext {
  readonly clock: Clock;
  readonly cancelUpstream: (upstream: UpstreamConnection, taskId: string) => void;
}

/** A bridged task's `tasks/*` for its 2025-11-25 host, asked of the 2026-07-28 upstream. */
export async function bridgeTaskRequest(
  method: string,
  entry: BridgedTask,
  ctx: RequestContext,
  bridge: BridgeContext,
): Promise<unknown> {
  const upstreamId = entry.upstreamTaskId;
  switch (method) {
    case 'tasks/get':
      return legacyView(knownTask(entry) ?? (await getUpstreamTask(entry, ctx)), entry.hostTaskId);
    case 'tasks/result': {
      const outcome = await pollUntilTerminal(
        () => getUpstreamTask(entry, ctx),
        () => entry.final,
        bridge.clock,
        ctx.signal,
        (task) => answerOnResult(entry, ctx, bridge, task),
      );
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
      return legacyView({ ...(knownTask(entry) ?? {}), createdAt: undefined }, entry.hostTaskId);
    }
    default:
      throw new JsonRpcError(JsonRpcErrorCode.MethodNotFound, `Method not found: ${method}`);
  }
}

/** The upstream task's state now (`tasks/get`); its outcome is kept once terminal. */
async function getUpstreamTask(entry: BridgedTask, ctx: RequestContext): Promise<Record<string, unknown>> {
  const upstreamId = entry.upstreamTaskId;
  if (upstreamId === undefined) throw new JsonRpcError(JsonRpcErrorCode.InternalError, 'no upstream task');
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
}

/** The task as last known here, once its outcome is. */
function knownTask(entry: BridgedTask): Record<string, unknown> | undefined {
  return (
    entry.final && {
      status: entry.final.status,
      statusMessage: entry.final.statusMessage,
      result: entry.final.result,
      createdAt: undefined,
    }
  );
}

/**
 * A task waiting for input, met while the host blocks in `tasks/result`: its requests go to the host on
 * that request's stream (HTTP), marked as the task's [T5], and the answers upstream. A host that cannot
 * answer fails the task on both legs.
 */
function answerOnResult(
  entry: BridgedTask,
  ctx: RequestContext,
  bridge: BridgeContext,
  task: Record<string, unknown>,
): Promise<void> {
  const upstreamId = entry.upstreamTaskId;
  entry.answered ??= new Set();
  const ask = (request: InputRequest): Promise<unknown> =>
    entry.host.request(
      request.method,
      { ...request.params, _meta: { [RELATED_TASK_META_KEY]: { taskId: entry.hostTaskId } } },
      { related: ctx.id, signal: ctx.signal, idleMs: Number.POSITIVE_INFINITY },
    );
  const update = (inputResponses: Record<string, unknown>): Promise<unknown> =>
    entry.upstream.request(
      'tasks/update',
      withTasksExtension({ taskId: upstreamId, inputResponses }, entry.upstream.endpoint.clientCapabilities),
      { signal: ctx.signal, progress: false },
    );
  return answerForLegacyHost(task, entry.answered, ask, update).catch((error: unknown) => {
    if (ctx.signal.aborted) throw error;
    // The host could not answer: the task cannot go on; both legs see it fail.
    if (upstreamId !== undefined) bridge.cancelUpstream(entry.upstream, upstreamId);
    const wire = error instanceof JsonRpcError ? error : new JsonRpcError(-32603, String(error));
    entry.final = { status: 'failed', error: { code: wire.code, message: wire.message } };
  });
}
