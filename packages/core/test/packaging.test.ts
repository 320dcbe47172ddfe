/**
 * The built package, loaded the way users load it: real `node` child processes that `import()` (ESM) and
 * `require()` (CJS) `@mcp-inflight/core` and `@mcp-inflight/core/testing`. The children run with
 * packages/core as their working directory, so the name resolves through the package's own `exports`
 * (self-reference), never through a node_modules link.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import * as source from '../src/index.js';
import * as sourceTesting from '../src/testing.js';
import { ensureBuilt, sourceFiles } from './support/ensure-built.js';

const coreDir = join(dirname(fileURLToPath(import.meta.url)), '..');
// One script for both module systems; `load` is `import()` or `require()`, `where` the matching resolver.
// It prints one JSON line.
const PROBE = `
  const core = await load('@mcp-inflight/core');
  const testing = await load('@mcp-inflight/core/testing');
  const clock = new testing.ManualClock();
  const idle = new core.DeadlineController({ clock, idleMs: 50, ceilingMs: 1000 });
  const ceiling = new core.DeadlineController({ clock, ceilingMs: 120 });
  const pendingWhileLive = clock.pendingTimers;
  clock.advance(50);
  idle.touch();
  clock.advance(70);
  const bounded = core.withTimeout(new Promise(() => {}), 30, { clock });
  clock.advance(30);
  const timeout = await bounded.then(() => 'resolved', (error) => error.code);
  const inTime = await core.withTimeout(Promise.resolve('ok'), 30, { clock });
  console.log(JSON.stringify({
    exports: Object.keys(core).sort(),
    testingExports: Object.keys(testing).sort(),
    pendingWhileLive,
    idle: idle.signal.reason.code,
    ceiling: ceiling.signal.reason.code,
    reasonIsInflightError: ceiling.signal.reason instanceof core.InflightError,
    pendingAfter: clock.pendingTimers,
    timeout,
    inTime,
    resolved: where('@mcp-inflight/core'),
  }));
`;

interface ProbeResult {
  exports: string[];
  testingExports: string[];
  pendingWhileLive: number;
  idle: string;
  ceiling: string;
  reasonIsInflightError: boolean;
  pendingAfter: number;
  timeout: string;
  inTime: string;
  resolved: string;
}

function runProbe(kind: 'esm' | 'cjs'): ProbeResult {
  const args =
    kind === 'esm'
      ? [
          '--input-type=module',
          '-e',
          `const load = (name) => import(name);\nconst where = (name) => import.meta.resolve(name);\n${PROBE}`,
        ]
      : // Without require(esm) (Node < 20.19, or turned off), requiring ESM-only p-timeout would throw:
        // the CJS build must carry its own copy for withTimeout to work.
        [
          '--no-experimental-require-module',
          '--input-type=commonjs',
          '-e',
          `const load = async (name) => require(name);\nconst where = (name) => require.resolve(name);\n(async () => {${PROBE}})().catch((e) => { console.error(e); process.exit(1); });`,
        ];
  const child = spawnSync(process.execPath, args, { cwd: coreDir, encoding: 'utf8', timeout: 20_000 });
  if (child.status !== 0) throw new Error(`node (${kind}) exited ${child.status}:\n${child.stderr}`);
  return JSON.parse(child.stdout.trim().split('\n').at(-1)!) as ProbeResult;
}

const REQUIRED_EXPORTS = [
  'DeadlineController',
  'DuplicateTokenError',
  'EraCancelPolicy',
  'InflightError',
  'ProgressRelay',
  'REVISIONS',
  'TokenRegistry',
  'eraCancelPolicy',
  'revisionOf',
  'systemClock',
  'withTimeout',
];

describe.each(['esm', 'cjs'] as const)('@mcp-inflight/core from %s', (kind) => {
  let result: ProbeResult;
  beforeAll(() => {
    ensureBuilt();
    result = runProbe(kind);
  }, 120_000);

  it('resolves to the built files of packages/core itself', () => {
    const resolved = result.resolved.startsWith('file:') ? fileURLToPath(result.resolved) : result.resolved;
    expect(relative(coreDir, resolved)).toBe(
      kind === 'esm' ? join('dist', 'index.js') : join('dist', 'index.cjs'),
    );
  });

  it('exports the same names as src/index.ts, including the required ones', () => {
    expect(result.exports).toEqual(Object.keys(source).sort());
    for (const name of REQUIRED_EXPORTS) expect(result.exports).toContain(name);
  });

  it('exports ManualClock, and only test helpers, from /testing', () => {
    expect(result.testingExports).toEqual(Object.keys(sourceTesting).sort());
    expect(result.testingExports).toContain('ManualClock');
    expect(result.exports).not.toContain('ManualClock');
  });

  it('runs DeadlineController: one armed timer, IDLE_TIMEOUT and CEILING as InflightError, nothing left over', () => {
    expect(result.pendingWhileLive).toBe(1);
    expect([result.idle, result.ceiling, result.reasonIsInflightError]).toEqual([
      'IDLE_TIMEOUT',
      'CEILING',
      true,
    ]);
    expect(result.pendingAfter).toBe(0);
  });

  it('runs withTimeout (p-timeout inside): CEILING on the clock, the value in time', () => {
    expect([result.timeout, result.inTime]).toEqual(['CEILING', 'ok']);
  });
});

describe('platform neutrality', () => {
  const builtins = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));
  const specifiers = (text: string): string[] =>
    [
      ...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|^\s*import\s+)['"]([^'"]+)['"]/gm),
    ].map((m) => m[1]!);

  it('no file in core/src imports a Node built-in (node:* or bare)', () => {
    const offenders = sourceFiles.flatMap((file) =>
      specifiers(readFileSync(file, 'utf8'))
        .filter((s) => s.startsWith('node:') || builtins.has(s))
        .map((s) => `${relative(coreDir, file)}: ${s}`),
    );
    expect(offenders).toEqual([]);
    expect(sourceFiles.length).toBeGreaterThan(10);
  });

  it('the built output imports no Node built-in and no p-timeout from CJS', () => {
    ensureBuilt();
    for (const file of ['index.js', 'index.cjs', 'testing.js', 'testing.cjs']) {
      const imported = specifiers(readFileSync(join(coreDir, 'dist', file), 'utf8'));
      expect(imported.filter((s) => s.startsWith('node:') || builtins.has(s))).toEqual([]);
      if (file.endsWith('.cjs')) expect(imported).not.toContain('p-timeout');
    }
  });
});

describe('one InflightError across the CJS and ESM builds in one process', () => {
  interface DualResult {
    distinctClasses: boolean;
    cjsFile: string;
    esmIsCjs: boolean;
    cjsIsEsm: boolean;
    esmInstanceofCjs: boolean;
    cjsInstanceofEsm: boolean;
    fromKeepsForeign: boolean;
    lookalike: boolean;
    plainError: boolean;
    nullish: boolean;
    subclassOwn: boolean;
    subclassOfOther: boolean;
  }
  let result: DualResult;
  beforeAll(() => {
    ensureBuilt();
    const script = `
      import { createRequire } from 'node:module';
      import * as esm from '@mcp-inflight/core';
      const require = createRequire(import.meta.url);
      const cjs = require('@mcp-inflight/core');
      const fromEsm = esm.InflightError.ceiling(50);
      const fromCjs = new cjs.InflightError('DISCONNECTED');
      class Special extends esm.InflightError {}
      console.log(JSON.stringify({
        distinctClasses: esm.InflightError !== cjs.InflightError,
        cjsFile: require.resolve('@mcp-inflight/core'),
        esmIsCjs: esm.InflightError.is(fromCjs),
        cjsIsEsm: cjs.InflightError.is(fromEsm),
        esmInstanceofCjs: fromEsm instanceof cjs.InflightError,
        cjsInstanceofEsm: fromCjs instanceof esm.InflightError,
        fromKeepsForeign: esm.InflightError.from(fromCjs) === fromCjs,
        lookalike: esm.InflightError.is({ name: 'InflightError', code: 'CEILING', message: 'x' }),
        plainError: new Error('x') instanceof esm.InflightError,
        nullish: esm.InflightError.is(null) || esm.InflightError.is(undefined),
        subclassOwn: new Special('SHUTDOWN') instanceof Special,
        subclassOfOther: fromCjs instanceof Special,
      }));`;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: coreDir,
      encoding: 'utf8',
      timeout: 20_000,
    });
    if (child.status !== 0) throw new Error(`node exited ${child.status}:\n${child.stderr}`);
    result = JSON.parse(child.stdout.trim().split('\n').at(-1)!) as DualResult;
  }, 120_000);

  it('loads two distinct classes, from dist/index.js and dist/index.cjs', () => {
    expect(result.distinctClasses).toBe(true);
    expect(relative(coreDir, result.cjsFile)).toBe(join('dist', 'index.cjs'));
  });

  it('InflightError.is and instanceof recognise an error of the other build, both ways', () => {
    expect([result.esmIsCjs, result.cjsIsEsm, result.esmInstanceofCjs, result.cjsInstanceofEsm]).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(result.fromKeepsForeign).toBe(true);
  });

  it('a lookalike object, a plain Error or null is not one; a subclass keeps its own instanceof', () => {
    expect([result.lookalike, result.plainError, result.nullish]).toEqual([false, false, false]);
    expect([result.subclassOwn, result.subclassOfOther]).toEqual([true, false]);
  });
});

describe('@mcp-inflight/core/schemas', () => {
  it('exports the zod schemas, which the main entry no longer carries', async () => {
    ensureBuilt();
    const schemas = await import('../src/schemas.js');
    const child = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const s = await import('@mcp-inflight/core/schemas');
         console.log(JSON.stringify({ names: Object.keys(s).sort(), ok: s.progressTokenSchema.safeParse(1.5).success }));`,
      ],
      { cwd: coreDir, encoding: 'utf8', timeout: 20_000 },
    );
    const out = JSON.parse(child.stdout.trim()) as { names: string[]; ok: boolean };
    expect(out.names).toEqual(Object.keys(schemas).sort());
    expect(out.names).toContain('progressParamsSchema');
    expect(out.ok).toBe(false);
    expect(Object.keys(source)).not.toContain('progressParamsSchema');
  });
});
