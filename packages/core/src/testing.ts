/**
 * Test helpers, exported from `@mcp-inflight/core/testing` so production bundles never carry them.
 *
 * @module @mcp-inflight/core/testing
 */
export { ManualClock } from './clock/manual-clock.js';
