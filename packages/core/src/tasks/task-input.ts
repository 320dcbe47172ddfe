import { JsonRpcError } from '../endpoint/messages.js';
import { JsonRpcErrorCode } from '../errors/causes.js';
import type { InputRequests, InputRequiredResult, InputResponses } from '../mrtr/types.js';
import type { TaskRecord, TaskStore } from './task-store.js';

/**
 * A 2026-07-28 task waiting for input [T31]: what it asked under which key, and what has come back.
 * Keys go out unique over the task's lifetime [T33]: a key the work reuses in a later round goes out
 * with a suffix, and its answer comes back to the work under the work's own key.
 */
export interface TaskInput {
  /** Outstanding requests by the key the client sees. */
  readonly outstanding: InputRequests;
  /** The work's own key for each key the client sees. */
  readonly workKeyOf: Map<string, string>;
  /** Answers gathered so far, by the work's keys. */
  readonly answers: InputResponses;
  /** Called once every outstanding key has an answer. */
  readonly done: (answers: InputResponses) => void;
}

/** Every key a task has sent, for the uniqueness rule [T33]; dropped with the record. */
const sentKeys = new WeakMap<TaskRecord, Set<string>>();

/**
 * Puts the task in `input_required` with the work's requests and resolves with the answers once every
 * one has come back through `tasks/update`; the status returns to `working` then. Rejects when `signal`
 * aborts (a cancel, the TTL), with its reason.
 */
export function awaitTaskInput(
  record: TaskRecord,
  store: TaskStore,
  asked: InputRequiredResult,
  signal: AbortSignal,
): Promise<InputResponses> {
  const sent = sentKeys.get(record) ?? new Set<string>();
  sentKeys.set(record, sent);
  const outstanding: InputRequests = {};
  const workKeyOf = new Map<string, string>();
  for (const [key, request] of Object.entries(asked.inputRequests ?? {})) {
    let wire = key;
    for (let n = 2; sent.has(wire); n++) wire = `${key}~${n}`;
    sent.add(wire);
    outstanding[wire] = request;
    workKeyOf.set(wire, key);
  }
  // Only a requestState: the work retries at once, with nothing to ask [MR6].
  if (workKeyOf.size === 0) return Promise.resolve({});
  return new Promise<InputResponses>((resolve, reject) => {
    const onAbort = (): void => {
      record.input = undefined;
      reject(signal.reason);
    };
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    record.input = {
      outstanding,
      workKeyOf,
      answers: {},
      done: (answers) => {
        signal.removeEventListener('abort', onAbort);
        resolve(answers);
      },
    };
    store.setStatus(record, 'input_required');
  });
}

/**
 * Takes a `tasks/update`'s `inputResponses`: answers to outstanding keys are kept, others ignored (never
 * issued, already answered, or the task is not waiting) [T34]; once none is outstanding the task goes
 * back to `working` and the work runs again. A partial set keeps it `input_required` with the rest [T34].
 */
export function deliverTaskInput(record: TaskRecord, store: TaskStore, inputResponses: unknown): void {
  if (
    typeof inputResponses !== 'object' ||
    inputResponses === null ||
    Array.isArray(inputResponses) ||
    !Object.values(inputResponses).every((v) => typeof v === 'object' && v !== null && !Array.isArray(v))
  )
    throw new JsonRpcError(JsonRpcErrorCode.InvalidParams, 'inputResponses must map keys to result objects');
  const input = record.input;
  if (!input || record.status !== 'input_required') return;
  let answered = false;
  for (const [key, answer] of Object.entries(inputResponses as InputResponses)) {
    const workKey = input.workKeyOf.get(key);
    if (workKey === undefined || !(key in input.outstanding)) continue;
    input.answers[workKey] = answer;
    delete input.outstanding[key];
    answered = true;
  }
  if (!answered) return;
  if (Object.keys(input.outstanding).length > 0) {
    store.setStatus(record, 'input_required'); // what tasks/get shows changed: fewer keys [T34]
    return;
  }
  record.input = undefined;
  store.setStatus(record, 'working');
  input.done(input.answers);
}
