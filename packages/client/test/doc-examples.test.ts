/**
 * Every export of client carries TSDoc with an `@example`, and every example compiles against the built
 * package (the checks are shared with core: packages/core/test/support/doc-checks.ts).
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { examplesOf, exportsWithoutExamples, typecheckExamples } from '../../core/test/support/doc-checks.js';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');

describe('TSDoc examples', () => {
  const examples = examplesOf(packageDir);

  it('finds the examples: at least one per export', () => {
    expect(examples.length).toBeGreaterThanOrEqual(15);
  });

  it('every export of the entry points has TSDoc with an @example', () => {
    const entries = ['index.ts', 'tasks.ts', 'input.ts'].map((file) => join(packageDir, 'src', file));
    expect(
      exportsWithoutExamples(packageDir, entries),
      'exports without TSDoc, or without a ```ts @example',
    ).toEqual({
      noDoc: [],
      noExample: [],
    });
  });

  it('every example type-checks against the built package', () => {
    expect(typecheckExamples(packageDir, examples)).toBe('');
  }, 60_000);
});
