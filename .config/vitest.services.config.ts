import { lane } from './vitest.config.js';
import { SERVICES } from './vitest.lanes.js';

// Tests that need a system service (Redis, haproxy), under `test/services/` of a package; `pnpm
// test` leaves them out, and `pnpm test:services` (and its own .ci/run lane) runs them.
export default lane(SERVICES, []);
