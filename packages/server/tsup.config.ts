import { defineConfig } from 'tsup';

// Core and client stay external (workspace dependencies), so there is one copy of each class; zod is an
// optional peer, loaded only by the tool layer.
const entry = {
  index: 'src/index.ts',
  tasks: 'src/tasks.ts',
  input: 'src/input.ts',
  listen: 'src/listen.ts',
  stats: 'src/stats.ts',
  testing: 'src/testing.ts',
};
export default defineConfig({
  entry,
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  target: 'es2022',
  platform: 'neutral',
  sourcemap: false,
});
