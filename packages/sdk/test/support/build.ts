// Builds packages/sdk/dist with tsup when it is missing or older than the sources (the root `pnpm test`
// builds first; a bare `vitest run` may not have). Core's dist is core's business, but it must exist.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const sdkDir = join(dirname(fileURLToPath(import.meta.url)), '../..');
const coreDir = join(sdkDir, '../core');
const tsup = join(sdkDir, '../../node_modules/.bin/tsup');

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

/** The non-test TypeScript sources of this package. */
export const sourceFiles = filesUnder(join(sdkDir, 'src')).filter(
  (f) => f.endsWith('.ts') && !f.endsWith('.test.ts'),
);

function fresh(dir: string, outputs: string[], inputs: string[]): boolean {
  const newestInput = Math.max(...inputs.map((f) => statSync(f).mtimeMs));
  return outputs.every(
    (f) => existsSync(join(dir, 'dist', f)) && statSync(join(dir, 'dist', f)).mtimeMs >= newestInput,
  );
}

export function ensureBuilt(): void {
  if (!existsSync(join(coreDir, 'dist', 'index.d.ts'))) execFileSync(tsup, { cwd: coreDir, stdio: 'pipe' });
  const inputs = [...sourceFiles, join(sdkDir, 'package.json'), join(sdkDir, 'tsup.config.ts')];
  if (fresh(sdkDir, ['index.js', 'index.cjs', 'index.d.ts', 'index.d.cts'], inputs)) return;
  execFileSync(tsup, { cwd: sdkDir, stdio: 'pipe' });
}
