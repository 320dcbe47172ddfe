// Interleaved A/B of plain calls: each round runs every configuration once, in turn, so drift on the
// machine lands on all of them alike; prints each configuration's medians and its time per call over the
// first configuration's (list the floor first). Used for the figures in bench/README.md that compare two
// trees or a change against the floor between full `pnpm bench` runs.
//
//   node bench/transports/ab.mjs <rounds> <stdio|http> <1|32> <config>... [--calls N] [--warmup N]
//
//   config: impl:era (as client.mjs takes them: floor:legacy, inflight:modern, fetch-ours:legacy, ...),
//           or DIR=impl:era to run client.mjs of another checkout at DIR (built), e.g. a `git worktree`
//           of the commit before a change: ../base=inflight:legacy
//   calls, warmup: per run; by default stdio 150,000 / 30,000 with 32 in flight and 20,000 / 5,000 with 1,
//           http 6,000 / 4,000 and 3,000 / 4,000, longer than the full bench's runs so one run's noise
//           weighs less
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { option } from '../lib/procs.mjs';

const HERE_ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const DEFAULTS = {
  stdio: { 1: [20_000, 5_000], 32: [150_000, 30_000] },
  http: { 1: [3_000, 4_000], 32: [6_000, 4_000] },
};
const positional = process.argv
  .slice(2)
  .filter((arg, i, all) => !arg.startsWith('--') && !all[i - 1]?.startsWith('--'));
const [rounds, transport, concurrency, ...configs] = positional;
const defaults = DEFAULTS[transport]?.[concurrency];
if (!defaults || configs.length === 0 || !(Number(rounds) >= 1))
  throw new Error(
    'usage: node bench/transports/ab.mjs <rounds> <stdio|http> <1|32> <impl:era>... (see the header)',
  );
const calls = Number(option('calls', defaults[0]));
const warmup = Number(option('warmup', defaults[1]));

const runs = new Map(configs.map((config) => [config, []]));
for (let round = 0; round < Number(rounds); round++) {
  for (const config of configs) {
    const [root, spec] = config.includes('=') ? config.split('=') : [HERE_ROOT, config];
    const [impl, era] = spec.split(':');
    const args = ['--expose-gc', 'bench/transports/client.mjs', impl, transport, era, 'calls'];
    args.push('--calls', String(calls), '--warmup', String(warmup), '--concurrency', concurrency);
    const out = execFileSync(process.execPath, args, { cwd: root, encoding: 'utf8' });
    runs.get(config).push(JSON.parse(out.trim().split('\n').at(-1)));
  }
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const first = median(runs.get(configs[0]).map((r) => r.callsPerSec));
console.log(
  `${transport}, ${concurrency} in flight, ${rounds} rounds of ${calls} calls after ${warmup}: medians`,
);
for (const [config, results] of runs) {
  const rate = median(results.map((r) => r.callsPerSec));
  const cpu = (key) => median(results.map((r) => r[key] ?? Number.NaN)).toFixed(4);
  console.log(
    `${config.padEnd(34)} ${String(rate).padStart(8)} calls/s  ${(first / rate).toFixed(2)}x the first's time per call` +
      `  CPU ms/call client ${cpu('clientCpuMsPerCall')} server ${cpu('serverCpuMsPerCall')}` +
      `  runs ${results.map((r) => r.callsPerSec).join(',')}`,
  );
}
