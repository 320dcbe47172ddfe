/**
 * `@mcp-inflight/client/input`: multi round-trip requests (2026-07-28) as a client: one call that answers
 * a server's `input_required` results and retries under one deadline. On its own entry, so only those
 * who import it pay for it.
 *
 * @module @mcp-inflight/client/input
 */

export {
  callToolWithInput,
  INPUT_ROUNDS_EXCEEDED,
  type InputCapableClient,
  type InputHandler,
  type InputRequestOptions,
  type InputRound,
  requestWithInput,
} from './input/request-with-input.js';
export {
  checkInputRequired,
  INPUT_METHODS,
  INPUT_REQUIRED_METHODS,
  type InputMethod,
  type InputRequest,
  type InputRequests,
  type InputRequiredResult,
  type InputResponses,
  isInputRequired,
} from './input/types.js';
