// @modelcontextprotocol/conformance 0.1.16 server scenarios against `examples/server --http 0 --conformance`,
// one scenario per test. The CLI imports `globSync` from `fs` (Node 22+), so it runs with the preload in
// packages/http/test/conformance on Node 20.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SpawnedServer, spawnExampleServer } from './fixtures/spawn-example.js';

const HTTP_PACKAGE = fileURLToPath(new URL('../../../packages/http/', import.meta.url));
const CLI = createRequire(join(HTTP_PACKAGE, 'package.json')).resolve(
  '@modelcontextprotocol/conformance/dist/index.js',
);
const PRELOAD = join(HTTP_PACKAGE, 'test/conformance/register-fs-glob.mjs');

const SCENARIOS = [
  'server-initialize',
  'ping',
  'tools-list',
  'tools-call-simple-text',
  'tools-call-error',
  'tools-call-with-progress',
  'server-sse-multiple-streams',
];

function runScenario(
  url: string,
  scenario: string,
  outputDir: string,
): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const args = ['--import', PRELOAD, CLI, 'server', '--url', url, '--scenario', scenario, '-o', outputDir];
    // 120 s: a hung CLI, not a slow one (20 s was reached beside other suites on a 2-core machine).
    execFile(process.execPath, args, { timeout: 120_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, output: `${stdout}\n${stderr}` });
    });
  });
}

describe('@modelcontextprotocol/conformance 0.1.16 server scenarios', () => {
  let server: SpawnedServer;
  let outputDir: string;

  beforeAll(async () => {
    server = await spawnExampleServer(['--conformance']);
    outputDir = await mkdtemp(join(tmpdir(), 'mcp-inflight-conformance-'));
  });

  afterAll(async () => {
    await server?.stop();
    if (outputDir) await rm(outputDir, { recursive: true, force: true });
  });

  for (const scenario of SCENARIOS) {
    it(scenario, async () => {
      const { code, output } = await runScenario(server.url, scenario, outputDir);
      expect(output).toMatch(/Passed: (\d+)\/\1, 0 failed/);
      expect(code, output).toBe(0);
    }, 150_000);
  }
});
