/**
 * `@mcp-inflight/redis`: the task store on Redis, for servers and proxies with more than one instance
 * behind a load balancer. Pass a {@link RedisTaskStore} to `serveTasks` on every instance.
 *
 * @module @mcp-inflight/redis
 */

export { TASK_STORE_UNAVAILABLE } from './connection.js';
export type { Forwarded } from './directory-wire.js';
export type { StoreEvent, StoreHealth } from './store-link.js';
export { RedisTaskDirectory, type RedisTaskDirectoryOptions } from './task-directory.js';
export { RedisTaskStore, type RedisTaskStoreOptions, TASK_OWNER_LOST } from './task-store.js';
