/**
 * The main entry never loads zod: only `@mcp-inflight/core/schemas` does. Checked on the built package in
 * real node child processes, for ESM (a resolve hook that refuses zod) and CJS (require.cache), each with a
 * control that proves the check can fail.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from './support/ensure-built.js';

const coreDir = join(dirname(fileURLToPath(import.meta.url)), '..');

// Registered off-thread with node:module's register(): any resolution that lands in zod throws.
const REFUSE_ZOD_HOOK = `export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (/[\\\\/]zod[\\\\/]/.test(resolved.url)) throw new Error('zod loaded from ' + context.parentURL);
  return resolved;
}`;

function importWithoutZod(entry: string): { status: number | null; stderr: string } {
  const script = `
    import { register } from 'node:module';
    register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(REFUSE_ZOD_HOOK)}));
    const mod = await import(${JSON.stringify(entry)});
    if (Object.keys(mod).length === 0) process.exit(3);`;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: coreDir,
    encoding: 'utf8',
    timeout: 20_000,
  });
  return { status: child.status, stderr: child.stderr };
}

function requiredZodFiles(entry: string): number {
  const script = `require(${JSON.stringify(entry)});
    console.log(Object.keys(require.cache).filter((f) => /[\\\\/]zod[\\\\/]/.test(f)).length);`;
  const out = execFileSync(process.execPath, ['--input-type=commonjs', '-e', script], {
    cwd: coreDir,
    encoding: 'utf8',
  });
  return Number(out.trim());
}

describe('zod stays off the main entry', () => {
  beforeAll(() => {
    ensureBuilt();
  }, 120_000);

  it('ESM: importing @mcp-inflight/core resolves no zod module', () => {
    expect(importWithoutZod('@mcp-inflight/core')).toEqual({ status: 0, stderr: '' });
  });

  it('ESM control: importing @mcp-inflight/core/schemas is refused by the same hook', () => {
    const result = importWithoutZod('@mcp-inflight/core/schemas');
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain('zod loaded from');
  });

  it('CJS: requiring @mcp-inflight/core loads no zod file; /schemas does', () => {
    expect(requiredZodFiles('@mcp-inflight/core')).toBe(0);
    expect(requiredZodFiles('@mcp-inflight/core/schemas')).toBeGreaterThan(0);
  });
});
