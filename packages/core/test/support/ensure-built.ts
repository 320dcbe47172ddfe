import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const coreDir = join(dirname(fileURLToPath(import.meta.url)), '../..');
export const DIST_FILES = [
  'index.js',
  'index.cjs',
  'index.d.ts',
  'index.d.cts',
  'testing.js',
  'testing.cjs',
  'testing.d.ts',
  'testing.d.cts',
  'schemas.js',
  'schemas.cjs',
  'schemas.d.ts',
  'schemas.d.cts',
];

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

export const sourceFiles = filesUnder(join(coreDir, 'src')).filter(
  (f) => f.endsWith('.ts') && !f.endsWith('.test.ts'),
);

/** Builds dist with tsup when it is missing or older than the sources (the root `pnpm test` builds first). */
export function ensureBuilt(): void {
  const inputs = [...sourceFiles, join(coreDir, 'package.json'), join(coreDir, 'tsup.config.ts')];
  const newestInput = Math.max(...inputs.map((f) => statSync(f).mtimeMs));
  const outputs = DIST_FILES.map((f) => join(coreDir, 'dist', f));
  const fresh = outputs.every((f) => existsSync(f) && statSync(f).mtimeMs >= newestInput);
  if (fresh) return;
  execFileSync(join(coreDir, '../../node_modules/.bin/tsup'), { cwd: coreDir, stdio: 'pipe' });
}
