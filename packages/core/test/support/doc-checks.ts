/**
 * Shared by the packages' doc tests: every export carries TSDoc with an `@example`, and every ```ts block in
 * TSDoc type-checks against the built package (imported by name, as users import it).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import ts from 'typescript';

/** The non-test `.ts` files under `dir`. */
export function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') && !path.endsWith('.test.ts') ? [path] : [];
  });
}

/** The ```ts blocks inside the /** … *\/ comments of a source file, or (`markdown`) of a Markdown text. */
export function examplesIn(text: string, markdown = false): string[] {
  const blocks: string[] = [];
  const sources = markdown
    ? [text.split('\n')]
    : (text.match(/\/\*\*[\s\S]*?\*\//g) ?? []).map((c) =>
        c.split('\n').map((l) => l.replace(/^\s*\* ?/, '')),
      );
  for (const lines of sources) {
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

/** Every TSDoc example under `packageDir/src`, named by its file. */
export function examplesOf(packageDir: string): Array<{ name: string; code: string }> {
  const src = join(packageDir, 'src');
  return sourceFiles(src).flatMap((file) =>
    examplesIn(readFileSync(file, 'utf8')).map((code, i) => ({ name: `${relative(src, file)}#${i}`, code })),
  );
}

/**
 * The exports of `entries` (re-exports resolved to their declarations) with no TSDoc, or no `@example`
 * holding a ```ts block (the only kind the type-check picks up).
 */
export function exportsWithoutExamples(
  packageDir: string,
  entries: string[],
): { noDoc: string[]; noExample: string[] } {
  const program = ts.createProgram(entries, {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  const missing = { noDoc: [] as string[], noExample: [] as string[] };
  for (const entry of entries) {
    const module = checker.getSymbolAtLocation(program.getSourceFile(entry)!)!;
    for (const symbol of checker.getExportsOfModule(module)) {
      const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
      const name = `${relative(packageDir, entry)}: ${symbol.name}`;
      const examples = target
        .getJsDocTags(checker)
        .filter((tag) => tag.name === 'example' && ts.displayPartsToString(tag.text).includes('```ts'));
      if (!ts.displayPartsToString(target.getDocumentationComment(checker)).trim()) missing.noDoc.push(name);
      else if (examples.length === 0) missing.noExample.push(name);
    }
  }
  return missing;
}

/**
 * Type-checks `examples` as modules inside `packageDir` (so the package name resolves to its built output)
 * and returns tsc's complaints, each naming the example's source; empty when all compile.
 */
export function typecheckExamples(
  packageDir: string,
  examples: Array<{ name: string; code: string }>,
  options: { types?: string[]; alsoInclude?: string[]; dirName?: string } = {},
): string {
  // A test file of its own passes its own `dirName`, so two files type-checking at once do not collide.
  const outDir = join(packageDir, options.dirName ?? '.doc-examples');
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  examples.forEach((example, i) => {
    writeFileSync(join(outDir, `example-${i}.ts`), `// ${example.name}\n${example.code}\nexport {};\n`);
  });
  writeFileSync(
    join(outDir, 'tsconfig.json'),
    JSON.stringify({
      extends: '../../../tsconfig.base.json',
      compilerOptions: {
        noEmit: true,
        declaration: false,
        types: options.types ?? [],
        noUnusedLocals: false,
      },
      include: ['*.ts', ...(options.alsoInclude ?? [])],
    }),
  );
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  let output = '';
  try {
    execFileSync(process.execPath, [tsc, '-p', join(outDir, 'tsconfig.json')], { encoding: 'utf8' });
  } catch (error) {
    output = String((error as { stdout?: string }).stdout ?? error);
  }
  rmSync(outDir, { recursive: true, force: true });
  return output.replace(/example-(\d+)\.ts/g, (m, i: string) => examples[Number(i)]?.name ?? m);
}
