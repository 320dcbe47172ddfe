import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const coreDir = join(dirname(fileURLToPath(import.meta.url)), '../..');

/** The strict app settings a vendored copy of core must satisfy (see the Vendoring section of the README). */
export const STRICT_APP_OPTIONS = {
  target: 'ES2023',
  lib: ['ES2023', 'ESNext.Disposable', 'DOM'],
  strict: true,
  exactOptionalPropertyTypes: true,
  noUncheckedIndexedAccess: true,
  noPropertyAccessFromIndexSignature: true,
  noImplicitOverride: true,
  verbatimModuleSyntax: true,
  isolatedModules: true,
  erasableSyntaxOnly: true,
  noEmit: true,
  skipLibCheck: true,
  types: [],
};

export const RESOLUTIONS = {
  NodeNext: { module: 'NodeNext', moduleResolution: 'NodeNext' },
  Bundler: { module: 'ESNext', moduleResolution: 'Bundler' },
} as const;

/**
 * Copies core's `src` (without tests) into a fresh ESM app with a strict tsconfig and runs tsc on it. The
 * app's `node_modules` is core's own, so core's declared dependencies are what the copy can import.
 * Returns tsc's error lines (empty when it compiles).
 */
export function compileVendoredCopy(resolution: keyof typeof RESOLUTIONS): string[] {
  const app = mkdtempSync(join(tmpdir(), 'inflight-vendor-'));
  try {
    cpSync(join(coreDir, 'src'), join(app, 'src/vendor/inflight'), {
      recursive: true,
      filter: (from) => !from.endsWith('.test.ts'),
    });
    symlinkSync(join(coreDir, 'node_modules'), join(app, 'node_modules'), 'dir');
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { ...STRICT_APP_OPTIONS, ...RESOLUTIONS[resolution] },
        include: ['src'],
      }),
    );
    const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
    try {
      execFileSync(process.execPath, [tsc, '-p', app], { cwd: app, encoding: 'utf8', stdio: 'pipe' });
      return [];
    } catch (error) {
      const out = String((error as { stdout?: unknown }).stdout ?? error);
      return out.split('\n').filter((line) => line.includes('error TS'));
    }
  } finally {
    rmSync(app, { recursive: true, force: true });
  }
}
