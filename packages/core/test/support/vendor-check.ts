import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const coreDir = join(dirname(fileURLToPath(import.meta.url)), '../..');
const rootDir = join(coreDir, '../..');

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
  types: [] as string[],
};

export const RESOLUTIONS = {
  NodeNext: { module: 'NodeNext', moduleResolution: 'NodeNext' },
  Bundler: { module: 'ESNext', moduleResolution: 'Bundler' },
} as const;

/** Where a vendored core sits in the test app, and the `paths` that let a vendored http import it by name. */
export const VENDORED_CORE = 'src/vendor/inflight-core';
export const CORE_PATHS = {
  '@mcp-inflight/core': [`./${VENDORED_CORE}/index.ts`],
  '@mcp-inflight/core/*': [`./${VENDORED_CORE}/*.ts`],
};
/** Where a test copies client's src, beside core's, and the `paths` that find both. */
export const VENDORED_CLIENT = 'src/vendor/inflight-client';
export const CLIENT_PATHS = {
  ...CORE_PATHS,
  '@mcp-inflight/client': [`./${VENDORED_CLIENT}/index.ts`],
  '@mcp-inflight/client/*': [`./${VENDORED_CLIENT}/*.ts`],
};

/** One folder to copy into the app: `from` relative to the repository root, `to` relative to the app. */
export interface VendoredFolder {
  from: string;
  to: string;
  /** Relative paths (from `from`, `/`-separated) left out besides the `*.test.ts` files. */
  leaveOut?: string[];
}

export interface VendorSetup {
  folders: VendoredFolder[];
  resolution: keyof typeof RESOLUTIONS;
  paths?: Record<string, string[]>;
  /** `compilerOptions.types`: `[]` (no ambient Node types) unless a folder imports `node:*`. */
  types?: string[];
}

/**
 * Copies the folders (without tests) into a fresh ESM app with a strict tsconfig and runs tsc on it. The
 * app's `node_modules` holds core's own dependencies (eventemitter3, p-timeout, zod) and `@types/node`,
 * which only `types: ['node']` brings in. Returns tsc's error lines (empty when it compiles).
 */
export function compileVendored(setup: VendorSetup): string[] {
  const app = mkdtempSync(join(tmpdir(), 'inflight-vendor-'));
  try {
    for (const folder of setup.folders) {
      const source = join(rootDir, folder.from);
      const leaveOut = new Set((folder.leaveOut ?? []).map((path) => join(source, path)));
      cpSync(source, join(app, folder.to), {
        recursive: true,
        filter: (from) => !from.endsWith('.test.ts') && !leaveOut.has(from),
      });
    }
    mkdirSync(join(app, 'node_modules/@types'), { recursive: true });
    for (const name of ['eventemitter3', 'p-timeout', 'zod']) {
      symlinkSync(realpathSync(join(coreDir, 'node_modules', name)), join(app, 'node_modules', name), 'dir');
    }
    symlinkSync(
      realpathSync(join(rootDir, 'node_modules/@types/node')),
      join(app, 'node_modules/@types/node'),
      'dir',
    );
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          ...STRICT_APP_OPTIONS,
          ...RESOLUTIONS[setup.resolution],
          types: setup.types ?? [],
          ...(setup.paths ? { paths: setup.paths } : {}),
        },
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

/** Core's `src` alone, vendored the way the README's Vendoring section says. */
export function compileVendoredCopy(resolution: keyof typeof RESOLUTIONS): string[] {
  return compileVendored({
    folders: [{ from: 'packages/core/src', to: 'src/vendor/inflight' }],
    resolution,
  });
}
