import type { InputResponses } from '@mcp-inflight/core/adapter';
import { isTerminalStatus } from '@mcp-inflight/core/adapter';
import type { TaskChange, TaskOutcome, TaskRecord } from './task-store.js';

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
