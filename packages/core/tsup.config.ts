import { defineConfig } from 'tsup';

// p-timeout 7 is ESM-only, so the CJS output bundles it; the ESM output keeps it external.
export default defineConfig([
  {
    entry: {
      index: 'src/index.ts',
      testing: 'src/testing.ts',
      schemas: 'src/schemas.ts',
      adapter: 'src/adapter.ts',
    },
    format: ['esm'],
    dts: true,
    clean: true,
    target: 'es2022',
    platform: 'neutral',
    // No source maps in the tarball: dist is not minified, so stack traces read as they are, and a map
    // would point at src/, which does not ship (sizes before and after: bench/README.md).
    sourcemap: false,
  },
  {
    entry: {
      index: 'src/index.ts',
      testing: 'src/testing.ts',
      schemas: 'src/schemas.ts',
      adapter: 'src/adapter.ts',
    },
    format: ['cjs'],
    dts: true,
    target: 'es2022',
    platform: 'neutral',
    sourcemap: false,
    noExternal: ['p-timeout'],
  },
]);
