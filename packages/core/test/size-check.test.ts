/**
 * The bundle-size check that `pnpm check` runs (bench/size.mjs) passes within the budgets and fails when a
 * bundle is over its budget (shown by shrinking every budget), and keeps zod out of every bundle of ours.
 */
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, expect, it } from 'vitest';
import { ensureBuilt } from './support/ensure-built.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const run = (...args: string[]) =>
  spawnSync(process.execPath, [join(root, 'bench/size.mjs'), ...args], {
    encoding: 'utf8',
    timeout: 120_000,
  });

beforeAll(() => ensureBuilt(), 120_000);

it('prints the table, every budget met, no zod in our bundles, the SDK Client beside them', () => {
  const result = run();
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  const rows = result.stdout.split('\n');
  for (const entry of ['primitives', 'Endpoint', 'HttpClient']) {
    const row = rows.find((line) => line.startsWith(entry));
    expect(row, entry).toMatch(/ no$/);
  }
  expect(rows.some((line) => line.startsWith('official SDK v1 Client'))).toBe(true);
}, 120_000);

it('fails, naming the bundles, when they are over budget', () => {
  const result = run('--budget-scale', '0.1');
  expect(result.status).toBe(1);
  expect(result.stdout).toContain('OVER BUDGET');
  expect(result.stderr).toMatch(/^size: [1-9]\d* bundle\(s\) over budget/m);
}, 120_000);
