// What each call of the soak is meant to do, and which outcomes count as consistent with that.
import { between, mix, rng } from './rng.mjs';

/** The proxies' own limits (`--idle-timeout`, `--max-timeout`): short enough for a few calls to hit. */
export const PROXY_IDLE_MS = 2_000;
export const PROXY_CEILING_MS = 3_000;

/** Client deadlines for calls that are not meant to hit one. */
const RELAXED = { idleMs: 30_000, ceilingMs: 60_000 };

/**
 * Intents, with their share of calls (per 10,000) and the `work` they send. `complete` is the bulk: 1-3
 * steps of 0-2 ms. The others each aim at one way a call ends early:
 * - `cancel`: the host aborts 0-4 ms in (its work takes about 45 ms, room for a loaded event loop);
 * - `idle` / `ceiling`: the host's own deadline on the request (10 ms idle against 50 ms steps; a 12 ms
 *   ceiling against 30 steps of 2 ms, progress all along);
 * - `proxy-idle` / `proxy-ceiling`: the proxy's limits two hops away (one 3 s step against its 2 s idle;
 *   40 ms steps for 4 s against its 3 s ceiling), which must reach the host with the same cause [rule 11].
 *   The limits are long enough that a loaded machine does not trip them on ordinary calls.
 */
const INTENTS = [
  ['complete', 8_880],
  ['cancel', 700],
  ['idle', 200],
  ['ceiling', 200],
  ['proxy-idle', 10],
  ['proxy-ceiling', 10],
];

/** The outcome each intent should end with. */
export const EXPECTED = {
  complete: 'completed',
  cancel: 'cancelled',
  idle: 'idle',
  ceiling: 'ceiling',
  'proxy-idle': 'idle',
  'proxy-ceiling': 'ceiling',
};

/** Every intent, in report order. */
export const INTENT_NAMES = INTENTS.map(([name]) => name);

/**
 * The plan for call `index` of lane `lane`: the intent, the `work` arguments, the request's deadlines,
 * whether it asks for progress, and when a `cancel` aborts.
 */
export function planCall(seed, lane, index) {
  const random = rng(mix(seed, lane, index));
  let pick = random() * 10_000;
  let intent = 'complete';
  for (const [name, weight] of INTENTS) {
    if (pick < weight) {
      intent = name;
      break;
    }
    pick -= weight;
  }
  const progress = random() < 0.7;
  switch (intent) {
    case 'complete':
      return {
        intent,
        progress,
        args: { steps: between(random, 1, 3), intervalMs: between(random, 0, 2) },
        ...RELAXED,
      };
    case 'cancel':
      return {
        intent,
        progress,
        args: { steps: 3, intervalMs: 15 },
        ...RELAXED,
        cancelAfterMs: between(random, 0, 4),
      };
    case 'idle':
      return { intent, progress, args: { steps: 2, intervalMs: 50 }, idleMs: 10, ceilingMs: 60_000 };
    case 'ceiling':
      return { intent, progress: true, args: { steps: 30, intervalMs: 2 }, idleMs: 1_000, ceilingMs: 12 };
    case 'proxy-idle':
      return { intent, progress, args: { steps: 1, intervalMs: 3_000 }, ...RELAXED };
    default:
      return { intent, progress: true, args: { steps: 100, intervalMs: 40 }, ...RELAXED };
  }
}

/** Names a call's ending: `completed`, or the cause of its error (`cancelled`, `idle`, ...). */
export function outcomeOf(error) {
  if (error === undefined) return 'completed';
  switch (error?.code) {
    case 'CANCELLED':
      return 'cancelled';
    case 'IDLE_TIMEOUT':
      return 'idle';
    case 'CEILING':
      return 'ceiling';
    case 'DISCONNECTED':
      return 'disconnected';
    case 'UPSTREAM_CLOSED':
      return 'upstream-closed';
    case 'UPSTREAM_UNAVAILABLE':
      return 'upstream-unavailable';
    case 'SHUTDOWN':
      return 'shutdown';
    case 'SESSION_EXPIRED':
      return 'session-expired';
    default:
      return `error ${error?.code ?? ''} ${String(error?.message ?? error).slice(0, 80)}`.trim();
  }
}

/** Outcomes a call may also have when the host was dropped under it, or its upstream was killed. */
const BY_DROP = new Set(['disconnected', 'shutdown', 'upstream-closed', 'completed']);
// A call that waits for the fresh upstream after a kill may meet the proxy's ceiling first: the ceiling
// counts from the host's request, the wait for a (re)started upstream included; or the proxy's
// --connect-timeout, when the fresh upstream is slower to start than that on a loaded machine.
const BY_KILL = new Set(['upstream-closed', 'ceiling', 'upstream-unavailable']);

/**
 * Judges one ended call: `ok` (what it meant), `race` (its deadline or cancel lost to its result: a
 * tolerated race, counted), `exposed` (a drop or kill explains it), or `wrong`.
 */
export function judge(plan, outcome, exposure) {
  if (outcome === EXPECTED[plan.intent]) return 'ok';
  if (exposure.drop && BY_DROP.has(outcome)) return 'exposed';
  if (exposure.kill && BY_KILL.has(outcome)) return 'exposed';
  if (plan.intent !== 'complete' && outcome === 'completed') return 'race';
  return 'wrong';
}
