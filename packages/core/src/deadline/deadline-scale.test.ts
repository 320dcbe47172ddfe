import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Clock } from '../clock/clock.js';
import { ManualClock } from '../clock/manual-clock.js';
import type { InflightError } from '../errors/inflight-error.js';
import { DeadlineController } from './deadline-controller.js';

/** A ManualClock that counts every clock timer armed on it. */
function countingClock(): { clock: ManualClock; armed: () => number } {
  const clock = new ManualClock();
  let armed = 0;
  const setTimer: Clock['setTimer'] = clock.setTimer.bind(clock);
  clock.setTimer = (fn, ms) => {
    armed++;
    return setTimer(fn, ms);
  };
  return { clock, armed: () => armed };
}

describe('DeadlineController at scale', () => {
  it('10,000 live DeadlineControllers leave ManualClock.pendingTimers at 1', () => {
    const clock = new ManualClock();
    const deadlines: DeadlineController[] = [];
    for (let i = 0; i < 10_000; i++) {
      deadlines.push(new DeadlineController({ clock, idleMs: 1_000 + (i % 97), ceilingMs: 60_000 + i }));
    }
    expect(clock.pendingTimers).toBe(1);
    // Still one while they run and some fire.
    for (let step = 0; step < 20; step++) {
      clock.advance(100);
      for (let i = step % 3; i < deadlines.length; i += 3) deadlines[i]!.touch();
      expect(clock.pendingTimers).toBe(1);
    }
    for (const deadline of deadlines) deadline.dispose();
    expect(clock.pendingTimers).toBe(0);
  });

  it('1,000,000 touches arm no new timer', () => {
    const { clock, armed } = countingClock();
    const deadlines = Array.from(
      { length: 1_000 },
      () => new DeadlineController({ clock, idleMs: 5_000, ceilingMs: 600_000 }),
    );
    const armedBefore = armed();
    expect(armedBefore).toBe(1);
    for (let round = 0; round < 1_000; round++) {
      for (const deadline of deadlines) deadline.touch();
    }
    expect(armed()).toBe(armedBefore);
    expect(deadlines[0]!.touches).toBe(1_000);
    expect(clock.pendingTimers).toBe(1);
    for (const deadline of deadlines) deadline.dispose();
  });

  it('touches between firings cost at most one re-arm per window, not one per touch', () => {
    const { clock, armed } = countingClock();
    const deadline = new DeadlineController({ clock, idleMs: 100 });
    for (let i = 0; i < 10_000; i++) {
      clock.advance(1);
      deadline.touch();
    }
    // 10,000 ms of steady progress with a 100 ms idle window: about one lazy re-check per window.
    expect(armed()).toBeLessThanOrEqual(10_000 / 100 + 2);
    expect(deadline.signal.aborted).toBe(false);
    deadline.dispose();
  });
});

const idleArb = fc.oneof(fc.integer({ min: 1, max: 400 }), fc.constant(Number.POSITIVE_INFINITY));
const ceilingArb = fc.oneof(fc.integer({ min: 1, max: 2_000 }), fc.constant(Number.POSITIVE_INFINITY));
const touchesArb = fc
  .array(fc.integer({ min: 0, max: 3_000 }), { maxLength: 40 })
  .map((ts) => ts.sort((a, b) => a - b));

/** The reference: when and why a deadline started at `start` fires, given the touch instants. */
function expectedFiring(start: number, idleMs: number, ceilingMs: number, touches: number[]) {
  const ceilingAt = start + ceilingMs;
  let lastTouch = start;
  for (const t of touches) {
    // A touch at or after the due instant comes too late: the timer fires first.
    if (t >= Math.min(lastTouch + idleMs, ceilingAt)) break;
    lastTouch = t;
  }
  const idleAt = lastTouch + idleMs;
  return { at: Math.min(idleAt, ceilingAt), code: ceilingAt <= idleAt ? 'CEILING' : 'IDLE_TIMEOUT' };
}

describe('DeadlineController properties', () => {
  it('fires exactly at min(last touch + idle, start + ceiling), with the code of the limit that fired', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1_000 }),
        idleArb,
        ceilingArb,
        touchesArb,
        (startOffset, idleMs, ceilingMs, touchOffsets) => {
          fc.pre(idleMs !== Number.POSITIVE_INFINITY || ceilingMs !== Number.POSITIVE_INFINITY);
          const clock = new ManualClock(startOffset);
          const deadline = new DeadlineController({ clock, idleMs, ceilingMs });
          let firedAt: number | undefined;
          deadline.signal.addEventListener('abort', () => {
            firedAt = clock.now();
          });
          const touches = touchOffsets.map((t) => startOffset + t);
          for (const t of touches) {
            clock.advance(t - clock.now());
            deadline.touch();
          }
          clock.advance(10_000);
          const expected = expectedFiring(startOffset, idleMs, ceilingMs, touches);
          expect(firedAt).toBe(expected.at);
          expect((deadline.signal.reason as InflightError).code).toBe(expected.code);
          expect(clock.pendingTimers).toBe(0);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('a child fires no later than its parent would, and never with a stale reason', () => {
    fc.assert(
      fc.property(
        idleArb,
        ceilingArb,
        idleArb,
        ceilingArb,
        touchesArb,
        (pIdle, pCeiling, cIdle, cCeiling, touches) => {
          fc.pre(pIdle !== Number.POSITIVE_INFINITY || pCeiling !== Number.POSITIVE_INFINITY);
          const clock = new ManualClock();
          const parent = new DeadlineController({ clock, idleMs: pIdle, ceilingMs: pCeiling });
          const child = new DeadlineController({ parent, idleMs: cIdle, ceilingMs: cCeiling });
          let childAt: number | undefined;
          child.signal.addEventListener('abort', () => {
            childAt = clock.now();
          });
          // Touching the child touches the parent, so the parent's timeline is the reference one.
          for (const t of touches) {
            clock.advance(t - clock.now());
            child.touch();
          }
          clock.advance(10_000);
          const parentFiring = expectedFiring(0, pIdle, pCeiling, touches);
          expect(childAt).toBeDefined();
          expect(childAt!).toBeLessThanOrEqual(parentFiring.at);
          if (childAt === parentFiring.at) expect(child.signal.reason).toBe(parent.signal.reason);
          expect(clock.pendingTimers).toBe(0);
        },
      ),
      { numRuns: 500 },
    );
  });
});
