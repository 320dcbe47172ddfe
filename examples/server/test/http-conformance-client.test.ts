// @modelcontextprotocol/conformance 0.2.0-alpha.12 (installed as `conformance-alpha`), client scenarios on
// 2026-07-28, against HttpClient (the client in test/fixtures/conformance-client.mjs): custom headers from
// tool parameters (SEP-2243). Each scenario's checks.json is read check by check: every id listed must be
// reported and succeed, and no other id may appear, so a regression or a new check fails this file. The
// CLI imports `globSync` from `fs` (Node 22+), so it runs with the preload in packages/http/test/conformance.
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const CLI = createRequire(import.meta.url).resolve('conformance-alpha/dist/index.js');
const PRELOAD = fileURLToPath(
  new URL('../../../packages/http/test/conformance/register-fs-glob.mjs', import.meta.url),
);
const CLIENT = fileURLToPath(new URL('./fixtures/conformance-client.mjs', import.meta.url));

interface Check {
  id: string;
  status: string;
  errorMessage?: string;
}

/** Runs one client scenario; resolves to its checks. */
async function runClientScenario(scenario: string): Promise<Check[]> {
  const outputDir = await mkdtemp(join(tmpdir(), 'mcp-inflight-conformance-client-'));
  try {
    const argv = ['--import', PRELOAD, CLI, 'client', '--command', `"${process.execPath}" "${CLIENT}"`];
    argv.push('--scenario', scenario, '--spec-version', '2026-07-28', '-o', outputDir);
    const output = await new Promise<string>((resolve) =>
      execFile(process.execPath, argv, { timeout: 120_000 }, (_error, stdout, stderr) =>
        resolve(`${stdout}\n${stderr}`),
      ),
    );
    const [dir] = await readdir(outputDir);
    if (!dir) throw new Error(`no results from ${scenario}:\n${output}`);
    return JSON.parse(await readFile(join(outputDir, dir, 'checks.json'), 'utf8')) as Check[];
  } finally {
    await rm(outputDir, { recursive: true, force: true });
  }
}

const SCENARIOS: Record<string, { ids: string[]; count: number }> = {
  // Mcp-Param-* mirrored at each annotated path: plain, integer, boolean, Base64 when unsafe, null omitted.
  'http-custom-headers': {
    ids: [
      'sep-2243-client-supports-custom-headers',
      'sep-2243-client-mirrors-designated-params',
      'sep-2243-client-encode-values',
      'sep-2243-client-base64-unsafe',
      'sep-2243-client-omit-null',
    ],
    count: 18,
  },
  // Tools with invalid x-mcp-header annotations are excluded from tools/list, the valid one kept.
  'http-invalid-tool-headers': {
    ids: [
      'sep-2243-client-reject-invalid-tool',
      'sep-2243-x-mcp-header-not-empty',
      'sep-2243-x-mcp-header-primitive-only',
      'sep-2243-x-mcp-header-unique',
      'sep-2243-x-mcp-header-charset',
    ],
    count: 12,
  },
};

describe('conformance 0.2.0-alpha.12 client scenarios on 2026-07-28: HttpClient', () => {
  for (const [scenario, { ids, count }] of Object.entries(SCENARIOS)) {
    it(scenario, async () => {
      const checks = await runClientScenario(scenario);
      for (const id of ids)
        expect(
          checks.some((c) => c.id === id),
          `${id} was not reported`,
        ).toBe(true);
      const failing = checks
        .filter((c) => c.status !== 'SUCCESS' || !ids.includes(c.id))
        .map((c) => `${c.id} ${c.status} ${c.errorMessage ?? ''}`);
      expect(failing).toEqual([]);
      expect(checks).toHaveLength(count);
    }, 150_000);
  }
});
