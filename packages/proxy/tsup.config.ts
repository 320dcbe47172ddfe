import { defineConfig } from 'tsup';

// Core, stdio and http stay external (workspace dependencies), so there is one copy of each core class.
// `bin` is the CLI, ESM only: it is run, never imported.
export default defineConfig([
  {
    entry: { index: 'src/index.ts' },
    format: ['esm', 'cjs'],
    dts: true,
    clean: true,
    target: 'es2022',
    platform: 'node',
    sourcemap: true,
  },
  {
    entry: { bin: 'src/bin.ts' },
    format: ['esm'],
    target: 'es2022',
    platform: 'node',
    sourcemap: true,
    banner: { js: '#!/usr/bin/env node' },
  },
]);
