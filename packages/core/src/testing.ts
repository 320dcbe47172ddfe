// Test helpers, exported from `@mcp-inflight/core/testing` so production bundles never carry them.
export { ManualClock } from './clock/manual-clock.js';
