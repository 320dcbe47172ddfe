// `pnpm bench:growth`: each workload at 1x, 10x and 100x its size, each size in a fresh
// `node --expose-gc` process (bench/growth/workload.mjs), RUNS times (default 3). Prints how time and
// memory grow from one size to the next (a factor of 10.0 in time is linear), and writes the rows to
// bench/results/growth.json. Usage: node bench/growth/growth.mjs [RUNS]
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const runs = Number(process.argv[2] ?? 3);

const workloads = [
  {
    name: 'inflight-stdio',
    title: 'in-flight calls on one stdio pipe (each sleeps 3,000 ms at the server)',
    sizes: [100, 1_000, 10_000],
    time: 'beyondSleepMs',
    memory: [
      ['clientBytesPerCall', 'client B/call'],
      ['serverBytesPerCall', 'server B/call'],
    ],
  },
  {
    name: 'proxy-hosts',
    title: 'hosts on one examples/proxy over HTTP (connect, one 2-step call each, close; twice)',
    sizes: [10, 100, 1_000],
    time: 'beyondSleepMs',
    memory: [
      ['proxyBytesPerHostInCall', 'proxy B/host'],
      ['proxyBytesPerHostAfterClose', 'closed B/host'],
      ['proxyBytesPerHostAfterSecondClose', '2nd closed B/host'],
    ],
  },
  {
    name: 'progress-stdio',
    title: 'progress updates for one call over a stdio pipe (every update sent)',
    sizes: [100, 1_000, 10_000, 100_000],
    time: 'ms',
    memory: [
      ['clientHeapGrowthBytes', 'client heap growth B'],
      ['clientPeakAboveStartMB', 'peak MB'],
    ],
  },
];

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const results = {};
const lines = [`growth: node ${process.version}, ${os.cpus().length} CPUs, ${runs} run(s) per size, median`];
const t0 = performance.now();
for (const w of workloads) {
  const rows = [];
  for (const size of w.sizes) {
    const samples = [];
    for (let i = 0; i < runs; i++) {
      const out = execFileSync(
        process.execPath,
        ['--expose-gc', join(here, 'workload.mjs'), w.name, String(size)],
        {
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'inherit'],
          timeout: 180_000,
        },
      );
      samples.push(JSON.parse(out.trim().split('\n').pop()));
    }
    const row = { size, samples };
    for (const key of [w.time, 'perUnitUs', ...w.memory.map(([k]) => k)])
      row[key] = median(samples.map((s) => s[key]));
    rows.push(row);
  }
  results[w.name] = rows;
  lines.push('', `${w.name}: ${w.title}`);
  lines.push(
    `   ${'size'.padStart(7)} ${'time ms'.padStart(9)} ${'us/unit'.padStart(9)} ${'time x'.padStart(7)} ${w.memory.map(([, label]) => label.padStart(20)).join(' ')}`,
  );
  rows.forEach((row, i) => {
    const factor = i === 0 ? '' : (row[w.time] / rows[i - 1][w.time]).toFixed(1);
    lines.push(
      `   ${String(row.size).padStart(7)} ${String(row[w.time]).padStart(9)} ${String(row.perUnitUs).padStart(9)} ${factor.padStart(7)} ${w.memory.map(([k]) => String(row[k]).padStart(20)).join(' ')}`,
    );
  });
}
lines.push(
  '',
  `(time x: time at this size over the size before, 10x the work; 10.0 is linear) ${((performance.now() - t0) / 1000).toFixed(0)} s`,
);
console.log(lines.join('\n'));
mkdirSync(join(here, '..', 'results'), { recursive: true });
writeFileSync(
  join(here, '..', 'results', 'growth.json'),
  JSON.stringify({ node: process.version, cpus: os.cpus().length, runs, results }, null, 2),
);
