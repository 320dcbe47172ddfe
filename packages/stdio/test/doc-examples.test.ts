/**
 * Every export of stdio carries TSDoc with an `@example`, and every example compiles against the built
 * package (the checks are shared with core: packages/core/test/support/doc-checks.ts).
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { examplesOf, exportsWithoutExamples, typecheckExamples } from '../../core/test/support/doc-checks.js';

const stdioDir = join(dirname(fileURLToPath(import.meta.url)), '..');

describe('TSDoc examples', () => {
  const examples = examplesOf(stdioDir);

  it('finds the examples: at least one per export', () => {
    expect(examples.length).toBeGreaterThanOrEqual(30);
  });

  it('every export of the entry point has TSDoc with an @example', () => {
    const entries = [join(stdioDir, 'src', 'index.ts')];
    expect(
      exportsWithoutExamples(stdioDir, entries),
      'exports without TSDoc, or without a ```ts @example',
    ).toEqual({
      noDoc: [],
      noExample: [],
    });
  });

  it('every example type-checks against the built package', () => {
    expect(typecheckExamples(stdioDir, examples, { types: ['node'] })).toBe('');
  }, 60_000);
});
