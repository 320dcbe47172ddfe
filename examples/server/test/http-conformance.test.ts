// @modelcontextprotocol/conformance 0.1.16 server scenarios against `examples/server --http 0 --conformance`,
// the whole suite in one CLI run, one test per scenario (every judged check must pass). The CLI imports `globSync` from `fs` (Node 22+), so it runs with the preload in
// packages/http/test/conformance on Node 20.
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
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
  'dns-rebinding-protection',
  // The rest of the suite's fixtures, on createServer (conformance-content.ts).
  'logging-set-level',
  'completion-complete',
  'tools-call-image',
  'tools-call-audio',
  'tools-call-embedded-resource',
  'tools-call-mixed-content',
  'tools-call-with-logging',
  'tools-call-sampling',
  'tools-call-elicitation',
  'json-schema-2020-12',
  'elicitation-sep1034-defaults',
  'elicitation-sep1330-enums',
  'resources-list',
  'resources-read-text',
  'resources-read-binary',
  'resources-templates-read',
  'resources-subscribe',
  'resources-unsubscribe',
  'prompts-list',
  'prompts-get-simple',
  'prompts-get-with-args',
  'prompts-get-embedded-resource',
  'prompts-get-with-image',
];

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  errorMessage?: string;
}

/** Scenarios whose checks are INFO only (the suite reports, it does not judge): run, never failed. */
const INFO_ONLY = ['server-sse-polling'];

/**
 * One CLI process runs the whole suite (`--suite all`, its scenarios in parallel, far faster than a
 * process per scenario on a loaded machine); the checks are read per scenario from the directories it
 * wrote (`server-<scenario>-<timestamp>`).
 */
async function runSuite(url: string, outputDir: string): Promise<Map<string, Check[]>> {
  const args = ['--import', PRELOAD, CLI, 'server', '--url', url, '--suite', 'all', '-o', outputDir];
  // 240 s: a hung CLI, not a slow one (the suite's scenarios share a loaded 2-core machine).
  const output = await new Promise<string>((resolve) =>
    execFile(process.execPath, args, { timeout: 240_000 }, (_error, stdout, stderr) =>
      resolve(`${stdout}\n${stderr}`),
    ),
  );
  const found = new Map<string, Check[]>();
  for (const dir of await readdir(outputDir)) {
    const scenario = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\dZ-]+$/.exec(dir)?.[1];
    if (!scenario) throw new Error(`unexpected output ${dir}:\n${output}`);
    found.set(scenario, JSON.parse(await readFile(join(outputDir, dir, 'checks.json'), 'utf8')) as Check[]);
  }
  if (found.size === 0) throw new Error(`no checks.json from ${args.join(' ')}:\n${output}`);
  return found;
}

describe('@modelcontextprotocol/conformance 0.1.16 server scenarios', () => {
  let server: SpawnedServer;
  let outputDir: string;
  let results: Map<string, Check[]>;

  beforeAll(async () => {
    server = await spawnExampleServer(['--conformance']);
    outputDir = await mkdtemp(join(tmpdir(), 'mcp-inflight-conformance-'));
    results = await runSuite(server.url, outputDir);
  }, 300_000);

  afterAll(async () => {
    await server?.stop();
    if (outputDir) await rm(outputDir, { recursive: true, force: true });
  });

  for (const scenario of [...SCENARIOS, ...INFO_ONLY]) {
    it(scenario, () => {
      const checks = results.get(scenario);
      expect(checks, `${scenario} was not run (ran: ${[...results.keys()].join(', ')})`).toBeDefined();
      const judged = checks!.filter((c) => c.status !== 'INFO');
      if (!INFO_ONLY.includes(scenario))
        expect(judged.length, `${scenario} judged nothing`).toBeGreaterThan(0);
      for (const check of judged)
        expect(check.status, `${check.id}: ${check.errorMessage ?? ''}`).toBe('SUCCESS');
    });
  }

  it('runs no scenario this file does not assert', () => {
    const asserted = new Set([...SCENARIOS, ...INFO_ONLY]);
    expect([...results.keys()].filter((scenario) => !asserted.has(scenario))).toEqual([]);
  });
});
