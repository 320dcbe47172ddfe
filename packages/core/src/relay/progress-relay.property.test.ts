import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../clock/manual-clock.js';
import { ProgressRelay } from './progress-relay.js';

// Inputs a misbehaving peer might send: small integers (many duplicates), any double (NaN, ±Infinity,
// -0, subnormals), and the odd non-number.
const value = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: -3, max: 40 }) },
  { weight: 3, arbitrary: fc.double() },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(Number.NaN, Number.POSITIVE_INFINITY, '7', null) },
);
const step = fc.record({ gapMs: fc.integer({ min: 0, max: 120 }), value });
const scenario = fc.record({
  steps: fc.array(step, { maxLength: 60 }),
  // Where the route closes without a flush (cancel, error, deadline); past the end means never.
  closeAt: fc.integer({ min: 0, max: 80 }),
  minIntervalMs: fc.constantFrom(0, 1, 25, 50, 100),
  ending: fc.constantFrom('timer' as const, 'settle' as const),
});

/** The values a relay must accept: finite numbers above everything accepted before. */
function acceptedOf(values: unknown[]): number[] {
  const accepted: number[] = [];
  let last = Number.NEGATIVE_INFINITY;
  for (const v of values) {
    if (typeof v === 'number' && Number.isFinite(v) && v > last) {
      accepted.push(v);
      last = v;
    }
  }
  return accepted;
}

function isSubsequence(sub: unknown[], of: unknown[]): boolean {
  let i = 0;
  for (const v of of) if (i < sub.length && v === sub[i]) i++;
  return i === sub.length;
}

describe('ProgressRoute properties', () => {
  it('output is strictly increasing, a subsequence of the input, ends with the last accepted value, and stops at close', () => {
    fc.assert(
      fc.property(scenario, ({ steps, closeAt, minIntervalMs, ending }) => {
        const clock = new ManualClock();
        const relay = new ProgressRelay({ clock, minIntervalMs });
        const sent: Array<{ progress: number; at: number }> = [];
        const route = relay.open({
          token: 'tok',
          revision: '2025-06-18',
          send: (params) => sent.push({ progress: params.progress, at: clock.now() }),
        });
        const beforeClose: unknown[] = [];
        let sentAtClose = -1;
        let pushedAfterClose = 0;
        steps.forEach((s, i) => {
          if (i === closeAt) {
            route.close();
            sentAtClose = sent.length;
          }
          clock.advance(s.gapMs);
          if (route.closed) pushedAfterClose++;
          else beforeClose.push(s.value);
          route.push(s.value);
        });
        const closedEarly = route.closed;
        const beforeEnding = sent.length;
        if (ending === 'timer') clock.advance(1_000);
        else route.settle({ content: [] });

        const out = sent.map((s) => s.progress);
        const accepted = acceptedOf(beforeClose);
        for (let i = 1; i < out.length; i++) expect(out[i]!).toBeGreaterThan(out[i - 1]!);
        expect(isSubsequence(out, accepted)).toBe(true);
        if (closedEarly) {
          // Nothing after close: not the pending value, not anything pushed later.
          expect(sent.length).toBe(sentAtClose);
          expect(relay.stats.late).toBe(pushedAfterClose);
        } else if (accepted.length > 0) {
          expect(out.at(-1)).toBe(accepted.at(-1));
        } else {
          expect(out).toEqual([]);
        }
        // Every send that a push or the interval timer made kept the interval.
        const paced = ending === 'settle' ? sent.slice(0, beforeEnding) : sent;
        for (let i = 1; i < paced.length; i++) {
          expect(paced[i]!.at - paced[i - 1]!.at).toBeGreaterThanOrEqual(minIntervalMs);
        }
        expect(relay.stats.passed).toBe(sent.length);
        expect(relay.stats.passed + relay.stats.coalesced).toBeLessThanOrEqual(accepted.length);
        expect(clock.pendingTimers).toBe(0);
      }),
      { numRuns: 500 },
    );
  });

  it('with no interval, passes exactly the accepted values', () => {
    fc.assert(
      fc.property(fc.array(value, { maxLength: 80 }), (values) => {
        const relay = new ProgressRelay({ clock: new ManualClock(), minIntervalMs: 0 });
        const out: number[] = [];
        const route = relay.open({ token: 1, revision: '2024-11-05', send: (p) => out.push(p.progress) });
        for (const v of values) route.push(v);
        expect(out).toEqual(acceptedOf(values));
        expect(relay.stats.dropped).toBe(values.length - out.length);
      }),
      { numRuns: 300 },
    );
  });

  it('many routes on one relay stay independent and share one armed timer', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            route: fc.nat({ max: 9 }),
            gapMs: fc.nat({ max: 30 }),
            value: fc.integer({ min: 0, max: 50 }),
          }),
          {
            maxLength: 120,
          },
        ),
        (steps) => {
          const clock = new ManualClock();
          const relay = new ProgressRelay({ clock, minIntervalMs: 40 });
          const outs = Array.from({ length: 10 }, () => [] as number[]);
          const routes = outs.map((out, i) =>
            relay.open({ token: i, revision: '2025-11-25', send: (p) => out.push(p.progress) }),
          );
          for (const s of steps) {
            clock.advance(s.gapMs);
            routes[s.route]!.push(s.value);
            expect(clock.pendingTimers).toBeLessThanOrEqual(1);
          }
          clock.advance(1_000);
          outs.forEach((out, i) => {
            const mine = acceptedOf(steps.filter((s) => s.route === i).map((s) => s.value));
            expect(isSubsequence(out, mine)).toBe(true);
            expect(out.at(-1)).toBe(mine.at(-1));
          });
        },
      ),
      { numRuns: 200 },
    );
  });
});
