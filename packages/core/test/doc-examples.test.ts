/**
 * Every export of core carries TSDoc with an `@example`, and every example compiles: the ```ts blocks are
 * cut out of the doc comments and type-checked against the built package, imported by name.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { examplesOf, exportsWithoutExamples, typecheckExamples } from './support/doc-checks.js';

const coreDir = join(dirname(fileURLToPath(import.meta.url)), '..');

describe('TSDoc examples', () => {
  const examples = examplesOf(coreDir);

  it('finds the examples: at least one per export', () => {
    expect(examples.length).toBeGreaterThanOrEqual(65);
  });

  it('every export of the entry points has TSDoc with an @example', () => {
    const entries = ['index.ts', 'testing.ts', 'schemas.ts'].map((file) => join(coreDir, 'src', file));
    expect(
      exportsWithoutExamples(coreDir, entries),
      'exports without TSDoc, or without a ```ts @example',
    ).toEqual({
      noDoc: [],
      noExample: [],
    });
  });

  it('every example type-checks against the built package', () => {
    expect(typecheckExamples(coreDir, examples)).toBe('');
  }, 60_000);
});
