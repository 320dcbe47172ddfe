import { defineConfig } from 'tsup';

// Core stays external (workspace dependency), so there is one copy of each core class. `fetch` is the
// entry without node:* imports (browsers, Deno, Bun, workers).
export default defineConfig({
  entry: { index: 'src/index.ts', fetch: 'src/fetch.ts' },
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  target: 'es2022',
  platform: 'node',
  // No source maps in the tarball: dist is not minified, so stack traces read as they are, and a map
  // would point at src/, which does not ship (sizes before and after: bench/README.md).
  sourcemap: false,
});
