/**
 * zod is an optional peer: only `@mcp-inflight/core/schemas` and `@mcp-inflight/server`'s root (the tool layer) load it, so an
 * app that imports any other entry runs with no zod installed. Checked on the built package in real node
 * child processes, for ESM (a resolve hook that refuses zod, as an app without it would) and CJS
 * (require.cache), each with a control that proves the check can fail.
 */
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../../core/test/support/ensure-built.js';
import { importWithoutZod } from '../../core/test/support/refuse-zod.js';

// From server's folder every package resolves: core and server, and client (a dev dependency).
const serverDir = join(dirname(fileURLToPath(import.meta.url)), '..');

function requiredZodFiles(entry: string): number {
  const script = `require(${JSON.stringify(entry)});
    console.log(Object.keys(require.cache).filter((f) => /[\\\\/]zod[\\\\/]/.test(f)).length);`;
  const out = execFileSync(process.execPath, ['--input-type=commonjs', '-e', script], {
    cwd: serverDir,
    encoding: 'utf8',
  });
  return Number(out.trim());
}

const WITHOUT_ZOD = [
  '@mcp-inflight/core',
  '@mcp-inflight/core/adapter',
  '@mcp-inflight/core/testing',
  '@mcp-inflight/client',
  '@mcp-inflight/client/tasks',
  '@mcp-inflight/client/input',
  '@mcp-inflight/server/tasks',
  '@mcp-inflight/server/input',
  '@mcp-inflight/server/listen',
  '@mcp-inflight/server/stats',
  '@mcp-inflight/server/testing',
];
const WITH_ZOD = ['@mcp-inflight/core/schemas', '@mcp-inflight/server'];

describe('zod stays off every entry but core/schemas and the tool layer', () => {
  beforeAll(() => {
    ensureBuilt();
  }, 120_000);

  it.each(WITHOUT_ZOD)('ESM: importing %s resolves no zod module', (entry) => {
    expect(importWithoutZod(entry, serverDir)).toEqual({ status: 0, stderr: '' });
  });

  it.each(WITH_ZOD)('ESM control: importing %s is refused by the same hook', (entry) => {
    const result = importWithoutZod(entry, serverDir);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain('zod loaded from');
  });

  it('CJS: requiring the entries without zod loads no zod file; core/schemas and server do', () => {
    for (const entry of WITHOUT_ZOD) expect(requiredZodFiles(entry), entry).toBe(0);
    for (const entry of WITH_ZOD) expect(requiredZodFiles(entry), entry).toBeGreaterThan(0);
  });
});
