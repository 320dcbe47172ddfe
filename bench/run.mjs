// Every benchmark side by side with its reference (the official SDK, a bare floor, mcp-proxy), each
// configuration in a fresh `node --expose-gc` process. Runs are interleaved: run 1 of every configuration,
// then run 2 of every configuration, and so on, so a noisy minute on a shared machine spreads over all of
// them instead of landing on one. Prints the tables (medians over the runs, ratios to the reference) and
// writes every raw row with the medians to results/latest.json.
//
//   node bench/run.mjs [--runs 3] [--quick] [--only A,F] [--json FILE] [--compare-node PATH]
//
// --compare-node: also runs A and F2 under that Node, interleaved with the others, and adds a table of both
// (pnpm bench runs on Node 26 and compares the machine's Node 20, the lowest CI runs).
// --quick: one run of every workload at a small size (CI's smoke test: no thresholds, exit 1 only when a
// script fails; writes no JSON unless --json is given). --only: just those sections. Needs `pnpm build`.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { comparedTable, isCompared } from './lib/compare.mjs';
import { buildPlan } from './lib/plan.mjs';
import { tables } from './lib/report.mjs';
import { medianRow, runScript } from './lib/runner.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const argOf = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : process.argv[at + 1];
};
const quick = process.argv.includes('--quick');
const runs = quick ? 1 : Number(argOf('runs', process.argv[2]?.match(/^\d+$/) ? process.argv[2] : 3));
const only = argOf('only', undefined)?.split(',');
const jsonPath = argOf('json', quick ? undefined : join(here, 'results', 'latest.json'));

const plan = buildPlan({ here, quick }).filter((job) => !only || only.includes(job.section));
const started = Date.now();
const loadBefore = loadavg();
const rows = new Map(plan.map((job) => [job.id, []]));
const compareNode = argOf('compare-node', undefined);
const compareVersion = compareNode && execFileSync(compareNode, ['--version'], { encoding: 'utf8' }).trim();
const comparedRows = new Map(plan.filter(isCompared).map((job) => [job.id, []]));
const failures = [];

for (let run = 1; run <= runs; run++) {
  for (const job of plan) {
    const t0 = performance.now();
    try {
      rows.get(job.id).push(await runScript(job.script, job.args, { timeoutMs: job.timeoutMs }));
    } catch (error) {
      failures.push({ job: job.id, run, error: String(error.message ?? error) });
      process.stderr.write(`FAILED ${job.id} (run ${run}): ${error.message ?? error}\n`);
    }
    if (compareNode && comparedRows.has(job.id)) {
      try {
        const options = { timeoutMs: job.timeoutMs, node: compareNode };
        comparedRows.get(job.id).push(await runScript(job.script, job.args, options));
      } catch (error) {
        failures.push({ job: `${job.id} on ${compareVersion}`, run, error: String(error.message ?? error) });
        process.stderr.write(
          `FAILED ${job.id} on ${compareVersion} (run ${run}): ${error.message ?? error}\n`,
        );
      }
    }
    if (process.env.BENCH_VERBOSE)
      process.stderr.write(`${job.id} ${Math.round(performance.now() - t0)} ms\n`);
  }
  process.stderr.write(`run ${run}/${runs} done after ${Math.round((Date.now() - started) / 1000)} s\n`);
}

const results = {};
for (const job of plan) {
  const r = rows.get(job.id);
  results[job.section] ??= {};
  results[job.section][job.key] = { rows: r, median: medianRow(r) };
}
const compared = {};
for (const job of compareNode ? plan.filter(isCompared) : []) {
  const r = comparedRows.get(job.id);
  compared[job.section] ??= {};
  compared[job.section][job.key] = { rows: r, median: medianRow(r) };
}
const versions = versionsOf(here);
const header = [
  `Node ${process.version}, ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GB; load average ${loadBefore.map((l) => l.toFixed(2)).join(' ')} at the start`,
  `@modelcontextprotocol/sdk ${versions.sdkV1}, @modelcontextprotocol/client+server ${versions.sdkV2}, mcp-proxy ${versions.mcpProxy}`,
  `command: node bench/run.mjs ${process.argv.slice(2).join(' ')} (${runs} run${runs === 1 ? '' : 's'} of each configuration, interleaved; medians)`,
  ...(compareNode ? [`A and F2 also on Node ${compareVersion}, interleaved (the last table)`] : []),
];
const comparison = compareNode
  ? comparedTable(results, compared, {
      node: `Node ${process.version}`,
      compareNode: `Node ${compareVersion}`,
    })
  : [];
console.log([...header, '', ...tables(results, { quick }), ...comparison].join('\n'));
const durationS = Math.round((Date.now() - started) / 1000);
const total = (plan.length + (compareNode ? comparedRows.size : 0)) * runs;
console.log(`\n${total - failures.length} of ${total} runs succeeded in ${durationS} s`);

if (jsonPath) {
  mkdirSync(dirname(jsonPath), { recursive: true });
  writeFileSync(
    jsonPath,
    `${JSON.stringify({ header, node: process.version, compareNode: compareVersion, compared, versions, runs, quick, durationS, loadBefore, loadAfter: loadavg(), failures, results }, null, 1)}\n`,
  );
}
process.exit(failures.length === 0 ? 0 : 1);

function versionsOf(dir) {
  const version = (pkg) => {
    const path = join(dir, 'node_modules', pkg, 'package.json');
    return existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')).version : 'missing';
  };
  return {
    sdkV1: version('@modelcontextprotocol/sdk'),
    sdkV2: version('@modelcontextprotocol/client'),
    mcpProxy: version('mcp-proxy'),
  };
}
