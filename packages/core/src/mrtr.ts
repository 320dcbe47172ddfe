/**
 * `@mcp-inflight/core/mrtr`: multi round-trip requests (2026-07-28). For clients, one call that answers a
 * server's `input_required` results and retries under one deadline; for servers, the helpers to ask for
 * input and to trust the `requestState` that comes back (HMAC-signed with WebCrypto). On its own entry, so
 * only those who import it pay for it.
 *
 * @module @mcp-inflight/core/mrtr
 */
export {
  bindingOf,
  MAX_REQUEST_STATE_CHARS,
  RequestStateSigner,
  type RequestStateSignerOptions,
  type StateBinding,
} from './mrtr/request-state.js';
export {
  callToolWithInput,
  INPUT_ROUNDS_EXCEEDED,
  type InputCapableClient,
  type InputHandler,
  type InputRequestOptions,
  type InputRound,
  requestWithInput,
} from './mrtr/request-with-input.js';
export { clientSupports, elicit, type InputRetry, inputRequired, inputRetryOf } from './mrtr/server.js';
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
} from './mrtr/types.js';
