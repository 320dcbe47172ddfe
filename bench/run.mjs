// Runs every benchmark configuration in a fresh `node --expose-gc` process, RUNS times each, and prints
// medians side by side with the official SDK v1 from the same run, as ratios. Usage: node run.mjs [RUNS]
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const runs = Number(process.argv[2] ?? 5);

function measure(script, config, ...args) {
  const rows = [];
  for (let i = 0; i < runs; i++) {
    const out = execFileSync(process.execPath, ['--expose-gc', join(here, script), config, ...args], {
      encoding: 'utf8',
    });
    rows.push(JSON.parse(out.trim().split('\n').pop()));
  }
  return rows;
}

const median = (rows, key) => {
  const values = rows.map((r) => r[key]).sort((a, b) => a - b);
  return values[Math.floor(values.length / 2)];
};
const range = (rows, key) =>
  `${Math.min(...rows.map((r) => r[key]))}–${Math.max(...rows.map((r) => r[key]))}`;
const ratio = (a, b) => `${(a / b).toFixed(2)}x`;

const results = {};
const table = [];

// A. Progress throughput.
const progress = Object.fromEntries(
  ['floor', 'inflight', 'sdk-v1', 'sdk-v2'].map((c) => [c, measure('progress.mjs', c, '100000')]),
);
results.progress = progress;
const rate = (c) => median(progress[c], 'ratePerSec');
table.push('A. progress throughput, 100,000 notifications for one request (notifications/s, median of runs)');
for (const c of Object.keys(progress))
  table.push(`   ${c.padEnd(12)} ${String(rate(c)).padStart(9)}  [${range(progress[c], 'ratePerSec')}]`);
table.push(
  `   inflight / sdk-v1 = ${ratio(rate('inflight'), rate('sdk-v1'))} (goal >= 10x); floor / inflight = ${ratio(rate('floor'), rate('inflight'))} (goal <= 1.5x)`,
);

// B. In-flight requests.
const inflight = Object.fromEntries(
  ['inflight', 'sdk-v1', 'sdk-v1+json'].map((c) => [c, measure('inflight.mjs', c, '10000')]),
);
results.inflight = inflight;
table.push('', 'B. 10,000 concurrent in-flight requests, each with a deadline (median of runs)');
table.push('   config         create ms  settle ms  bytes/request');
for (const c of Object.keys(inflight)) {
  const r = inflight[c];
  table.push(
    `   ${c.padEnd(14)} ${String(median(r, 'createMs')).padStart(9)} ${String(median(r, 'settleMs')).padStart(10)} ${String(median(r, 'bytesPerRequest')).padStart(14)}`,
  );
}
const bytes = (c) => median(inflight[c], 'bytesPerRequest');
table.push(`   bytes/request inflight / sdk-v1 = ${ratio(bytes('inflight'), bytes('sdk-v1'))} (goal <= 1x)`);

// C. Deadline touches.
const deadlines = Object.fromEntries(
  ['inflight', 'sdk-v1-style'].map((c) => [c, measure('deadlines.mjs', c)]),
);
results.deadlines = deadlines;
table.push('', 'C. 10,000 live deadlines, 1,000,000 touches (median of runs)');
for (const c of Object.keys(deadlines)) {
  const r = deadlines[c];
  table.push(
    `   ${c.padEnd(14)} ${String(median(r, 'nsPerTouch')).padStart(7)} ns/touch  timers armed: ${median(r, 'timersArmed')} + ${median(r, 'timersArmedByTouches')} by touches`,
  );
}
table.push(
  `   ns/touch inflight / sdk-v1-style = ${ratio(median(deadlines.inflight, 'nsPerTouch'), median(deadlines['sdk-v1-style'], 'nsPerTouch'))}`,
);

// D. A proxy on core Endpoints: flood absorption and the cancel trip it adds.
const proxy = Object.fromEntries(
  ['flood-direct', 'flood-proxied', 'cancel-direct', 'cancel-proxied'].map((c) => [
    c,
    measure('proxy.mjs', c, '100000'),
  ]),
);
results.proxy = proxy;
const absorbed = median(proxy['flood-proxied'], 'absorbedPerSec');
table.push('', 'D. proxy (host -> proxy -> upstream, in one process, every hop JSON)');
table.push(
  `   flood: upstream writes 100,000 updates; the proxy absorbs ${absorbed}/s [${range(proxy['flood-proxied'], 'absorbedPerSec')}] and passes ${median(proxy['flood-proxied'], 'receivedByHost')} to the host`,
);
table.push(
  `   an SDK v1 upstream writes at most ${rate('sdk-v1')}/s (A): the proxy absorbs ${ratio(absorbed, rate('sdk-v1'))} that (goal >= 1x)`,
);
const tripDirect = median(proxy['cancel-direct'], 'cancelTripMedianUs');
const tripProxied = median(proxy['cancel-proxied'], 'cancelTripMedianUs');
table.push(
  `   cancel trip host abort -> upstream handler aborted: direct ${tripDirect} us, proxied ${tripProxied} us (median of 2,000): the proxy adds ${(tripProxied - tripDirect).toFixed(1)} us (goal well under 1,000 us)`,
);

console.log(table.join('\n'));
mkdirSync(join(here, 'results'), { recursive: true });
writeFileSync(
  join(here, 'results', 'latest.json'),
  JSON.stringify({ node: process.version, runs, results }, null, 2),
);
