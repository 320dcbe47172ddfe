import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';
import { ALL, SERVICES } from './vitest.lanes.js';

/** The settings every lane shares; `include` and `exclude` say which files a lane runs. */
export function lane(include: string[], exclude: string[], env: Record<string, string> = {}) {
  return defineConfig({
    root: fileURLToPath(new URL('..', import.meta.url)),
    test: {
      include,
      exclude: [...configDefaults.exclude, ...exclude],
      env,
      // expect.poll and its like wait for a condition; the bound only ends a broken test, so it is one that
      // load cannot reach (vitest's default is 1 s, which a child process starting on a busy machine can).
      expect: { poll: { timeout: 20_000 } },
      testTimeout: 60_000,
      hookTimeout: 60_000,
      pool: 'forks',
      // Most end-to-end files wait on child processes, sockets and timers, not on a CPU: three files at
      // once on two cores (vitest's default would be one). No test may depend on a core to itself.
      maxWorkers: 3,
      // FC_SEED / FC_PATH replay a failing property test from the seed fast-check printed.
      setupFiles: ['.config/fast-check.setup.ts', '.config/wait.setup.ts'],
    },
  });
}

// `pnpm test`: every test that needs only Node (vitest.lanes.ts).
export default lane(ALL, SERVICES);
