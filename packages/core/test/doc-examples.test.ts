/**
 * Every `@example` in core's TSDoc compiles: the fenced ```ts blocks are cut out of the doc comments,
 * written as modules that import the built package by name, and type-checked with tsc in one run.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const coreDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const outDir = join(coreDir, '.doc-examples');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') && !path.endsWith('.test.ts') ? [path] : [];
  });
}

/** The ```ts blocks inside /** … *\/ comments of one file. */
function examplesIn(text: string): string[] {
  const blocks: string[] = [];
  for (const comment of text.match(/\/\*\*[\s\S]*?\*\//g) ?? []) {
    const lines = comment.split('\n').map((line) => line.replace(/^\s*\* ?/, ''));
    let current: string[] | undefined;
    for (const line of lines) {
      if (current === undefined && line.trim() === '```ts') current = [];
      else if (current !== undefined && line.trim() === '```') {
        blocks.push(current.join('\n'));
        current = undefined;
      } else current?.push(line);
    }
  }
  return blocks;
}

describe('TSDoc examples', () => {
  const examples = sourceFiles(join(coreDir, 'src')).flatMap((file) =>
    examplesIn(readFileSync(file, 'utf8')).map((code, i) => ({
      name: `${relative(join(coreDir, 'src'), file)}#${i}`,
      code,
    })),
  );

  it('every exported class and function of note carries an example', () => {
    expect(examples.length).toBeGreaterThanOrEqual(12);
  });

  it('every example type-checks against the built package', () => {
    rmSync(outDir, { recursive: true, force: true });
    mkdirSync(outDir, { recursive: true });
    examples.forEach((example, i) => {
      writeFileSync(join(outDir, `example-${i}.ts`), `// ${example.name}\n${example.code}\nexport {};\n`);
    });
    writeFileSync(
      join(outDir, 'tsconfig.json'),
      JSON.stringify({
        extends: '../../../tsconfig.base.json',
        compilerOptions: { noEmit: true, declaration: false, types: [], noUnusedLocals: false },
        include: ['*.ts'],
      }),
    );
    const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
    let output = '';
    try {
      execFileSync(process.execPath, [tsc, '-p', join(outDir, 'tsconfig.json')], { encoding: 'utf8' });
    } catch (error) {
      output = String((error as { stdout?: string }).stdout ?? error);
    }
    // Name the failing example by its source, not by the temp file.
    const named = output.replace(/example-(\d+)\.ts/g, (_m, i: string) => examples[Number(i)]?.name ?? _m);
    expect(named).toBe('');
    rmSync(outDir, { recursive: true, force: true });
  }, 60_000);
});
