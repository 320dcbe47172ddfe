import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The built package, as a consumer loads it (run `npx tsup` in packages/stdio first): ESM and CJS
// expose the same names, and both resolve core to the one shared copy rather than bundling it.

const DIST = fileURLToPath(new URL('../dist/', import.meta.url));
const PUBLIC = [
  'DEFAULT_MAX_IN_FLIGHT',
  'DEFAULT_MAX_LINE_BYTES',
  'DEFAULT_MAX_QUEUED_BYTES',
  'DEFAULT_MAX_UNSENT_BYTES',
  'DEFAULT_RESULT_GAP_MS',
  'DEFAULT_UNSENT_STALL_MS',
  'OVERLOADED_ERROR_CODE',
  'QUEUED_REQUEST_OVERHEAD_BYTES',
  'LineFramer',
  'LineWriter',
  'connectStdio',
  'parseCommandLine',
  'readLines',
  'serveStdio',
  'spawnStdio',
];

describe('@mcp-inflight/stdio as built', () => {
  it('exposes the same public names from ESM and CJS, and no others', async () => {
    expect(existsSync(`${DIST}index.js`)).toBe(true);
    const esm = await import(`${DIST}index.js`);
    const cjs = createRequire(import.meta.url)(`${DIST}index.cjs`);
    expect(Object.keys(esm).sort()).toEqual([...PUBLIC].sort());
    expect(Object.keys(cjs).sort()).toEqual([...PUBLIC].sort());
  });

  it('keeps @mcp-inflight/core external, so there is one copy of each core class', async () => {
    const { readFile } = await import('node:fs/promises');
    const esm = await readFile(`${DIST}index.js`, 'utf8');
    const cjs = await readFile(`${DIST}index.cjs`, 'utf8');
    expect(esm).toMatch(/from ["']@mcp-inflight\/core["']/);
    expect(cjs).toMatch(/require\(["']@mcp-inflight\/core["']\)/);
    expect(esm).not.toMatch(/class Endpoint\b/);
  });
});
