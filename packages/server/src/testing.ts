/**
 * `@mcp-inflight/server/testing`: the contract every task store passes (the in-memory one and Redis's), to
 * run against a store of your own. Never in a production bundle.
 *
 * @module @mcp-inflight/server/testing
 */
export {
  type ContractRunner,
  type TaskStoreContractOptions,
  type TaskStoreSettings,
  taskStoreContract,
} from './tasks/task-store-contract.js';
