import { defineConfig } from 'tsup';

// Core, stdio and http stay external (workspace dependencies), so there is one copy of each core class.
// Three entries: the library (`.`, which never loads prom-client), the Prometheus metrics (`./metrics`)
// and the command line (`./cli`, the bin's). `bin` is the CLI, ESM only: it is run, never imported.
export default defineConfig([
  {
    entry: { index: 'src/index.ts', metrics: 'src/metrics.ts', cli: 'src/cli.ts' },
    format: ['esm', 'cjs'],
    dts: true,
    clean: true,
    target: 'es2022',
    platform: 'node',
    // No source maps in the tarball: dist is not minified, so stack traces read as they are, and a map
    // would point at src/, which does not ship (sizes before and after: bench/README.md).
    sourcemap: false,
  },
  {
    entry: { bin: 'src/bin.ts' },
    format: ['esm'],
    target: 'es2022',
    platform: 'node',
    sourcemap: false,
    banner: { js: '#!/usr/bin/env node' },
  },
]);
