import type { InputRequests, InputResponses } from '@mcp-inflight/client/input';
import type { JsonRpcErrorObject } from '@mcp-inflight/core/adapter';
import { isTerminalStatus, type TaskStatus } from '@mcp-inflight/core/adapter';

/**
 * One task as a store keeps it: plain data (JSON in, JSON out), so a networked store can hold it. What
 * runs the work (its abort, its listeners) stays with the instance that runs it.
 *
 * @example
 * ```ts
 * import type { TaskRecord } from '@mcp-inflight/server/tasks';
 * const task: TaskRecord = JSON.parse('{"taskId":"t-1","createdAt":"2026-01-01T00:00:00.000Z","ttlMs":60000,"status":"working","lastUpdatedAt":"2026-01-01T00:00:00.000Z"}');
 * ```
 */
export interface TaskRecord {
  /** The unguessable id (a random UUID). */
  readonly taskId: string;
  /** Who may see it (a legacy session's key), or unset for any requestor that knows the id. */
  readonly owner?: string | undefined;
  /** ISO 8601 creation time. */
  readonly createdAt: string;
  /** Granted lifetime in ms from creation. */
  readonly ttlMs: number;
  /** Where it stands. */
  readonly status: TaskStatus;
  /** The latest words about it (a 2026-07-28 task's progress shows here). */
  readonly statusMessage?: string | undefined;
  /** ISO 8601 time of the last change. */
  readonly lastUpdatedAt: string;
  /** The final result, once completed (or failed with a tool error on 2025-11-25). */
  readonly result?: unknown;
  /** The JSON-RPC error the work ended with, if it did. */
  readonly error?: JsonRpcErrorObject | undefined;
  /** 2026-07-28: the requests still unanswered, by the key the client sees, while `input_required`. */
  readonly inputRequests?: InputRequests | undefined;
  /** 2026-07-28: the answers `tasks/update` brought for the current requests, by the client's key. */
  readonly inputResponses?: InputResponses | undefined;
}

/**
 * A change to a task that has not ended, for {@link SharedTaskStore.updateTask}. Setting `inputRequests`
 * starts a new round of input (its answers start empty); setting `status: 'working'` alone ends one.
 *
 * @example
 * ```ts
 * import type { TaskChange } from '@mcp-inflight/server/tasks';
 * const note: TaskChange = { statusMessage: 'step 2 of 5' };
 * ```
 */
export interface TaskChange {
  /** The new status, `working` or `input_required`. */
  readonly status?: 'working' | 'input_required';
  /** New words about the task. */
  readonly statusMessage?: string;
  /** 2026-07-28: what the work now asks for (with `status: 'input_required'`). */
  readonly inputRequests?: InputRequests;
}

/**
 * How a task ended, for {@link SharedTaskStore.finishTask}.
 *
 * @example
 * ```ts
 * import type { TaskOutcome } from '@mcp-inflight/server/tasks';
 * const done: TaskOutcome = { status: 'completed', result: { content: [] } };
 * ```
 */
export interface TaskOutcome {
  /** The terminal status. */
  readonly status: 'completed' | 'failed' | 'cancelled';
  /** The result, if any. */
  readonly result?: unknown;
  /** The JSON-RPC error, if any. */
  readonly error?: JsonRpcErrorObject;
  /** Last words about the task; the previous message stays when unset. */
  readonly statusMessage?: string;
}

/**
 * The steps of a task's record as pure functions, so every {@link SharedTaskStore} applies the same rules
 * (the in-memory one in place, a networked one between a read and a compare-and-set). Each returns the
 * next record, stamped `lastUpdatedAt` from `nowIso`, or `undefined` when nothing changes (the step does
 * not apply, or it would change nothing watchers need to hear of).
 *
 * @example
 * ```ts
 * import { taskSteps, type TaskRecord } from '@mcp-inflight/server/tasks';
 * declare const was: TaskRecord;
 * const next = taskSteps.change(was, { statusMessage: 'step 2 of 5' }, new Date().toISOString());
 * if (next) console.log(next.statusMessage); // store it, then tell the watchers
 * ```
 */
export const taskSteps = {
  /** {@link SharedTaskStore.updateTask}: a change to a task that has not ended. */
  change(was: TaskRecord, change: TaskChange, nowIso: string): TaskRecord | undefined {
    if (isTerminalStatus(was.status)) return undefined;
    if (change.status === undefined && change.inputRequests === undefined) {
      if (change.statusMessage === undefined || change.statusMessage === was.statusMessage) return undefined;
    }
    const next: Record<string, unknown> = { ...was };
    if (change.statusMessage !== undefined) next['statusMessage'] = change.statusMessage;
    if (change.status !== undefined) next['status'] = change.status;
    if (change.inputRequests !== undefined) {
      next['inputRequests'] = structuredClone(change.inputRequests);
      next['inputResponses'] = {};
    } else if (change.status === 'working') {
      delete next['inputRequests'];
      delete next['inputResponses'];
    }
    return { ...(next as unknown as TaskRecord), lastUpdatedAt: nowIso };
  },

  /** {@link SharedTaskStore.answerTask}: answers to outstanding input requests; others are ignored [T34]. */
  answer(was: TaskRecord, inputResponses: InputResponses, nowIso: string): TaskRecord | undefined {
    if (was.status !== 'input_required' || !was.inputRequests) return undefined;
    const outstanding = { ...was.inputRequests };
    const answers = { ...was.inputResponses };
    let answered = false;
    for (const [key, answer] of Object.entries(inputResponses)) {
      if (!(key in outstanding)) continue;
      answers[key] = structuredClone(answer);
      delete outstanding[key];
      answered = true;
    }
    if (!answered) return undefined;
    const { inputRequests: _r, ...rest } = was;
    const next: TaskRecord =
      Object.keys(outstanding).length > 0
        ? { ...was, inputRequests: outstanding, inputResponses: answers }
        : { ...rest, status: 'working', inputResponses: answers };
    return { ...next, lastUpdatedAt: nowIso };
  },

  /** {@link SharedTaskStore.finishTask}: the end of a task that has not ended; the first outcome stands [T4]. */
  finish(was: TaskRecord, outcome: TaskOutcome, nowIso: string): TaskRecord | undefined {
    if (isTerminalStatus(was.status)) return undefined;
    const { inputRequests: _r, inputResponses: _a, ...rest } = was;
    return {
      ...rest,
      status: outcome.status,
      ...(outcome.result === undefined ? {} : { result: structuredClone(outcome.result) }),
      ...(outcome.error === undefined ? {} : { error: structuredClone(outcome.error) }),
      ...(outcome.statusMessage === undefined ? {} : { statusMessage: outcome.statusMessage }),
      lastUpdatedAt: nowIso,
    };
  },

  /** The outcome a store gives a task whose TTL passed before it ended. */
  expired: {
    status: 'failed',
    error: { code: -32603, message: 'the task expired' },
    statusMessage: 'the task expired',
  } satisfies TaskOutcome as TaskOutcome,
} as const;
