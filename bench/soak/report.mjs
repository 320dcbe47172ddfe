// Counting the soak's calls and printing what it found.
import { EXPECTED, INTENT_NAMES } from './plan.mjs';

/** At most this share of a deadline or cancel intent may lose its race to the result (plus a few). */
export const RACE_TOLERANCE = 0.01;
const RACE_SLACK = 5;

/** Every ended call, counted once: by intent and outcome, by verdict, by lane. */
export class Tally {
  calls = 0;
  byIntent = new Map(INTENT_NAMES.map((name) => [name, new Map()]));
  verdicts = { ok: 0, race: 0, exposed: 0, wrong: 0 };
  racesByIntent = new Map();
  exposedBy = { kill: 0, drop: 0 };
  /** Endings explained by a disturbance, by disturbance and outcome. */
  explained = new Map();
  wrong = [];
  byLane = new Map();
  completedByLane = new Map();

  add(lane, plan, outcome, exposure, verdict) {
    this.calls++;
    const outcomes = this.byIntent.get(plan.intent);
    outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
    this.verdicts[verdict]++;
    this.byLane.set(lane.name, (this.byLane.get(lane.name) ?? 0) + 1);
    if (outcome === 'completed')
      this.completedByLane.set(lane.name, (this.completedByLane.get(lane.name) ?? 0) + 1);
    if (verdict === 'race')
      this.racesByIntent.set(plan.intent, (this.racesByIntent.get(plan.intent) ?? 0) + 1);
    if (verdict === 'exposed') {
      if (exposure.kill) this.exposedBy.kill++;
      if (exposure.drop) this.exposedBy.drop++;
      const key = `${exposure.drop ? 'host drop' : 'upstream kill'}: ${outcome}`;
      this.explained.set(key, (this.explained.get(key) ?? 0) + 1);
    }
    if (verdict === 'wrong' && this.wrong.length < 20)
      this.wrong.push({ lane: lane.name, intent: plan.intent, args: plan.args, outcome, exposure });
  }

  /** Calls planned with `intent`. */
  count(intent) {
    let n = 0;
    for (const v of this.byIntent.get(intent).values()) n += v;
    return n;
  }
}

const fmt = (n) => Math.round(n).toLocaleString('en-US');
const mb = (bytes) => `${(bytes / 1_048_576).toFixed(2)} MB`;
const signedMb = (bytes) => `${bytes >= 0 ? '+' : '-'}${mb(Math.abs(bytes))}`;

/** The outcomes table: one row per intent, one column per outcome seen. */
export function outcomeTable(tally) {
  const columns = [];
  for (const outcomes of tally.byIntent.values())
    for (const outcome of outcomes.keys()) if (!columns.includes(outcome)) columns.push(outcome);
  const order = [
    'completed',
    'cancelled',
    'idle',
    'ceiling',
    'disconnected',
    'shutdown',
    'upstream-closed',
    'upstream-unavailable',
  ];
  columns.sort((a, b) => (order.indexOf(a) + 1 || 99) - (order.indexOf(b) + 1 || 99));
  const width = Math.max(...columns.map((c) => c.length), 9) + 2;
  const lines = [
    `  ${'intent'.padEnd(15)}${'calls'.padStart(10)}${columns.map((c) => c.padStart(width)).join('')}`,
  ];
  for (const [intent, outcomes] of tally.byIntent) {
    const cells = columns.map((c) => fmt(outcomes.get(c) ?? 0).padStart(width));
    lines.push(`  ${intent.padEnd(15)}${fmt(tally.count(intent)).padStart(10)}${cells.join('')}`);
  }
  return lines.join('\n');
}

/** The checks on the calls: each has one ending, and it is what was meant (or explained). */
export function callChecks(tally, planned) {
  const checks = [];
  checks.push({
    ok: tally.calls === planned,
    what: `every call ended exactly once: ${fmt(tally.calls)} endings for ${fmt(planned)} calls`,
  });
  checks.push({
    ok: tally.verdicts.wrong === 0,
    what: `no call ended other than meant or explained by a kill or drop (${tally.verdicts.wrong} did)`,
  });
  for (const intent of INTENT_NAMES) {
    if (intent === 'complete') continue;
    const n = tally.count(intent);
    const races = tally.racesByIntent.get(intent) ?? 0;
    const allowed = Math.floor(n * RACE_TOLERANCE) + RACE_SLACK;
    checks.push({
      ok: races <= allowed,
      what: `${intent}: ${races} of ${fmt(n)} completed before their ${EXPECTED[intent]} fired (tolerance ${allowed})`,
    });
  }
  return checks;
}

/** One process's figures at the start and the end, and the checks on them. */
export function processChecks(name, start, end, { compareHeap, http, freshNodeTimeouts = 0 }) {
  const checks = [];
  const rows = [];
  const heapRow = (label, a, b, same) => {
    const delta = b.heapUsedBytes - a.heapUsedBytes;
    rows.push(
      heapLine(
        label,
        same ? a.heapUsedBytes : undefined,
        b.heapBeforeGcBytes,
        b.heapUsedBytes,
        same ? '' : `  pid ${a.pid} -> ${b.pid}`,
      ),
    );
    if (same && compareHeap)
      checks.push({
        ok: delta <= 5 * 1_048_576,
        what: `${label}: heap after GC within 5 MB of the start (${signedMb(delta)})`,
      });
  };
  heapRow(`${name} proxy`, start, end, start.pid === end.pid);
  const up0 = start.upstream.stats;
  const up1 = end.upstream.stats;
  if (up0 && up1) heapRow(`${name} upstream`, up0, up1, up0.pid === up1.pid);
  else checks.push({ ok: false, what: `${name}: the upstream answered stats (${end.upstream.error})` });

  const zero = (label, object, keys) => {
    const bad = keys.filter((k) => object?.[k] !== 0);
    checks.push({
      ok: bad.length === 0,
      what: `${label}: ${keys.map((k) => `${k} ${object?.[k]}`).join(', ')}`,
    });
  };
  const tableKeys = ['inboundInFlight', 'outboundInFlight', 'outboundTokens', 'progressRoutes'];
  zero(`${name} proxy host tables`, end.tables, tableKeys);
  zero(`${name} proxy relay`, end.relay, ['inFlight', 'inFlightTable']);
  zero(`${name} proxy upstream leg`, end.upstream.tables, tableKeys);
  if (up1) {
    zero(`${name} upstream tables`, up1.tables, tableKeys);
    zero(`${name} upstream work`, up1.work, ['running']);
  }
  if (http) zero(`${name} proxy HTTP`, end.transport, ['statelessInFlight']);
  else zero(`${name} proxy stdio`, end.transport, ['queuedRequests', 'queuedBytes']);
  if (up1) zero(`${name} upstream stdio`, up1.transport, ['queuedRequests', 'queuedBytes']);
  for (const [label, timers, fresh] of [
    [`${name} proxy`, end.timers, freshNodeTimeouts],
    [`${name} upstream`, up1?.timers, 0],
  ]) {
    const note = fresh === 0 ? '' : ` (a fresh one shows ${fresh}: the stats request's own stream)`;
    checks.push({
      ok: timers?.queued === 0 && timers?.armed === false && timers?.nodeTimeouts === fresh,
      what: `${label} timers: ${timers?.queued} queued, clock timer ${timers?.armed ? 'armed' : 'not armed'}, ${timers?.nodeTimeouts} Node timeouts${note}`,
    });
  }
  return { rows, checks };
}

export { fmt, mb, signedMb };

/** What one proxy saw of its calls (its relay's totals): how each ended upstream, and why. */
export function proxyView(name, stats) {
  const r = stats.relay;
  const cancelled = Object.entries(r.cancelled)
    .map(([cause, n]) => `${cause} ${fmt(n)}`)
    .join(', ');
  return `  ${name.padEnd(18)} ${fmt(r.calls)} relayed: ${fmt(r.completed)} completed, ${fmt(r.upstreamClosed)} upstream closed, ${fmt(r.errors)} errors, cancelled upstream: ${cancelled || 'none'}; ${fmt(r.progressIn)} progress in, ${fmt(r.progressOut)} out; ${stats.upstream.starts} upstream starts`;
}

/** The heap table's header and rows: start (after GC), end before GC, end after GC, growth. */
export const HEAP_HEADER = `  ${''.padEnd(26)}${'start'.padStart(12)}${'end'.padStart(12)}${'end, GC'.padStart(12)}${'growth'.padStart(12)}`;
export function heapLine(label, start, endBefore, end, note = '') {
  const cell = (bytes) => (bytes === undefined ? '-' : mb(bytes)).padStart(12);
  const growth = start === undefined ? '(restarted)' : signedMb(end - start);
  return `  ${label.padEnd(26)}${cell(start)}${cell(endBefore)}${cell(end)}${growth.padStart(12)}${note}`;
}

/**
 * Each hop counted each call once, on a lane whose proxy and upstream lived the whole run: the proxy's
 * endings add up to what it relayed, it relayed no more than the host sent (a cancel that overtakes its
 * request means the call never starts), and completions only thin out towards the host (a result can
 * cross a host's cancel, never the other way).
 */
export function hopChecks(name, hostCalls, hostCompleted, stats) {
  const r = stats.relay;
  const cancelled = Object.values(r.cancelled).reduce((sum, n) => sum + n, 0);
  const ended = r.completed + r.errors + r.upstreamClosed + cancelled;
  const work = stats.upstream.stats?.work ?? {};
  return [
    {
      ok: ended === r.calls && r.calls <= hostCalls,
      what: `${name}: the proxy ended each relayed call once (${fmt(ended)} endings, ${fmt(r.calls)} relayed, ${fmt(hostCalls)} sent by the host)`,
    },
    {
      ok: work.running === 0 && work.completed >= r.completed && r.completed >= hostCompleted,
      what: `${name}: completions upstream ${fmt(work.completed)} >= at the proxy ${fmt(r.completed)} >= at the host ${fmt(hostCompleted)}`,
    },
  ];
}
