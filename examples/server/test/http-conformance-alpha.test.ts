// @modelcontextprotocol/conformance 0.2.0-alpha.12 (installed as `conformance-alpha`) on 2026-07-28,
// against examples/server directly and through examples/proxy in front of a legacy-only upstream (the
// official SDK v1 server in packages/proxy/test/fixtures). Each scenario's checks.json is read check by
// check: every id in `pass` must be there and succeed (an id can occur more than once; all must succeed),
// and every other id the suite reports must be one we know about, with the reason it does not pass, so a
// regression or a new check fails this file. Known failures are listed, never skipped. The CLI imports
// `globSync` from `fs` (Node 22+), so it runs with the preload in packages/http/test/conformance on Node 20.
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandLine, startProxy, V1_FIXTURE } from '../../../packages/proxy/test/procs.js';
import { spawnExampleServer } from './fixtures/spawn-example.js';

const CLI = createRequire(import.meta.url).resolve('conformance-alpha/dist/index.js');
const PRELOAD = fileURLToPath(
  new URL('../../../packages/http/test/conformance/register-fs-glob.mjs', import.meta.url),
);
const SPEC_VERSION = '2026-07-28';

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  errorMessage?: string;
}

/** What one scenario must show: ids that pass, and ids that do not, each with why. */
interface Expectation {
  pass: string[];
  known: Record<string, string>;
}

const NOT_SERVED = {
  diagnosticTool: 'needs a suite diagnostic tool (test_missing_capability, ...) the upstream does not serve',
  promptsListChanged:
    'skipped by the suite: the upstream has no prompts, so prompts.listChanged is not declared',
  promptsResources: 'the SDK v1 upstream serves no prompts or resources (-32601), so no cache hints',
};

const STATELESS_PASS = [
  'sep-2575-request-meta-invalid-missing-meta',
  'sep-2575-http-server-meta-invalid-400',
  'sep-2575-request-meta-invalid-missing-protocol-version',
  'sep-2575-request-meta-invalid-missing-client-capabilities',
  'sep-2575-request-meta-client-info-optional',
  'sep-2575-server-implements-discover',
  'sep-2575-server-identifies-in-result-meta',
  'sep-2575-server-declares-prompts-in-discover',
  'sep-2575-discover-capabilities-match-handlers',
  'sep-2575-server-unsupported-version-error',
  'sep-2575-http-server-unsupported-version-400',
  'sep-2575-http-server-header-mismatch-400',
  'sep-2575-http-server-method-not-found-404-ping',
  'sep-2575-http-server-method-not-found-404-initialize',
  'sep-2575-http-server-method-not-found-404-logging-setlevel',
  'sep-2575-http-server-method-not-found-404-resources-subscribe',
  'sep-2575-http-server-method-not-found-404-resources-unsubscribe',
  'sep-2575-http-server-method-not-found-404',
  'sep-2575-http-server-error-jsonrpc-id',
];

const STATELESS_KNOWN = {
  'sep-2575-server-rejects-undeclared-capability': NOT_SERVED.diagnosticTool,
  'sep-2575-missing-capability-http-400': NOT_SERVED.diagnosticTool,
};

/** Scenarios that need no tool of the suite's, so they run the same directly and through the proxy. */
const COMMON: Record<string, Expectation> = {
  'tools-list': {
    pass: ['tools-list', 'tools-name-format', 'tools-list-deterministic-order', 'wire-schema-valid'],
    known: {},
  },
  'http-header-validation': {
    pass: [
      'sep-2243-server-reject-invalid-headers',
      'sep-2243-server-reject-error-code',
      'sep-2243-server-accepts-whitespace-header-value',
      'sep-2243-header-name-case-insensitive',
      'wire-schema-valid',
    ],
    known: {},
  },

  'dns-rebinding-protection': {
    pass: ['localhost-host-rebinding-rejected', 'localhost-host-valid-accepted'],
    known: {},
  },
  'server-sse-multiple-streams': {
    pass: ['server-accepts-multiple-post-streams'],
    known: { 'server-sse-streams-functional': 'INFO only: the suite reports, it does not judge' },
  },
};

/** examples/server serves listen streams (its conformance tools change the tool list and say so). */
const LISTEN_PASS = [
  'sep-2575-server-sends-subscription-ack',
  'sep-2575-server-tags-subscription-id',
  'sep-2575-server-honors-notification-filter',
  'sep-2575-server-sends-tools-list-changed-on-subscription',
];

const DIRECT: Record<string, Expectation> = {
  // The diagnostic tools (test_missing_capability, test_streaming_elicitation, test_logging_tool) and
  // test_trigger_prompt_change are served with `--conformance` (conformance-content.ts).
  'server-stateless': {
    pass: [
      ...STATELESS_PASS,
      ...LISTEN_PASS,
      'sep-2575-server-rejects-undeclared-capability',
      'sep-2575-missing-capability-http-400',
      'sep-2575-http-server-no-independent-requests-on-stream',
      'sep-2575-server-no-log-without-loglevel',
      'sep-2575-server-sends-prompts-list-changed-on-subscription',
    ],
    known: {},
  },
  ...COMMON,
  // A tool with an x-mcp-header parameter (conformance-headers.ts): its Mcp-Param-Region header is checked
  // against the body before the tool runs.
  'http-custom-header-server-validation': {
    pass: [
      'sep-2243-server-decode-base64',
      'sep-2243-server-validate-param-match',
      'sep-2243-server-reject-invalid-param-chars',
      'sep-2243-server-reject-param-mismatch',
      'wire-schema-valid',
    ],
    known: {},
  },
  // Prompts and resources on the tool layer (createServer), with their cache hints.
  caching: {
    pass: [
      'sep-2549-tools-list-caching-hints',
      'sep-2549-prompts-list-caching-hints',
      'sep-2549-resources-list-caching-hints',
      'sep-2549-resources-templates-list-caching-hints',
      'sep-2549-resources-read-caching-hints',
      'sep-2549-ttl-non-negative',
      'sep-2549-cache-scope-valid',
      'wire-schema-valid',
    ],
    known: {},
  },
  'sep-2164-resource-not-found': {
    pass: ['sep-2164-no-empty-contents', 'sep-2164-error-code', 'sep-2164-data-uri', 'wire-schema-valid'],
    known: {},
  },
  'completion-complete': { pass: ['completion-complete', 'wire-schema-valid'], known: {} },
  'prompts-list': { pass: ['prompts-list', 'wire-schema-valid'], known: {} },
  'prompts-get-simple': { pass: ['prompts-get-simple', 'wire-schema-valid'], known: {} },
  'prompts-get-with-args': { pass: ['prompts-get-with-args', 'wire-schema-valid'], known: {} },
  'prompts-get-embedded-resource': {
    pass: ['prompts-get-embedded-resource', 'wire-schema-valid'],
    known: {},
  },
  'prompts-get-with-image': { pass: ['prompts-get-with-image', 'wire-schema-valid'], known: {} },
  'resources-list': { pass: ['resources-list', 'wire-schema-valid'], known: {} },
  'resources-read-text': { pass: ['resources-read-text', 'wire-schema-valid'], known: {} },
  'resources-read-binary': { pass: ['resources-read-binary', 'wire-schema-valid'], known: {} },
  'resources-templates-read': { pass: ['resources-templates-read', 'wire-schema-valid'], known: {} },
  'tools-call-image': { pass: ['tools-call-image', 'wire-schema-valid'], known: {} },
  'tools-call-audio': { pass: ['tools-call-audio', 'wire-schema-valid'], known: {} },
  'tools-call-embedded-resource': { pass: ['tools-call-embedded-resource', 'wire-schema-valid'], known: {} },
  'tools-call-mixed-content': { pass: ['tools-call-mixed-content', 'wire-schema-valid'], known: {} },
  'json-schema-2020-12': {
    pass: [
      'json-schema-2020-12-tool-found',
      'json-schema-2020-12-$schema',
      'json-schema-2020-12-$defs',
      'json-schema-2020-12-additionalProperties',
      'sep-2106-composition-keywords-preserved',
      'sep-2106-conditional-keywords-preserved',
      'sep-2106-anchor-keyword-preserved',
      'wire-schema-valid',
    ],
    known: {},
  },
  // The tools the suite calls by name are served with `--conformance`.
  'tools-call-simple-text': { pass: ['tools-call-simple-text', 'wire-schema-valid'], known: {} },
  'tools-call-error': { pass: ['tools-call-error', 'wire-schema-valid'], known: {} },
  'tools-call-with-progress': { pass: ['tools-call-with-progress', 'wire-schema-valid'], known: {} },
  // Multi round-trip requests: the fixture tools of conformance-input.ts, on server/input.
  'input-required-result-basic-elicitation': {
    pass: ['sep-2322-elicitation-incomplete', 'sep-2322-elicitation-complete', 'wire-schema-valid'],
    known: {},
  },
  'input-required-result-basic-sampling': {
    pass: ['sep-2322-sampling-incomplete', 'sep-2322-sampling-complete', 'wire-schema-valid'],
    known: {},
  },
  'input-required-result-basic-list-roots': {
    pass: ['sep-2322-list-roots-incomplete', 'sep-2322-list-roots-complete', 'wire-schema-valid'],
    known: {},
  },
  'input-required-result-request-state': {
    pass: ['sep-2322-request-state-incomplete', 'sep-2322-request-state-complete', 'wire-schema-valid'],
    known: {},
  },
  'input-required-result-multiple-input-requests': {
    pass: ['sep-2322-multiple-inputs-incomplete', 'sep-2322-multiple-inputs-complete', 'wire-schema-valid'],
    known: {},
  },
  'input-required-result-multi-round': {
    pass: [
      'sep-2322-multi-round-r1',
      'sep-2322-multi-round-r2',
      'sep-2322-multi-round-r3',
      'wire-schema-valid',
    ],
    known: {},
  },
  'input-required-result-missing-input-response': {
    pass: ['sep-2322-missing-response-rerequests', 'wire-schema-valid'],
    known: {},
  },
  'input-required-result-non-tool-request': {
    pass: ['sep-2322-non-tool-incomplete', 'sep-2322-non-tool-complete', 'wire-schema-valid'],
    known: {},
  },
  'input-required-result-result-type': {
    pass: ['sep-2322-result-type-included', 'wire-schema-valid'],
    known: {},
  },
  'input-required-result-unsupported-methods': {
    pass: ['sep-2322-not-on-unsupported-requests', 'wire-schema-valid'],
    known: {},
  },
  'input-required-result-tampered-state': {
    pass: ['sep-2322-reject-tampered-state', 'wire-schema-valid'],
    known: {},
  },
  'input-required-result-capability-check': {
    pass: ['sep-2322-respect-client-capabilities', 'wire-schema-valid'],
    known: {},
  },
  'input-required-result-ignore-extra-params': {
    pass: ['sep-2322-ignore-unexpected-params', 'wire-schema-valid'],
    known: {},
  },
  'input-required-result-validate-input': {
    pass: ['sep-2322-validate-input-responses', 'sep-2322-error-on-protocol-error', 'wire-schema-valid'],
    known: {},
  },
};

/**
 * The tasks-extension scenarios (examples/server with `--tasks`, the fixture tools of conformance-tasks.ts
 * on server/tasks). The suite lists them for no spec version, so they run on 2026-07-28 with `--force`.
 */
const TASKS: Record<string, Expectation> = {
  'tasks-lifecycle': {
    pass: [
      'tasks-sync-tool-call',
      'sep-2663-result-type-task-on-create',
      'sep-2663-tasks-get-status-working',
      'sep-2663-tasks-get-status-completed',
      'sep-2663-tool-error-uses-completed-status',
      'sep-2663-tasks-get-status-failed',
      'sep-2663-cancel-ack-empty-result',
      'tasks-cancel-terminal-idempotent-ack',
      'wire-schema-valid',
    ],
    known: {},
  },
  'tasks-capability-negotiation': {
    pass: [
      'tasks-extension-advertised',
      'sep-2663-tasks-methods-non-declaring',
      'sep-2663-server-rejects-undeclared-client',
      'tasks-per-request-meta-opt-in',
      'wire-schema-valid',
    ],
    known: {},
  },
  'tasks-wire-fields': {
    pass: [
      'tasks-wire-field-renames',
      'tasks-no-early-ttl-expiry',
      'tasks-no-related-task-meta-on-inlined-result',
      'wire-schema-valid',
    ],
    known: {},
  },
  'tasks-request-state-removal': {
    pass: [
      'tasks-create-result-no-request-state',
      'tasks-get-detailed-no-request-state',
      'wire-schema-valid',
    ],
    known: {},
  },
  'tasks-request-headers': {
    pass: [
      'tasks-headers-tolerate-mcp-method-on-tools-call',
      'sep-2663-routing-headers-accepted-on-tasks-get',
      'tasks-headers-reject-mismatched-method',
      'sep-2663-server-rejects-mismatched-mcp-name-on-tasks-get',
      'wire-schema-valid',
    ],
    known: {},
  },
  'tasks-dispatch-and-envelope': {
    pass: [
      'sep-2663-tasks-result-removed-method-not-found',
      'tasks-removed-tasks-list',
      'tasks-server-directed-creation-no-hint',
      'sep-2663-legacy-task-param-ignored',
      'tasks-immediate-result-shortcut',
      'sep-2663-durable-create-strong-consistency',
      'sep-2663-tasks-get-invalid-task-id-32602',
      'tasks-result-type-complete-on-non-task-responses',
      'wire-schema-valid',
    ],
    known: {},
  },
  // Tasks that ask for input while they wait (confirm_delete, multi_input) [T31-T34].
  'tasks-mrtr-input': {
    pass: [
      'sep-2663-tasks-get-status-input-required',
      'tasks-mrtr-tasks-update-resumes',
      'tasks-mrtr-partial-fulfillment',
      'wire-schema-valid',
    ],
    known: {},
  },
  // Input before the task exists, then a task (test_tool_with_task) [T36].
  'tasks-mrtr-composition': {
    pass: ['sep-2663-mrtr-synchronous-before-task-creation', 'wire-schema-valid'],
    known: {},
  },
  'tasks-required-task-error': {
    pass: [
      'sep-2663-server-returns-missing-capability-when-required',
      'sep-2663-server-returns-missing-capability-data-shape',
      'wire-schema-valid',
    ],
    known: {},
  },
};

// The legacy upstream answers a call to a tool it lacks with an isError result ("Tool ... not found"),
// which the suite reads as the diagnostic tool having run: two checks then pass without testing anything
// (not asserted) and one fails for the same reason.
const VACUOUS = 'passes only because the upstream answers an unknown tool with an isError result';
const THROUGH_PROXY: Record<string, Expectation> = {
  'server-stateless': {
    // The proxy serves listen streams itself (relaying its upstream's list changes to them).
    pass: [
      ...STATELESS_PASS,
      ...LISTEN_PASS.filter((id) => !id.endsWith('tools-list-changed-on-subscription')),
    ],
    known: {
      ...STATELESS_KNOWN,
      'sep-2575-server-sends-tools-list-changed-on-subscription':
        'WARNING: the SDK v1 upstream has no test_trigger_tool_change, so its tool list never changes',
      'sep-2575-server-sends-prompts-list-changed-on-subscription': NOT_SERVED.promptsListChanged,
      'sep-2575-server-rejects-undeclared-capability':
        'the upstream answers the unknown diagnostic tool with an isError result, read as "executed"',
      'sep-2575-http-server-no-independent-requests-on-stream': VACUOUS,
      'sep-2575-server-no-log-without-loglevel': VACUOUS,
    },
  },
  ...COMMON,
  // The upstream lists test_custom_header (the fixture's --param-header-tool): the proxy checks its
  // Mcp-Param-Region header against the body before relaying.
  'http-custom-header-server-validation': {
    pass: [
      'sep-2243-server-decode-base64',
      'sep-2243-server-validate-param-match',
      'sep-2243-server-reject-invalid-param-chars',
      'sep-2243-server-reject-param-mismatch',
      'wire-schema-valid',
    ],
    known: {},
  },
  caching: {
    pass: [
      'sep-2549-tools-list-caching-hints',
      'sep-2549-ttl-non-negative',
      'sep-2549-cache-scope-valid',
      'wire-schema-valid',
    ],
    known: {
      'sep-2549-prompts-list-caching-hints': NOT_SERVED.promptsResources,
      'sep-2549-resources-list-caching-hints': NOT_SERVED.promptsResources,
      'sep-2549-resources-templates-list-caching-hints': NOT_SERVED.promptsResources,
      'sep-2549-resources-read-caching-hints': NOT_SERVED.promptsResources,
    },
  },
};

/** Checks by scenario, read from the directories one CLI run wrote (`server-<scenario>-<timestamp>`). */
async function runCli(url: string, args: string[]): Promise<Map<string, Check[]>> {
  const outputDir = await mkdtemp(join(tmpdir(), 'mcp-inflight-conformance-alpha-'));
  try {
    const argv = ['--import', PRELOAD, CLI, 'server', '--url', url, ...args];
    argv.push('--spec-version', SPEC_VERSION, '-o', outputDir);
    const output = await new Promise<string>((resolve) =>
      // The CLI exits non-zero when any check fails; checks.json says which.
      execFile(process.execPath, argv, { timeout: 120_000 }, (_error, stdout, stderr) =>
        resolve(`${stdout}\n${stderr}`),
      ),
    );
    const found = new Map<string, Check[]>();
    for (const dir of await readdir(outputDir)) {
      const scenario = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\dZ-]+$/.exec(dir)?.[1];
      if (!scenario) throw new Error(`unexpected output ${dir}:\n${output}`);
      found.set(scenario, JSON.parse(await readFile(join(outputDir, dir, 'checks.json'), 'utf8')) as Check[]);
    }
    if (found.size === 0) throw new Error(`no checks.json from ${argv.join(' ')}:\n${output}`);
    return found;
  } finally {
    await rm(outputDir, { recursive: true, force: true });
  }
}

/**
 * Runs the scenarios against one long-lived target. `suite`: one CLI process runs the whole suite (its
 * scenarios in parallel) and the listed ones are read from its output; scenarios no suite lists (the
 * tasks extension) run one CLI process each, three at a time.
 */
async function runScenarios(
  url: string,
  scenarios: string[],
  how: { suite: boolean; extraArgs: string[] },
): Promise<Map<string, Check[]>> {
  if (how.suite) return runCli(url, ['--suite', 'all', ...how.extraArgs]);
  const found = new Map<string, Check[]>();
  const queue = [...scenarios];
  const worker = async (): Promise<void> => {
    for (let scenario = queue.shift(); scenario; scenario = queue.shift()) {
      const checks = await runCli(url, ['--scenario', scenario, ...how.extraArgs]);
      for (const [name, list] of checks) found.set(name, list);
    }
  };
  await Promise.all([worker(), worker(), worker()]);
  return found;
}

function expectChecks(checks: Check[], expectation: Expectation): void {
  for (const id of expectation.pass) {
    const found = checks.filter((c) => c.id === id);
    expect(found.length, `${id} was not reported`).toBeGreaterThan(0);
    for (const check of found) expect(check.status, `${id}: ${check.errorMessage ?? ''}`).toBe('SUCCESS');
  }
  const unexpected = checks
    .filter((c) => !expectation.pass.includes(c.id) && !(c.id in expectation.known))
    .map((c) => `${c.id} ${c.status} ${c.errorMessage ?? ''}`);
  expect(unexpected, 'checks this file does not know about').toEqual([]);
}

function describeTarget(
  name: string,
  start: () => Promise<{ url: string; stop(): Promise<unknown> }>,
  scenarios: Record<string, Expectation>,
  how: { suite: boolean; extraArgs: string[] },
): void {
  describe(`conformance 0.2.0-alpha.12 on ${SPEC_VERSION}: ${name}`, () => {
    let target: { url: string; stop(): Promise<unknown> } | undefined;
    let results: Map<string, Check[]>;
    beforeAll(async () => {
      target = await start();
      const startedMs = performance.now();
      results = await runScenarios(target.url, Object.keys(scenarios), how);
      console.info(`${name}: ${results.size} scenarios in ${Math.round(performance.now() - startedMs)} ms`);
    }, 180_000);
    afterAll(async () => {
      await target?.stop();
    });

    for (const [scenario, expectation] of Object.entries(scenarios)) {
      it(scenario, () => {
        const checks = results.get(scenario);
        expect(checks, `${scenario} was not run (ran: ${[...results.keys()].join(', ')})`).toBeDefined();
        expectChecks(checks!, expectation);
      });
    }
  });
}

describeTarget('examples/server', () => spawnExampleServer(['--conformance']), DIRECT, {
  suite: true,
  extraArgs: [],
});

describeTarget(
  'examples/server --tasks, the tasks extension',
  () => spawnExampleServer(['--conformance', '--tasks']),
  TASKS,
  { suite: false, extraArgs: ['--force'] },
);

describeTarget(
  'examples/proxy in front of a legacy SDK v1 upstream',
  async () => {
    const upstream = commandLine(process.execPath, V1_FIXTURE, '--param-header-tool');
    const proxy = await startProxy(['--upstream-stdio', upstream]);
    return { url: proxy.url, stop: () => proxy.kill() };
  },
  THROUGH_PROXY,
  { suite: true, extraArgs: [] },
);
