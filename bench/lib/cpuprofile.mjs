// Summarises V8 CPU profiles (`node --cpu-prof`, or BENCH_CPU_PROF_DIR for the benchmarks' children):
// total sampled time, busy time (not idle), self time by package or file, and the top functions.
//
//   node bench/lib/cpuprofile.mjs FILE.cpuprofile [...FILES] [--top 12]
import { readFileSync } from 'node:fs';

const files = process.argv.slice(2).filter((a, i, all) => !a.startsWith('--') && all[i - 1] !== '--top');
const topAt = process.argv.indexOf('--top');
const top = topAt === -1 ? 12 : Number(process.argv[topAt + 1]);

/** Where a function lives: a package name, one of ours, or a Node internal. */
function placeOf(url) {
  if (!url) return '(native/vm)';
  if (url.startsWith('node:')) return url.replace(/^node:internal\/([^/]+).*$/, 'node:$1');
  const pkg = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1];
  if (pkg) return pkg;
  const ours = /\/(packages|examples)\/([^/]+)\//.exec(url);
  if (ours) return `${ours[1]}/${ours[2]}`;
  return url.split('/').slice(-2).join('/');
}

for (const file of files) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map();
  const deltas = profile.timeDeltas;
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i];
    self.set(id, (self.get(id) ?? 0) + (deltas[i] ?? 0));
  }
  let total = 0;
  let idle = 0;
  const byPlace = new Map();
  const byFunction = new Map();
  for (const [id, us] of self) {
    const { callFrame } = byId.get(id);
    total += us;
    const name = callFrame.functionName || '(anonymous)';
    if (name === '(idle)' || name === '(program)') {
      if (name === '(idle)') idle += us;
      continue;
    }
    const place = name === '(garbage collector)' ? '(gc)' : placeOf(callFrame.url);
    byPlace.set(place, (byPlace.get(place) ?? 0) + us);
    const fn = `${name} ${place}:${callFrame.lineNumber + 1}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + us);
  }
  const busy = total - idle;
  const pct = (us) => `${((us / busy) * 100).toFixed(1)}%`;
  const ms = (us) => `${(us / 1000).toFixed(0)} ms`;
  console.log(`${file}: ${ms(total)} sampled, ${ms(busy)} busy (not idle)`);
  console.log('  self time by place:');
  for (const [place, us] of [...byPlace].sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(`    ${pct(us).padStart(6)} ${ms(us).padStart(8)}  ${place}`);
  console.log('  top functions (self):');
  for (const [fn, us] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(`    ${pct(us).padStart(6)} ${ms(us).padStart(8)}  ${fn}`);
}
