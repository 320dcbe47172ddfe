import type { InputRequests, InputRequiredResult, InputResponses } from '@mcp-inflight/client/input';
import { JsonRpcError, JsonRpcErrorCode } from '@mcp-inflight/core';
import type { ServedTask } from './served-task.js';
import type { SharedTaskStore } from './task-store.js';

/**
 * Puts the task in `input_required` with the work's requests and resolves with the answers once every
 * one has come back through `tasks/update` (on any instance) and the task is `working` again [T31 T34].
 * Keys go out unique over the task's lifetime [T33]: a key the work reuses in a later round goes out
 * with a suffix, and its answer comes back under the work's own key. Rejects when `signal` aborts (a
 * cancel, the TTL), with its reason.
 */
export async function awaitTaskInput(
  served: ServedTask,
  store: SharedTaskStore,
  asked: InputRequiredResult,
  signal: AbortSignal,
): Promise<InputResponses> {
  const outstanding: InputRequests = {};
  const workKeyOf = new Map<string, string>();
  for (const [key, request] of Object.entries(asked.inputRequests ?? {})) {
    let wire = key;
    for (let n = 2; served.sentKeys.has(wire); n++) wire = `${key}~${n}`;
    served.sentKeys.add(wire);
    outstanding[wire] = request;
    workKeyOf.set(wire, key);
  }
  // Only a requestState: the work retries at once, with nothing to ask [MR6].
  if (workKeyOf.size === 0) return {};
  if (signal.aborted) throw signal.reason;
  const answered = new Promise<InputResponses>((resolve, reject) => {
    const onAbort = (): void => {
      served.waiter = undefined;
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    served.waiter = (task) => {
      if (task.status !== 'working' || task.inputRequests !== undefined) return;
      served.waiter = undefined;
      signal.removeEventListener('abort', onAbort);
      const answers: InputResponses = {};
      for (const [key, answer] of Object.entries(task.inputResponses ?? {})) {
        const workKey = workKeyOf.get(key);
        if (workKey !== undefined) answers[workKey] = answer;
      }
      resolve(answers);
    };
  });
  answered.catch(() => {}); // the caller sees the rejection; this only keeps it from looking unhandled
  await store.updateTask(served.taskId, { status: 'input_required', inputRequests: outstanding });
  return answered;
}

/**
 * Takes a `tasks/update`'s `inputResponses` to the store, which keeps the answers to outstanding keys
 * and ignores others (never issued, already answered, or the task is not waiting) [T34]; a partial set
 * keeps the task `input_required` with the rest.
 */
export async function deliverTaskInput(
  store: SharedTaskStore,
  taskId: string,
  inputResponses: unknown,
): Promise<void> {
  if (
    typeof inputResponses !== 'object' ||
    inputResponses === null ||
    Array.isArray(inputResponses) ||
    !Object.values(inputResponses).every((v) => typeof v === 'object' && v !== null && !Array.isArray(v))
  )
    throw new JsonRpcError(JsonRpcErrorCode.InvalidParams, 'inputResponses must map keys to result objects');
  await store.answerTask(taskId, inputResponses as InputResponses);
}
