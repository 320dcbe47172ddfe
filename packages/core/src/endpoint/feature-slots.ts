import type { Endpoint } from './endpoint.js';

// The state a core feature (the lifecycle, the tool layer's parameter headers) keeps for one endpoint, on
// the endpoint itself under a symbol rather than in a `WeakMap` keyed by it: a 2026-07-28 HTTP server makes
// an endpoint per request, and on Node 20 a WeakMap entry per short-lived key kept its value alive through
// scavenges (a loop of 300,000 such entries ran 25x slower than without them). Set on first use, not
// declared in the class: a field or static block there would make the class a side effect no bundler can
// drop. A module of its own, so the tool layer's bundle does not take in `Endpoint` for it.
// Bench F2 HTTP, 2026-07-28 server: a WeakMap costs 1.32x the server CPU per call on Node 20.20, 1.46x on
// Node 26.12. Internal to core.
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
