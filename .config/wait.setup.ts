import { vi } from 'vitest';

// vi.waitFor waits for a condition; like expect.poll (vitest.config.ts), its bound only ends a broken test,
// so the default is one that load cannot reach (vitest's is 1 s). A test's own timeout still wins.
const waitFor = vi.waitFor.bind(vi);
vi.waitFor = ((callback, options) =>
  waitFor(callback, typeof options === 'number' ? options : { timeout: 20_000, ...options })) as typeof vi.waitFor;
