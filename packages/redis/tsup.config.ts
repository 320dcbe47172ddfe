import { defineConfig } from 'tsup';

// Core and the Redis client stay external (dependencies), so there is one copy of each core class.
export default defineConfig({
  entry: { index: 'src/index.ts' },
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  target: 'es2022',
  platform: 'node',
  sourcemap: true,
});
