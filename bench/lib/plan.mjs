// What `node bench/run.mjs` runs: every configuration as { section, key, id, script, args, timeoutMs }.
// Sizes are the full benchmark's, or small ones for --quick (every workload once, for CI).
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** TransportKind configurations that run: [impl, transport, era]. SDK v2's McpServer answers no 2026-07-28 on stdio. */
export const TRANSPORT_CONFIGS = [
  ['inflight', 'stdio', 'legacy'],
  ['inflight', 'stdio', 'modern'],
  ['sdk-v1', 'stdio', 'legacy'],
  ['sdk-v2', 'stdio', 'legacy'],
  ['inflight', 'http', 'legacy'],
  ['inflight', 'http', 'modern'],
  ['sdk-v1', 'http', 'legacy'],
  ['sdk-v2', 'http', 'legacy'],
  ['sdk-v2', 'http', 'modern'],
];

/**
 * The floors and halves beside them (bench/transports/floor.mjs): `floor` is no MCP library on either side
 * (bare `fetch` to a `node:http` server, newline JSON over a pipe; `floor-node`, the same POSTs over a
 * `node:http` client); over HTTP, `fetch-ours` is our server
 * under bare `fetch` and `ours-floor` our `HttpClient` against the floor's server. Each transport's floor
 * runs just before its other configurations, so every run interleaves it with them.
 */
export const FLOOR_CONFIGS = [
  ['floor', 'stdio', 'legacy'],
  ['floor', 'http', 'legacy'],
  ['floor-node', 'http', 'legacy'],
  ['fetch-ours', 'http', 'legacy'],
  ['ours-floor', 'http', 'legacy'],
  ['fetch-ours', 'http', 'modern'],
  ['ours-floor', 'http', 'modern'],
];

/** Every configuration of F2 (calls), each transport's floor and halves first. */
export const CALL_CONFIGS = ['stdio', 'http'].flatMap((transport) => [
  ...FLOOR_CONFIGS.filter(([, t]) => t === transport),
  ...TRANSPORT_CONFIGS.filter(([, t]) => t === transport),
]);

/** Every configuration of F1 (progress): each transport's floor first. */
export const PROGRESS_CONFIGS = ['stdio', 'http'].flatMap((transport) => [
  [`floor`, transport, 'legacy'],
  ...TRANSPORT_CONFIGS.filter(([, t]) => t === transport),
]);

/**
 * F2's [measured calls, warm-up calls] per transport and calls in flight: a warm-up long enough for the JIT
 * to settle on both sides (in the first few thousand calls even the floor runs at a third to a half of its
 * later speed), then at least half a second of calls at the floor's pace. The warm-up's own rate is
 * reported beside the measured one.
 */
export const CALL_SIZES = {
  stdio: { 1: [10_000, 5_000], 32: [40_000, 20_000] },
  http: { 1: [2_000, 4_000], 32: [4_000, 4_000] },
};

export function buildPlan({ here, quick }) {
  const size = (full, small) => String(quick ? small : full);
  const jobs = [];
  const add = (section, key, script, args, timeoutMs = 180_000) =>
    jobs.push({ section, key, id: `${section}:${key}`, script: join(here, script), args, timeoutMs });

  // A-D: the primitives in one process (see README).
  for (const c of ['floor', 'inflight', 'sdk-v1', 'sdk-v2'])
    add('A', c, 'progress.mjs', [c, size(100_000, 10_000)]);
  // The goal's ratio, measured fairly: floor and ours alternate in one process, so both see the same load.
  add('A', 'floor-vs-inflight', 'progress.mjs', ['floor-vs-inflight', size(100_000, 10_000)]);
  for (const c of ['inflight', 'sdk-v1', 'sdk-v1+json'])
    add('B', c, 'inflight.mjs', [c, size(10_000, 1_000)]);
  for (const c of ['inflight', 'sdk-v1-style']) add('C', c, 'deadlines.mjs', [c]);
  for (const c of ['flood-direct', 'flood-proxied', 'cancel-direct', 'cancel-proxied'])
    add('D', c, 'proxy.mjs', [c, size(100_000, 10_000)]);
  // E: 10,000 deadlines firing at once (bench/deadline-storm.mjs, when it is there).
  if (existsSync(join(here, 'deadline-storm.mjs')))
    // A 3 s lead: issuing 10,000 calls took over 500 ms (half the old 1 s lead) on a loaded machine.
    for (const c of ['inflight', 'sdk-v1'])
      add('E', c, 'deadline-storm.mjs', [c, size(10_000, 2_000), '3000']);

  // F: real transports, client and server in separate processes.
  const budget = (ms) => ['--budget-ms', String(ms)];
  // --quick runs each transport configuration with one mode (a burst on stdio, paced on HTTP) and one
  // concurrency (32), so CI's smoke test stays under a minute.
  for (const [impl, transport, era] of PROGRESS_CONFIGS) {
    for (const paced of quick ? [transport === 'http'] : [false, true]) {
      const mode = paced ? 'paced' : 'burst';
      add('F', `progress ${transport} ${mode} ${impl} ${era}`, 'transports/client.mjs', [
        impl,
        transport,
        era,
        'progress',
        '--n',
        size(20_000, 2_000),
        ...(paced ? ['--paced'] : []),
        ...budget(150_000),
      ]);
    }
  }
  for (const [impl, transport, era] of CALL_CONFIGS) {
    for (const concurrency of quick ? [32] : [1, 32]) {
      const [calls, warmup] = CALL_SIZES[transport][concurrency];
      add('F', `calls ${transport} c${concurrency} ${impl} ${era}`, 'transports/client.mjs', [
        impl,
        transport,
        era,
        'calls',
        '--calls',
        size(calls, 100),
        '--concurrency',
        String(concurrency),
        '--warmup',
        size(warmup, 20),
        ...budget(150_000),
      ]);
    }
  }

  // G: proxies, ours and mcp-proxy alternating, for each host era.
  for (const era of ['legacy', 'modern']) {
    for (const proxy of ['inflight', 'mcp-proxy']) {
      add('G', `flood ${era} ${proxy} every`, 'proxies/relay.mjs', [
        proxy,
        era,
        'flood',
        '--n',
        size(20_000, 2_000),
      ]);
      // mcp-proxy relays every value whatever is asked: it has no coalescing to turn on.
      if (proxy === 'inflight')
        add('G', `flood ${era} ${proxy} coalesced`, 'proxies/relay.mjs', [
          proxy,
          era,
          'flood',
          '--coalesce',
          '--n',
          size(20_000, 2_000),
        ]);
    }
    for (const proxy of ['inflight', 'mcp-proxy'])
      add('G', `cancel ${era} ${proxy}`, 'proxies/relay.mjs', [
        proxy,
        era,
        'cancel',
        '--calls',
        size(200, 20),
        '--warmup',
        size(20, 5),
      ]);
  }
  // H: fair shares between hosts of one proxy (bench/fairness.mjs): a quiet host beside a busy host's
  // long-call flood, with fair shares and without.
  for (const c of ['shares', 'no-shares'])
    add('H', c, 'fairness.mjs', [c, ...(quick ? ['--quick'] : [])], quick ? 120_000 : 300_000);
  return jobs;
}
