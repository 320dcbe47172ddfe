import { defineConfig } from 'tsup';

const entry = {
  index: 'src/index.ts',
  testing: 'src/testing.ts',
  schemas: 'src/schemas.ts',
  adapter: 'src/adapter.ts',
};

export default defineConfig([
  {
    // ESM: one file per source module, so an app's bundler drops every module it does not reach
    // (`sideEffects: false`). A bundled core put nearly all of it in one shared chunk, and a package on top
    // (server's tool layer) then carried ProgressRelay and eventemitter3 it never uses: 13.79 KB against
    // 12.67 KB gzipped this way (bench/size.mjs).
    entry: ['src/**/*.ts', '!src/**/*.test.ts'],
    bundle: false,
    format: ['esm'],
    clean: true,
    target: 'es2022',
    platform: 'neutral',
    // No source maps in the tarball: dist is not minified, so stack traces read as they are, and a map
    // would point at src/, which does not ship (sizes before and after: bench/NOTES.md#tarball-sizes).
    sourcemap: false,
  },
  {
    entry,
    format: ['esm'],
    dts: { only: true },
    target: 'es2022',
    platform: 'neutral',
  },
  {
    // p-timeout 7 is ESM-only, so the CJS output bundles it; the ESM output keeps it external.
    entry,
    format: ['cjs'],
    dts: true,
    target: 'es2022',
    platform: 'neutral',
    sourcemap: false,
    noExternal: ['p-timeout'],
  },
]);
