import { isTerminalStatus } from '@mcp-inflight/core/adapter';
import type { TaskRecord } from './task-record.js';
import type { SharedTaskStore } from './task-store.js';

/**
 * What the instance that runs a task keeps beside the store's plain record: the work's abort, the keys
 * its input requests went out under, and who waits on its next change. A cancel or an expiry made on any
 * instance reaches the work through the store's watch, as an abort.
 */
export class ServedTask {
  readonly taskId: string;
  /** Stops the work (a cancel, the TTL), with the task's error as the reason. */
  readonly abort = new AbortController();
  /** Every input key the task has sent, for the uniqueness rule [T33]. */
  readonly sentKeys = new Set<string>();
  /** The work waiting on the task's answers, told of each change. */
  waiter: ((task: TaskRecord) => void) | undefined;
  /** The work has produced its outcome: an end seen after it is that outcome, not a cancel. */
  settled = false;
  #unwatch: () => void = () => {};

  constructor(taskId: string) {
    this.taskId = taskId;
  }

  /** Watches the task in `store`; `onChange` sees each change (status notifications). */
  async watch(store: SharedTaskStore, onChange?: (task: TaskRecord) => void): Promise<void> {
    let ended = false;
    const unwatch = await store.watchTask(this.taskId, (task) => {
      onChange?.(task);
      this.waiter?.(task);
      if (!isTerminalStatus(task.status)) return;
      ended = true;
      this.#unwatch();
      if (!this.settled)
        this.abort.abort(new Error(task.error?.message ?? task.statusMessage ?? 'the task ended'));
    });
    this.#unwatch = unwatch;
    if (ended) unwatch();
  }
}
