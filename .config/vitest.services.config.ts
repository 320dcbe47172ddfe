import { lane } from './vitest.config.js';
import { SERVICES } from './vitest.lanes.js';

// Tests that need a system service (Redis, haproxy), under `test/services/` of a package or example; `pnpm
// test` leaves them out. None exists yet: the first one brings a `test:services` script and a .ci/run line.
export default lane(SERVICES, []);
