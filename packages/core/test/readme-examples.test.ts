/**
 * Every ```ts block of every package README type-checks against the built packages, imported by name as a
 * user imports them (the sdk's README is checked in packages/sdk/test/packaging.test.ts, with its examples).
 * A block that uses a value it does not make (a server, a signal) declares it (`declare const`), so the
 * snippet says what it assumes. Each README is checked inside its own package, whose dependencies resolve
 * (client's README sees core and client; server's sees core, client, a dev dependency, and server).
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { examplesIn, typecheckExamples } from './support/doc-checks.js';

const packages = join(dirname(fileURLToPath(import.meta.url)), '../..');

describe.each(['core', 'client', 'server', 'stdio', 'http', 'proxy'])('packages/%s/README.md', (name) => {
  const dir = join(packages, name);
  const blocks = examplesIn(readFileSync(join(dir, 'README.md'), 'utf8'), true).map((code, i) => ({
    name: `${name}/README.md#${i}`,
    code,
  }));

  it('has ```ts blocks, and every one type-checks against the built packages', () => {
    expect(blocks.length).toBeGreaterThan(0);
    expect(typecheckExamples(dir, blocks, { types: ['node'], dirName: '.readme-examples' })).toBe('');
  }, 120_000);
});
