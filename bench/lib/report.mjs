// The tables `node bench/run.mjs` prints (Markdown, so bench/README.md takes them as they are): medians
// over the runs, each workload beside its reference, with the ratio.
import { CALL_CONFIGS, CALL_SIZES, PROGRESS_CONFIGS } from './plan.mjs';

const fmt = (v, digits = 0) =>
  typeof v === 'number'
    ? v.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })
    : 'n/a';
const ratio = (a, b) =>
  typeof a === 'number' && typeof b === 'number' && b !== 0 ? `${(a / b).toFixed(2)}x` : 'n/a';
const table = (head, rows) => [
  `| ${head.join(' | ')} |`,
  `|${head.map(() => '---').join('|')}|`,
  ...rows.map((r) => `| ${r.join(' | ')} |`),
];
const ERA = { legacy: '2025-11-25', modern: '2026-07-28' };
const IMPL = {
  inflight: 'ours',
  'sdk-v1': 'SDK v1',
  'sdk-v2': 'SDK v2',
  floor: 'floor',
  'floor-node': 'floor, client on node:http',
  'fetch-ours': 'bare fetch → our server',
  'ours-floor': "our client → floor's server",
};
/** A row's name: the floor has no era. */
const nameOf = (impl, era) =>
  impl === 'floor'
    ? 'floor (no MCP)'
    : impl === 'floor-node'
      ? 'floor (no MCP), client on node:http'
      : `${IMPL[impl]} ${ERA[era]}`;

/** CPU time of both processes, as `client + server`. */
const cpu = (client, server, digits) =>
  typeof client === 'number' && typeof server === 'number'
    ? `${fmt(client, digits)} + ${fmt(server, digits)}`
    : 'n/a';
const cpuSum = (r) =>
  typeof r.clientCpuMsPerCall === 'number' && typeof r.serverCpuMsPerCall === 'number'
    ? r.clientCpuMsPerCall + r.serverCpuMsPerCall
    : undefined;

/** F2's call counts, measured (`at` 0) or warm-up (1), in words: "stdio 10,000 with 1 in flight and ...". */
const sizesText = (at) =>
  Object.entries(CALL_SIZES)
    .map(([transport, byFlight]) => {
      const [one, many] = [byFlight[1][at], byFlight[32][at]];
      return one === many
        ? `${transport} ${fmt(one)}`
        : `${transport} ${fmt(one)} with 1 in flight and ${fmt(many)} with 32`;
    })
    .join('; ');

/** The largest disagreement between host and upstream on `timeOrigin + now()`, over every cancel run. */
function maxSkew(g) {
  const skews = Object.entries(g)
    .filter(([key]) => key.startsWith('cancel'))
    .flatMap(([, v]) => v.rows.map((r) => Math.abs(r.timeOriginSkewMs ?? 0)));
  return skews.length ? Math.max(...skews) : undefined;
}

export function tables(results, { quick }) {
  const out = [];
  const m = (section, key) => results[section]?.[key]?.median;
  const range = (section, key, field) => {
    const values = (results[section]?.[key]?.rows ?? []).map((r) => r[field]);
    return values.length ? `${fmt(Math.min(...values))}–${fmt(Math.max(...values))}` : 'n/a';
  };
  const section = (id, title, lines) => {
    if (!results[id]) return;
    out.push(`### ${id}. ${title}`, '', ...lines, '');
  };

  section('A', 'progress throughput in one process, one request (notifications/s)', [
    ...table(
      ['config', 'notifications/s', 'range'],
      ['floor', 'inflight', 'sdk-v1', 'sdk-v2'].map((c) => [
        c,
        fmt(m('A', c)?.ratePerSec),
        range('A', c, 'ratePerSec'),
      ]),
    ),
    '',
    `ours / SDK v1 = ${ratio(m('A', 'inflight')?.ratePerSec, m('A', 'sdk-v1')?.ratePerSec)}; floor / ours, separate processes = ${ratio(m('A', 'floor')?.ratePerSec, m('A', 'inflight')?.ratePerSec)}; SDK v1 / floor = ${ratio(m('A', 'floor')?.ratePerSec, m('A', 'sdk-v1')?.ratePerSec)}`,
    `floor / ours, paired in one process (the goal's measure: ${m('A', 'floor-vs-inflight')?.pairs ?? 'n/a'} alternating pairs, median) = ${fmt(m('A', 'floor-vs-inflight')?.floorOverInflight, 2)}x over the runs, pairs ranging ${(results.A?.['floor-vs-inflight']?.rows ?? []).map((r) => r.floorOverInflightRange?.join('–')).join(', ')} (goal <= 1.2x)`,
  ]);

  section('B', 'concurrent in-flight requests, each with a deadline', [
    ...table(
      ['config', 'create ms', 'settle ms', 'bytes/request'],
      ['inflight', 'sdk-v1', 'sdk-v1+json'].map((c) => [
        c,
        fmt(m('B', c)?.createMs, 1),
        fmt(m('B', c)?.settleMs, 1),
        fmt(m('B', c)?.bytesPerRequest),
      ]),
    ),
    '',
    `bytes/request ours / SDK v1 = ${ratio(m('B', 'inflight')?.bytesPerRequest, m('B', 'sdk-v1')?.bytesPerRequest)} (goal <= 0.6x)`,
  ]);

  section('C', '10,000 live deadlines, 1,000,000 touches', [
    ...table(
      ['config', 'ns/touch', 'timers armed', 'armed by touches'],
      ['inflight', 'sdk-v1-style'].map((c) => [
        c,
        fmt(m('C', c)?.nsPerTouch, 1),
        fmt(m('C', c)?.timersArmed),
        fmt(m('C', c)?.timersArmedByTouches),
      ]),
    ),
    '',
    `ns/touch ours / SDK-style = ${ratio(m('C', 'inflight')?.nsPerTouch, m('C', 'sdk-v1-style')?.nsPerTouch)} (goal: at most 15 ns)`,
  ]);

  const flood = m('D', 'flood-proxied');
  section('D', 'a proxy on core Endpoints in one process (every hop JSON)', [
    ...table(
      ['measure', 'direct', 'proxied'],
      [
        [
          'flood absorbed (updates/s)',
          fmt(m('D', 'flood-direct')?.absorbedPerSec),
          fmt(flood?.absorbedPerSec),
        ],
        [
          'updates reaching the host',
          fmt(m('D', 'flood-direct')?.receivedByHost),
          fmt(flood?.receivedByHost),
        ],
        [
          'cancel trip, median µs',
          fmt(m('D', 'cancel-direct')?.cancelTripMedianUs, 1),
          fmt(m('D', 'cancel-proxied')?.cancelTripMedianUs, 1),
        ],
        [
          'cancel trip, p99 µs',
          fmt(m('D', 'cancel-direct')?.cancelTripP99Us, 1),
          fmt(m('D', 'cancel-proxied')?.cancelTripP99Us, 1),
        ],
      ],
    ),
    '',
    `absorbed / SDK v1 in-memory rate (A) = ${ratio(flood?.absorbedPerSec, m('A', 'sdk-v1')?.ratePerSec)}`,
  ]);

  section('E', '10,000 deadlines firing at once', [
    ...table(
      [
        'config',
        'fired',
        'spread ms',
        'late p50 ms',
        'late p99 ms',
        'late max ms',
        'fired early',
        'probe late ms',
      ],
      ['inflight', 'sdk-v1'].map((c) => {
        const r = m('E', c);
        return [
          c,
          fmt(r?.fired),
          fmt(r?.spreadMs, 1),
          fmt(r?.lateP50Ms, 1),
          fmt(r?.lateP99Ms, 1),
          fmt(r?.lateMaxMs, 1),
          fmt(r?.earlyCount),
          fmt(r?.probeLateMs, 1),
        ];
      }),
    ),
    '',
    `spread ours / SDK v1 = ${ratio(m('E', 'inflight')?.spreadMs, m('E', 'sdk-v1')?.spreadMs)}; late p99 ours / SDK v1 = ${ratio(m('E', 'inflight')?.lateP99Ms, m('E', 'sdk-v1')?.lateP99Ms)}; late p50 ours / SDK v1 = ${ratio(m('E', 'inflight')?.lateP50Ms, m('E', 'sdk-v1')?.lateP50Ms)} (the probe: a plain timer due 2 ms into the storm, how late it ran)`,
  ]);

  if (results.F) {
    const key = (kind, transport, mode, impl, era) => `${kind} ${transport} ${mode} ${impl} ${era}`;
    const rows = [];
    for (const transport of ['stdio', 'http'])
      for (const mode of ['burst', 'paced'])
        for (const [impl, t, era] of PROGRESS_CONFIGS) {
          if (t !== transport) continue;
          const r = m('F', key('progress', transport, mode, impl, era));
          if (!r) continue;
          const floor = m('F', key('progress', transport, mode, 'floor', 'legacy'))?.ratePerSec;
          const v1 = m('F', key('progress', transport, mode, 'sdk-v1', 'legacy'))?.ratePerSec;
          const v2 = m('F', key('progress', transport, mode, 'sdk-v2', era))?.ratePerSec;
          rows.push([
            transport,
            mode,
            nameOf(impl, era),
            fmt(r.ratePerSec),
            `${fmt(r.received)} of ${fmt(r.n)}`,
            fmt(r.lastValue),
            cpu(r.clientCpuMsPer1000, r.serverCpuMsPer1000, 1),
            impl === 'inflight' ? ratio(r.ratePerSec, v1) : '',
            impl === 'inflight' ? ratio(r.ratePerSec, v2) : '',
            impl === 'floor' ? '' : ratio(floor, r.ratePerSec),
          ]);
        }
    out.push(
      '### F1. progress over real transports: one call, n updates asked for, client and server in separate processes',
      '',
      ...table(
        [
          'transport',
          'tool',
          'client + server',
          'updates/s received',
          'received',
          'last value seen',
          'CPU ms per 1,000: client + server',
          'ours / SDK v1',
          'ours / SDK v2 same era',
          'floor / this: updates/s',
        ],
        rows,
      ),
      '',
    );
    const calls = [];
    for (const transport of ['stdio', 'http'])
      for (const c of [1, 32])
        for (const [impl, t, era] of CALL_CONFIGS) {
          if (t !== transport) continue;
          const r = m('F', key('calls', transport, `c${c}`, impl, era));
          if (!r) continue;
          const floor = m('F', key('calls', transport, `c${c}`, 'floor', 'legacy'));
          const nodeFloor = m('F', key('calls', transport, `c${c}`, 'floor-node', 'legacy'));
          const v1 = m('F', key('calls', transport, `c${c}`, 'sdk-v1', 'legacy'));
          const v2 = m('F', key('calls', transport, `c${c}`, 'sdk-v2', era));
          const vs = (ref) =>
            impl === 'inflight' && ref
              ? `${ratio(r.callsPerSec, ref.callsPerSec)} / ${ratio(r.p50Ms, ref.p50Ms)} / ${ratio(r.p99Ms, ref.p99Ms)} / ${ratio(cpuSum(r), cpuSum(ref))}`
              : '';
          calls.push([
            transport,
            String(c),
            nameOf(impl, era),
            fmt(r.callsPerSec),
            fmt(r.p50Ms, 2),
            fmt(r.p99Ms, 2),
            fmt(r.maxMs, 2),
            cpu(r.clientCpuMsPerCall, r.serverCpuMsPerCall, 3),
            vs(v1),
            vs(v2),
            impl === 'floor' || !floor
              ? ''
              : `${ratio(floor.callsPerSec, r.callsPerSec)} / ${ratio(cpuSum(r), cpuSum(floor))}`,
            fmt(r.coldCallsPerSec),
            impl === 'floor' || !floor ? '' : ratio(floor.coldCallsPerSec, r.coldCallsPerSec),
            impl === 'floor-node' || !nodeFloor ? '' : ratio(nodeFloor.callsPerSec, r.callsPerSec),
          ]);
        }
    out.push(
      '### F2. plain calls (echo, 64 characters each way, a deadline on each), client and server in separate processes',
      '',
      ...table(
        [
          'transport',
          'in flight',
          'client + server',
          'calls/s',
          'p50 ms',
          'p99 ms',
          'max ms',
          'CPU ms per call: client + server',
          'ours / SDK v1: calls/s, p50, p99, CPU',
          'ours / SDK v2 same era',
          'floor / this: calls/s (time per call over the floor), CPU this / floor',
          'warm-up calls/s',
          'floor / this, warm-up',
          'node:http floor / this: calls/s',
        ],
        calls,
      ),
      '',
      "The floor is each transport with no MCP library on either side (`transports/floor.mjs`: bare `fetch` POSTs to a `node:http` server answering a JSON-RPC result, or newline JSON over a pipe); `bare fetch → our server` is the server half of the HTTP path and `our client → floor's server` its client half. Over HTTP a second floor, `client on node:http`, sends the floor's POSTs through `node:http` instead of fetch: our HttpClient from `@mcp-inflight/http` sends that way, and Node's fetch costs several times its CPU per call, so the last column is the distance to the cheaper floor. floor / this over 1 is how many times the floor's time per call a row takes (goals: ours at most 1.3x over HTTP, each half at most 1.15x; 1.5x over stdio).",
      '',
      `Each configuration first makes its warm-up calls (${sizesText(1)}), long enough for the JIT to settle on both sides, then the measured ones (${sizesText(0)}). The warm-up's own rate is in the last two columns: it is what a short-lived process sees, and in it even the floor runs at a third to a half of its later speed.`,
      '',
      "Latency and CPU ratios under 1 and calls/s ratios over 1 favour ours. CPU is each process's user + system time over the measured calls (the server's read from /proc in 10 ms ticks); unlike wall time it hardly moves with other load on the machine.",
      '',
    );
  }

  if (results.G) {
    const flood = [];
    for (const era of ['legacy', 'modern']) {
      const theirs = m('G', `flood ${era} mcp-proxy every`);
      for (const [proxy, mode, interval] of [
        ['inflight', 'every', '0 (every value)'],
        ['inflight', 'coalesced', '50 ms (default)'],
        ['mcp-proxy', 'every', 'none (relays all)'],
      ]) {
        const r = m('G', `flood ${era} ${proxy} ${mode}`);
        if (!r) continue;
        flood.push([
          ERA[era],
          proxy === 'inflight' ? 'examples/proxy' : 'mcp-proxy',
          interval,
          fmt(r.upstreamSent),
          fmt(r.received),
          String(r.lastArrived),
          fmt(r.hostMs, 1),
          fmt(r.upstreamPerSec),
          proxy === 'inflight' ? ratio(r.upstreamPerSec, theirs?.upstreamPerSec) : '',
        ]);
      }
    }
    out.push(
      '### G1. proxy relay: one call whose SDK v1 upstream floods progress, SDK host over HTTP',
      '',
      ...table(
        [
          'host era',
          'proxy',
          'progress interval',
          'upstream sent',
          'host received',
          'last value arrived (runs)',
          'call ms',
          'upstream updates/s through the proxy',
          'ours / mcp-proxy',
        ],
        flood,
      ),
      '',
    );
    const cancel = [];
    for (const era of ['legacy', 'modern']) {
      const theirs = m('G', `cancel ${era} mcp-proxy`);
      for (const proxy of ['inflight', 'mcp-proxy']) {
        const r = m('G', `cancel ${era} ${proxy}`);
        if (!r) continue;
        const worst = Math.max(...results.G[`cancel ${era} ${proxy}`].rows.map((x) => x.maxMs));
        cancel.push([
          ERA[era],
          proxy === 'inflight' ? 'examples/proxy' : 'mcp-proxy',
          fmt(r.measured),
          fmt(r.missing),
          fmt(r.p50Ms, 2),
          fmt(r.p90Ms, 2),
          fmt(r.p99Ms, 2),
          fmt(worst, 2),
          proxy === 'inflight' && theirs
            ? `${ratio(r.p50Ms, theirs.p50Ms)} / ${ratio(r.p99Ms, theirs.p99Ms)} / ${ratio(worst, Math.max(...results.G[`cancel ${era} mcp-proxy`].rows.map((x) => x.maxMs)))}`
            : '',
        ]);
      }
    }
    out.push(
      '### G2. cancel through a proxy: host abort to upstream handler abort (ms, one clock for both processes)',
      '',
      ...table(
        [
          'host era',
          'proxy',
          'calls per run',
          'never reached',
          'p50',
          'p90',
          'p99',
          'max (worst run)',
          'ours / mcp-proxy: p50, p99, max',
        ],
        cancel,
      ),
      '',
      `The trip is read on the machine's monotonic clock (\`process.hrtime\`) in both processes. Their \`performance.timeOrigin + performance.now()\` readings disagreed by up to ${fmt(maxSkew(results.G), 3)} ms (fixed per process pair), so that clock does not time the trip.`,
      '',
    );
  }
  if (results.H) {
    const rows = ['shares', 'no-shares'].flatMap((c) => {
      const r = m('H', c);
      if (!r) return [];
      return [
        [
          c === 'shares' ? 'fair shares (defaults)' : 'no share cap (--max-host-in-flight = --max-in-flight)',
          fmt(r.flood),
          `${fmt(r.baselineRatePerS, 1)} / ${fmt(r.baselineP95Ms, 1)}`,
          `${fmt(r.floodRatePerS, 1)} / ${fmt(r.floodP95Ms, 1)}`,
          fmt(r.rateRatio, 2),
          fmt(r.p95Ratio, 2),
          String(r.meetsTarget),
          fmt(r.loadAverage1m, 2),
        ],
      ];
    });
    out.push(
      '### H. fair shares: a quiet host beside a host keeping long calls in flight, through one proxy',
      '',
      ...table(
        [
          'proxy',
          'flood calls',
          'quiet alone: calls/s / p95 ms',
          'beside the flood: calls/s / p95 ms',
          'rate kept (goal >= 0.5)',
          'p95 ratio (goal <= 3)',
          'goal met (runs)',
          'load average',
        ],
        rows,
      ),
      '',
    );
  }
  if (quick) out.push('(--quick: small sizes, one run; the figures are a smoke test, not a measurement)');
  return out;
}
