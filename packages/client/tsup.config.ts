import { defineConfig } from 'tsup';

// Core stays external (workspace dependency), so there is one copy of each core class.
const entry = { index: 'src/index.ts', tasks: 'src/tasks.ts', input: 'src/input.ts' };
export default defineConfig({
  entry,
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  target: 'es2022',
  platform: 'neutral',
  sourcemap: false,
});
