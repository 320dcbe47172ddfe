// A 2025-11-25 host's task on a 2026-07-28 upstream: the proxy speaks each leg's shape. The upstream's
// task (`ttlMs`, `pollIntervalMs`, the outcome inline in `tasks/get`) is shown to the host as a
// 2025-11-25 task (`ttl`, `pollInterval`, the outcome through a blocking `tasks/result`).
import { type Clock, JsonRpcError, JsonRpcErrorCode } from '@mcp-inflight/core';
import {
  checkInputRequired,
  type InputRequest,
  isTerminalStatus,
  pause,
  RELATED_TASK_META_KEY,
  type TaskStatus,
} from '@mcp-inflight/core/adapter';

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
