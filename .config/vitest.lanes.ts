// Which test files run in which command (README, "Working on it"). One list, read by the vitest configs;
// `packages/core/test/lanes.test.ts` fails when a pattern here matches no file, so a lane cannot shrink
// silently when tests move.

/** Tests that need a system service (Redis, haproxy): `vitest.services.config.ts` only, never `pnpm test`. */
export const SERVICES = ['packages/*/test/services/**/*.test.ts'];

/** Everything that needs only Node: `pnpm test`. */
export const ALL = ['packages/*/src/**/*.test.ts', 'packages/*/test/**/*.test.ts', 'examples/*/test/**/*.test.ts'];

/**
 * `pnpm test:fast`: every test of `ALL` that runs in the test's own process (unit tests, real loopback
 * sockets, the SDKs as in-process peers), so no build is needed. Left out: the tests below, which start
 * child processes from built output, run tsc or a bundler, or start a browser.
 */
export const FAST = ALL;

/** In `ALL` but not fast: child processes, built output, tsc or bundler runs, a browser. */
export const FAST_EXCLUDE = [
  '**/packaging.test.ts',
  '**/doc-examples.test.ts',
  '**/vendoring.test.ts',
  'examples/demo/test/{demo,unbuilt}.test.ts',
  'examples/host/test/host-cli.test.ts',
  'examples/server/test/{cli,create-server-sdk,mrtr,one-client-shape,stdio-listen,stdio-wire,stdout-break,tasks}.test.ts',
  'examples/server/test/http-conformance{,-alpha,-client}.test.ts',
  'examples/web/test/browser.test.ts',
  'packages/core/test/{license,readme-examples,size-check}.test.ts',
  'packages/server/test/{no-zod,tool-result-types,zod-versions}.test.ts',
  'packages/http/test/session-cap-process.test.ts',
  'packages/proxy/test/{era-cancel,fair-shares,handshake,input-sdk,isolation,kept-strings}.test.ts',
  'packages/proxy/test/{listen-relay,operate,progress-interval,respawn,sdk-hosts,session-cap}.test.ts',
  'packages/proxy/test/{signals,startup,stats,stdio-wire,tasks-procs,upstream-death}.test.ts',
  'packages/proxy/test/{entries,upstream-http-break,hostile-log,connection-flood,browser-hosts}.test.ts',
  'packages/proxy/test/{never-reads,overlong-upstream,spawn-fd-limit}.test.ts',
  'examples/server/test/control-lane.test.ts',
  'packages/stdio/test/{client-lifecycle,flood,fuzz,package-exports,proxy,spawn-arguments}.test.ts',
  'packages/stdio/test/{never-reads,fd-limit}.test.ts',
];
