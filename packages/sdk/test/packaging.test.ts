/**
 * The built package, loaded the way users load it (real `node` children that `import()` and `require()`
 * `@mcp-inflight/sdk` by name, resolved through the package's own `exports`), and every code example in the
 * README and in the TSDoc, plus examples/*.ts, type-checked against the built types in one tsc run; and every
 * export has TSDoc with an `@example`.
 * One file on purpose: one build, never two tsup runs racing on dist/.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  examplesIn,
  examplesOf,
  exportsWithoutExamples,
  typecheckExamples,
} from '../../core/test/support/doc-checks.js';
import * as source from '../src/index.js';
import { ensureBuilt, sdkDir, sourceFiles } from './support/build.js';

beforeAll(() => ensureBuilt(), 120_000);

const PROBE = `
  const sdk = await load('@mcp-inflight/sdk');
  const core = await load('@mcp-inflight/core');
  const { ManualClock } = await load('@mcp-inflight/core/testing');
  const clock = new ManualClock();
  let given;
  const call = sdk.withDeadline((options) => { given = options; return new Promise(() => {}); }, { clock, idleMs: 1000, ceilingMs: 100 });
  clock.advance(100);
  const code = await call.then(() => 'resolved', (error) => error.code);
  console.log(JSON.stringify({
    exports: Object.keys(sdk).sort(),
    code,
    wireReason: given.signal.reason,
    sameInflightError: sdk.InflightError === core.InflightError,
    pendingAfter: clock.pendingTimers,
    resolved: where('@mcp-inflight/sdk'),
  }));
`;

function runProbe(kind: 'esm' | 'cjs') {
  const args =
    kind === 'esm'
      ? [
          '--input-type=module',
          '-e',
          `const load = (n) => import(n);\nconst where = (n) => import.meta.resolve(n);\n${PROBE}`,
        ]
      : [
          '--input-type=commonjs',
          '-e',
          `const load = async (n) => require(n);\nconst where = (n) => require.resolve(n);\n(async () => {${PROBE}})().catch((e) => { console.error(e); process.exit(1); });`,
        ];
  const child = spawnSync(process.execPath, args, { cwd: sdkDir, encoding: 'utf8', timeout: 20_000 });
  if (child.status !== 0) throw new Error(`node (${kind}) exited ${child.status}:\n${child.stderr}`);
  return JSON.parse(child.stdout.trim().split('\n').at(-1)!) as {
    exports: string[];
    code: string;
    wireReason: string;
    sameInflightError: boolean;
    pendingAfter: number;
    resolved: string;
  };
}

describe.each(['esm', 'cjs'] as const)('@mcp-inflight/sdk from %s', (kind) => {
  it('resolves to its own dist, exports what src/index.ts does, and runs a deadline on core', () => {
    const result = runProbe(kind);
    const resolved = result.resolved.startsWith('file:') ? fileURLToPath(result.resolved) : result.resolved;
    expect(relative(sdkDir, resolved)).toBe(join('dist', kind === 'esm' ? 'index.js' : 'index.cjs'));
    expect(result.exports).toEqual(Object.keys(source).sort());
    expect(result.code).toBe('CEILING');
    expect(result.wireReason).toMatch(/^CEILING: hard ceiling of 100 ms reached/);
    // Core stays external: one InflightError class for everyone.
    expect(result.sameInflightError).toBe(true);
    expect(result.pendingAfter).toBe(0);
  });
});

describe('the built output', () => {
  // Comments hold TSDoc examples that import the SDK on purpose; only code counts.
  const code = (text: string): string => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const specifiers = (text: string): string[] =>
    [
      ...code(text).matchAll(
        /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|^\s*import\s+)['"]([^'"]+)['"]/gm,
      ),
    ].map((m) => m[1]!);

  it('needs no SDK at run time or in its types, and does not bundle core', () => {
    for (const file of ['index.js', 'index.cjs', 'index.d.ts', 'index.d.cts']) {
      const imported = specifiers(readFileSync(join(sdkDir, 'dist', file), 'utf8'));
      expect(imported.filter((s) => s.startsWith('@modelcontextprotocol/'))).toEqual([]);
      expect(imported).toContain('@mcp-inflight/core');
    }
    expect(readFileSync(join(sdkDir, 'dist', 'index.js'), 'utf8')).not.toMatch(/class DeadlineController/);
  });

  it('src imports no SDK module either (only types, by shape)', () => {
    const offenders = sourceFiles.flatMap((file) =>
      specifiers(readFileSync(file, 'utf8'))
        .filter((s) => s.startsWith('@modelcontextprotocol/'))
        .map((s) => `${relative(sdkDir, file)}: ${s}`),
    );
    expect(offenders).toEqual([]);
  });
});

describe('code examples', () => {
  const readme = examplesIn(readFileSync(join(sdkDir, 'README.md'), 'utf8'), true).map((code, i) => ({
    name: `README.md#${i}`,
    code,
  }));
  const tsdoc = examplesOf(sdkDir);
  const exampleFiles = readdirSync(join(sdkDir, 'examples')).filter((f) => f.endsWith('.ts'));

  it('cover the three helpers in the README and every exported function in the TSDoc', () => {
    const all = readme.map((e) => e.code).join('\n');
    for (const name of ['withProgress', 'callWithDeadline', 'relayRequest']) expect(all).toContain(name);
    const documented = tsdoc.map((e) => e.code).join('\n');
    const functions = Object.entries(source)
      .filter(([, value]) => typeof value === 'function')
      .map(([name]) => name);
    for (const name of functions) expect(documented, `no @example uses ${name}`).toContain(name);
    expect(exampleFiles.length).toBeGreaterThanOrEqual(4);
  });

  it('every export of the entry point has TSDoc with an @example', () => {
    const entries = [join(sdkDir, 'src', 'index.ts')];
    expect(
      exportsWithoutExamples(sdkDir, entries),
      'exports without TSDoc, or without a ```ts @example',
    ).toEqual({
      noDoc: [],
      noExample: [],
    });
  });

  it('all type-check against the built package', () => {
    const output = typecheckExamples(sdkDir, [...readme, ...tsdoc], {
      types: ['node'],
      alsoInclude: ['../examples/*.ts'],
    });
    expect(output).toBe('');
  }, 60_000);
});
