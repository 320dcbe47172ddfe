/**
 * `@mcp-inflight/server/input`: multi round-trip requests (2026-07-28) as a server: the helpers to ask a
 * client for input and to trust the `requestState` that comes back (HMAC-signed with WebCrypto). On its
 * own entry, so only those who import it pay for it.
 *
 * @module @mcp-inflight/server/input
 */

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
} from '@mcp-inflight/client/input';
export {
  bindingOf,
  MAX_REQUEST_STATE_CHARS,
  RequestStateSigner,
  type RequestStateSignerOptions,
  type StateBinding,
} from './input/request-state.js';
export { clientSupports, elicit, type InputRetry, inputRequired, inputRetryOf } from './input/serve-input.js';
