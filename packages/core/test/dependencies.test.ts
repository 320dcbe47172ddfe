/**
 * Every declared dependency earns its place: for each package and example of the workspace, every entry
 * of package.json `dependencies` is imported by its shipped code (src, tests excluded), and every package
 * that code imports is declared (`dependencies` or `peerDependencies`). Imports are read with the
 * TypeScript preprocessor, so a name in a comment or a TSDoc example does not count.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const builtins = new Set(builtinModules);

function shippedFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return shippedFiles(path);
    return /\.(ts|mts|js|mjs)$/.test(path) && !/\.test\.[cm]?[jt]s$/.test(path) ? [path] : [];
  });
}

/** `@scope/name/sub` -> `@scope/name`, `name/sub` -> `name`; relative and built-in imports -> undefined. */
function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('node:'))
    return undefined;
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
  return name === undefined || builtins.has(name) ? undefined : name;
}

interface Manifest {
  name: string;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

const workspaces = ['packages', 'examples'].flatMap((group) =>
  readdirSync(join(root, group), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => join(group, entry.name)),
);

describe.each(workspaces)('%s', (workspace) => {
  const manifest = JSON.parse(readFileSync(join(root, workspace, 'package.json'), 'utf8')) as Manifest;
  const imported = new Set<string>();
  for (const file of shippedFiles(join(root, workspace, 'src'))) {
    const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    // Resolving a package (a bin found through its package.json) uses it as much as importing it does.
    const resolved = [
      ...readFileSync(file, 'utf8').matchAll(/(?:import\.meta|require)\.resolve\('([^']+)'\)/g),
    ];
    for (const fileName of [
      ...info.importedFiles.map((f) => f.fileName),
      ...resolved.map((m) => m[1] ?? ''),
    ]) {
      const name = packageOf(fileName);
      if (name !== undefined && name !== manifest.name) imported.add(name);
    }
  }
  const dependencies = Object.keys(manifest.dependencies ?? {});

  it('imports every package listed in its dependencies from shipped code', () => {
    expect(dependencies.filter((name) => !imported.has(name))).toEqual([]);
  });

  it('declares every package its shipped code imports', () => {
    const declared = new Set([...dependencies, ...Object.keys(manifest.peerDependencies ?? {})]);
    expect([...imported].filter((name) => !declared.has(name)).sort()).toEqual([]);
  });
});

it('reads imports, not comments: the scan sees what it must', () => {
  const text =
    "import a from 'eventemitter3';\n// import b from 'zod';\nconst c = await import('p-timeout/x');";
  const found = ts.preProcessFile(text, true, true).importedFiles.map((f) => packageOf(f.fileName));
  expect(found).toEqual(['eventemitter3', 'p-timeout']);
  expect(packageOf('@mcp-inflight/core/testing')).toBe('@mcp-inflight/core');
  expect(packageOf('node:fs')).toBeUndefined();
  expect(packageOf('fs')).toBeUndefined();
});
