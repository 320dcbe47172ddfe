// What one instance watches: a channel per watched task, a TTL timer per task, and catching up after a
// reconnect of the subscriber.
import type { Clock, TimerHandle } from '@mcp-inflight/core';
import { isTerminalStatus } from '@mcp-inflight/core/adapter';
import { type TaskRecord, taskSteps } from '@mcp-inflight/server/tasks';
import { guard, noop, type RedisClient } from './connection.js';
import type { StoredTasks } from './stored-tasks.js';

interface Watch {
  callbacks: Set<(task: TaskRecord) => void>;
  version: number;
  expiry: TimerHandle | undefined;
}

/** What {@link TaskWatches} works with: its store's tasks, subscriber connection and clocks. */
export interface TaskWatchesOptions {
  tasks: StoredTasks;
  subscriber: RedisClient;
  /** The clock TTL timers run on. */
  clock: Clock;
  /** Wall-clock time in ms since the epoch, as the store reads expiries. */
  now: () => number;
}

/**
 * The watchers of tasks on this instance, one subscription per watched task: each change published by
 * any instance reaches them once, in version order; the TTL is kept on this instance's clock, and a task
 * that ends (or expires) drops its watchers, as it never changes again [T4].
 */
export class TaskWatches {
  /** Steps started by timers (an expiry), which the store's `sync` and `close` wait for. */
  readonly pending = new Set<Promise<unknown>>();
  readonly #options: TaskWatchesOptions;
  readonly #watches = new Map<string, Watch>();
  #closed = false;

  constructor(options: TaskWatchesOptions) {
    this.#options = options;
  }

  /** Calls `onChange` with each change of `taskId`; resolves once the watch is in place, with its removal. */
  async watch(taskId: string, onChange: (task: TaskRecord) => void): Promise<() => void> {
    const own = (task: TaskRecord): void => onChange(task);
    let watch = this.#watches.get(taskId);
    if (!watch) {
      const fresh: Watch = { callbacks: new Set(), version: 0, expiry: undefined };
      this.#watches.set(taskId, fresh);
      watch = fresh;
      try {
        if (!(await this.#start(taskId, fresh))) return noop;
      } catch (error) {
        this.#drop(taskId, fresh);
        throw error;
      }
    }
    const callbacks = watch.callbacks;
    callbacks.add(own);
    return () => {
      callbacks.delete(own);
      const current = this.#watches.get(taskId);
      if (current && current.callbacks.size === 0) this.#drop(taskId, current);
    };
  }

  /** Reads each watched task again: messages sent while the subscriber was away are lost. */
  async catchUp(): Promise<void> {
    const ids = [...this.#watches.keys()];
    const read = await this.#options.tasks.read(ids).catch(() => []);
    ids.forEach((taskId, i) => {
      const stored = read[i];
      const watch = this.#watches.get(taskId);
      if (stored && watch && stored.version > watch.version)
        this.#deliver(taskId, watch, stored.version, stored.record);
    });
  }

  /** Drops every watch and its subscription, as the store closes. */
  close(): void {
    this.#closed = true;
    for (const [taskId, watch] of [...this.#watches]) this.#drop(taskId, watch);
  }

  /** Forgets every watch at once, its timers cleared, with the connections dropped (a crash). */
  destroy(): void {
    this.#closed = true;
    for (const watch of this.#watches.values()) watch.expiry?.clear();
    this.#watches.clear();
  }

  /** Subscribes to the task's channel and arms its TTL; `false` (and dropped) for one gone or ended. */
  async #start(taskId: string, fresh: Watch): Promise<boolean> {
    const { tasks, subscriber, clock, now } = this.#options;
    await subscriber.subscribe(tasks.taskKey(taskId), (message) => this.#heard(taskId, message));
    const [stored] = await tasks.read([taskId]);
    if (!stored || isTerminalStatus(stored.record.status) || stored.expiresAt <= now()) {
      this.#drop(taskId, fresh);
      return false;
    }
    fresh.version = Math.max(fresh.version, stored.version);
    // The TTL is kept on this instance's clock; whichever watcher's timer fires first ends the task.
    fresh.expiry = clock.setTimer(() => this.#expire(taskId), stored.expiresAt - now());
    return true;
  }

  #heard(taskId: string, message: string): void {
    const watch = this.#watches.get(taskId);
    const bar = message.indexOf('|');
    const version = Number(message.slice(0, bar));
    if (!watch || !(version > watch.version)) return;
    this.#deliver(taskId, watch, version, JSON.parse(message.slice(bar + 1)) as TaskRecord);
  }

  #deliver(taskId: string, watch: Watch, version: number, record: TaskRecord): void {
    watch.version = version;
    for (const onChange of [...watch.callbacks]) onChange(structuredClone(record));
    if (isTerminalStatus(record.status)) this.#drop(taskId, watch); // it never changes again [T4]
  }

  #expire(taskId: string): void {
    const { tasks, now } = this.#options;
    const done = guard(async () => {
      // Past its TTL no reader sees the task; this tells the watchers of one that had not ended.
      for (;;) {
        const [stored] = await tasks.read([taskId]);
        const ended =
          stored && taskSteps.finish(stored.record, taskSteps.expired, new Date(now()).toISOString());
        if (!stored || !ended) break;
        if ((await tasks.write(taskId, stored.version, ended)) !== 0) return;
      }
      const watch = this.#watches.get(taskId);
      if (watch) this.#drop(taskId, watch); // ended already: the store forgets its watchers
    })
      .catch(noop) // Redis away: a reader elsewhere sees the TTL passed all the same
      .finally(() => this.pending.delete(done));
    this.pending.add(done);
  }

  #drop(taskId: string, watch: Watch): void {
    watch.expiry?.clear();
    watch.callbacks.clear();
    if (this.#watches.get(taskId) !== watch) return;
    this.#watches.delete(taskId);
    if (!this.#closed)
      void this.#options.subscriber.unsubscribe(this.#options.tasks.taskKey(taskId)).catch(noop);
  }
}
