import { lane } from './vitest.config.js';
import { FAST, FAST_EXCLUDE, SERVICES } from './vitest.lanes.js';

// `pnpm test:fast`: the inner loop, under a minute and no build (vitest.lanes.ts says what is in it). The
// HTTP fuzz runs 1,000 cases here instead of 10,000.
export default lane(FAST, [...SERVICES, ...FAST_EXCLUDE], {
  HTTP_FUZZ_CASES: process.env.HTTP_FUZZ_CASES ?? '1000',
});
