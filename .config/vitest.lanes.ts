// Which test files run in which command (README, "Working on it"). One list, read by the vitest configs.

/** Tests that need a system service (Redis, haproxy): `vitest.services.config.ts` only, never `pnpm test`. */
export const SERVICES = ['packages/*/test/services/**/*.test.ts', 'examples/*/test/services/**/*.test.ts'];

/** Everything that needs only Node: `pnpm test`. */
export const ALL = ['packages/*/src/**/*.test.ts', 'packages/*/test/**/*.test.ts', 'examples/*/test/**/*.test.ts'];

/**
 * `pnpm test:fast`: unit tests and in-process tests (real loopback sockets in the test's own process, the
 * SDKs as in-process peers); no child process, no tsc or bundler run, no build needed.
 */
export const FAST = [
  'packages/*/src/**/*.test.ts',
  'packages/core/test/dependencies.test.ts',
  'packages/http/test/**/*.test.ts',
  'packages/sdk/test/**/*.test.ts',
  'packages/stdio/test/{connection,flow-control,listen,result-gap}.test.ts',
  'examples/demo/test/summary.test.ts',
  'examples/host/test/{runner,wire-tally}.test.ts',
  'examples/proxy/test/{endpoint-log,events,input-relay,options,tasks}.test.ts',
  'examples/server/test/args.test.ts',
];

/** In the FAST globs but not fast: child processes, tsc runs. */
export const FAST_EXCLUDE = [
  '**/packaging.test.ts',
  '**/doc-examples.test.ts',
  '**/vendoring.test.ts',
  '**/*.e2e.test.ts',
  'packages/http/test/session-cap-process.test.ts',
];
