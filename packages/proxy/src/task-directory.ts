import type { Clock } from '@mcp-inflight/core';
import type { StoreHealth } from '@mcp-inflight/redis';

/** A task directory's link to its shared store, as the proxy's metrics read it (`@mcp-inflight/redis`'s shape). */
export type { StoreHealth };

/**
 * Which proxy instance relays each task, shared by every instance behind a balancer (see
 * {@link TaskTableOptions.directory}; `RedisTaskDirectory` of `@mcp-inflight/redis` is one).
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
  /**
   * Records that this instance relays `taskId` for `ttlMs`. A store that is away keeps the claim and
   * writes it once back; a rejection refuses the task at creation (the host hears the error).
   */
  claim(taskId: string, ttlMs: number): Promise<void>;
  /** Keeps the task's terminal `tasks/get` answer for every instance. */
  settle(taskId: string, answer: Record<string, unknown>): Promise<void>;
  /**
   * Has the instance relaying `taskId` (or what is kept of it) answer `method`; `headers` are the asking
   * host's `--pass-header` values, which the holder sends upstream with it.
   */
  forward(
    taskId: string,
    method: string,
    params: Record<string, unknown>,
    headers?: Record<string, string>,
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
  /** Answers what other instances forward for the tasks relayed here (with the asking host's headers). */
  serve(
    answer: (
      method: string,
      params: Record<string, unknown>,
      headers?: Record<string, string>,
    ) => Promise<unknown>,
  ): void;
  /** The link to the shared store now, read when scraped (`mcp_proxy_store_*`). */
  readonly health?: StoreHealth;
}

/** Options for a `TaskTable` (task-table.ts). */
export interface TaskTableOptions {
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
