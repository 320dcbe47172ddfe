import type { Endpoint } from './endpoint.js';

// The state a core feature (the lifecycle, the tool layer's parameter headers) keeps for one endpoint, on
// the endpoint under a symbol, not in a `WeakMap`: a 2026-07-28 HTTP server makes an endpoint per request,
// and a WeakMap entry per short-lived key cost 1.32x the server CPU per call (bench F2 HTTP, Node 20.20).
// Set on first use, so the class stays droppable; a module of its own, so the tool layer does not take in
// `Endpoint`. Internal to core.
const SLOTS = /* @__PURE__ */ Symbol('feature slots');
type Slotted = { [SLOTS]?: Map<symbol, unknown> };

const slotsOf = (endpoint: Endpoint): Map<symbol, unknown> =>
  ((endpoint as unknown as Slotted)[SLOTS] ??= new Map());

/** What the feature keyed `key` keeps for `endpoint`, if anything. Internal to core. */
export function featureSlot<T>(endpoint: Endpoint, key: symbol): T | undefined {
  return slotsOf(endpoint).get(key) as T | undefined;
}

/** Sets {@link featureSlot}. Internal to core. */
export function setFeatureSlot(endpoint: Endpoint, key: symbol, value: unknown): void {
  slotsOf(endpoint).set(key, value);
}
