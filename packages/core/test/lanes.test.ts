/**
 * The test lanes cannot shrink silently (.config/vitest.lanes.ts): every pattern a lane lists matches at
 * least one file, so a test that moves makes this fail instead of leaving a lane with a glob that matches
 * nothing; and `test:fast` leaves out only files that `pnpm test` runs.
 */
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ALL, FAST, FAST_EXCLUDE, SERVICES } from '../../../.config/vitest.lanes.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name.startsWith('.')) return [];
    const path = join(dir, entry.name);
    return entry.isDirectory() ? files(path) : [relative(root, path)];
  });
}

/** The glob forms the lanes use: `**` (any folders), `*` (within a name) and `{a,b}` (alternatives). */
function globToRegExp(glob: string): RegExp {
  let source = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] as string;
    if (glob.startsWith('**/', i)) {
      source += '(?:.*/)?';
      i += 2;
    } else if (c === '*') source += '[^/]*';
    else if (c === '{') {
      const end = glob.indexOf('}', i);
      source += `(?:${glob
        .slice(i + 1, end)
        .split(',')
        .map((part) => part.replace(/[.+?^$()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*'))
        .join('|')})`;
      i = end;
    } else source += c.replace(/[.+?^$()|[\]\\/]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}

const all = [...files(join(root, 'packages')), ...files(join(root, 'examples'))];
const matching = (glob: string) => all.filter((file) => globToRegExp(glob).test(file));

describe('test lanes', () => {
  it('reads the glob forms the lanes use', () => {
    expect(globToRegExp('packages/*/test/{a,b}.test.ts').test('packages/core/test/b.test.ts')).toBe(true);
    expect(globToRegExp('**/x.test.ts').test('packages/core/test/x.test.ts')).toBe(true);
    expect(globToRegExp('**/x.test.ts').test('x.test.ts')).toBe(true);
    expect(globToRegExp('packages/*/src/**/*.test.ts').test('packages/core/src/a/b/c.test.ts')).toBe(true);
    expect(globToRegExp('http-conformance{,-alpha}.test.ts').test('http-conformance.test.ts')).toBe(true);
    expect(globToRegExp('packages/*/test/a.test.ts').test('packages/core/test/sub/a.test.ts')).toBe(false);
  });

  it.each([...new Set([...ALL, ...FAST, ...SERVICES, ...FAST_EXCLUDE])])(
    '%s matches at least one file',
    (glob) => {
      expect(matching(glob).length).toBeGreaterThan(0);
    },
  );

  it('every alternative of a {a,b} pattern names a file', () => {
    for (const glob of FAST_EXCLUDE) {
      const braces = /\{([^}]*)\}/.exec(glob);
      if (!braces) continue;
      for (const part of (braces[1] ?? '').split(','))
        expect(matching(glob.replace(braces[0], part)).length, glob.replace(braces[0], part)).toBeGreaterThan(
          0,
        );
    }
  });

  it('test:fast leaves out only tests that pnpm test runs, and takes every package', () => {
    const inAll = (file: string) => ALL.some((glob) => globToRegExp(glob).test(file));
    for (const glob of FAST_EXCLUDE) for (const file of matching(glob)) expect(inAll(file), file).toBe(true);
    const fast = all.filter(
      (file) =>
        FAST.some((glob) => globToRegExp(glob).test(file)) &&
        !FAST_EXCLUDE.some((glob) => globToRegExp(glob).test(file)) &&
        !SERVICES.some((glob) => globToRegExp(glob).test(file)),
    );
    const packageOf = (file: string) => file.split('/').slice(0, 2).join('/');
    const covered = new Set(fast.map(packageOf));
    // Every package with a test outside the services lane has one in test:fast.
    const tested = all.filter(
      (file) =>
        file.startsWith('packages/') && inAll(file) && !SERVICES.some((g) => globToRegExp(g).test(file)),
    );
    for (const pkg of new Set(tested.map(packageOf))) expect(covered.has(pkg), pkg).toBe(true);
  });
});
