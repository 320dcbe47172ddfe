import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Clock, TimerHandle } from '../clock/clock.js';
import { ManualClock } from '../clock/manual-clock.js';
import type { InflightError } from '../errors/inflight-error.js';
import { DeadlineController } from './deadline-controller.js';

// touch() reads no clock: it records the synchronous run it was made in, and the run's end (read in a
// microtask) stands for every touch in it. These tests pin the two promises that makes: a deadline never
// fires early, and it is late by at most the time from its last touch to the end of that touch's run.

// One seed for the file, printed so a failure can be replayed: DEADLINE_SEED=<seed> npx vitest run ...
const seed = Number(process.env.DEADLINE_SEED ?? Math.floor(Math.random() * 2 ** 31));
console.log(`deadline-touch properties: seed ${seed} (replay with DEADLINE_SEED=${seed})`);

const flushMicrotasks = async (): Promise<void> => {
  for (let i = 0; i < 3; i++) await Promise.resolve();
};

/**
 * A clock like the real one: time also passes inside synchronous code (`drift`), where no timer can run;
 * timers run only in `advance`, in due order, each after the microtasks before it have run. Unlike
 * ManualClock it does not end touch runs when it moves, so runs close only in their microtask.
 */
class DriftClock implements Clock {
  #now = 0;
  #seq = 0;
  #timers: { dueAt: number; seq: number; fn: () => void }[] = [];
  now(): number {
    return this.#now;
  }
  setTimer(fn: () => void, ms: number): TimerHandle {
    const timer = { dueAt: this.#now + Math.max(0, ms), seq: this.#seq++, fn };
    this.#timers.push(timer);
    return {
      clear: () => {
        const i = this.#timers.indexOf(timer);
        if (i >= 0) this.#timers.splice(i, 1);
      },
    };
  }
  /** Synchronous code runs for `ms`: time moves, nothing fires. */
  drift(ms: number): void {
    this.#now += ms;
  }
  /** The event loop is free for `ms`: every timer due in it runs at its instant, after pending microtasks. */
  async advance(ms: number): Promise<void> {
    const target = this.#now + ms;
    await flushMicrotasks();
    for (;;) {
      let next: { dueAt: number; seq: number; fn: () => void } | undefined;
      for (const t of this.#timers)
        if (
          t.dueAt <= target &&
          (!next || t.dueAt < next.dueAt || (t.dueAt === next.dueAt && t.seq < next.seq))
        )
          next = t;
      if (!next) break;
      this.#timers.splice(this.#timers.indexOf(next), 1);
      this.#now = Math.max(this.#now, next.dueAt);
      next.fn();
      await flushMicrotasks();
    }
    this.#now = target;
  }
}

// A burst is one synchronous run: touches with time passing between them, then more time before the code
// yields (the run's end). Between bursts the event loop is free for `gapMs`.
const burstArb = fc.record({
  gapMs: fc.integer({ min: 0, max: 400 }),
  touches: fc.array(fc.integer({ min: 0, max: 30 }), { maxLength: 4 }),
  tailMs: fc.integer({ min: 0, max: 30 }),
});
const limitsArb = fc.record({
  idleMs: fc.integer({ min: 1, max: 300 }),
  ceilingMs: fc.oneof(fc.integer({ min: 1, max: 3_000 }), fc.constant(Number.POSITIVE_INFINITY)),
});

describe('DeadlineController.touch: never early, lateness bounded by the touch run', () => {
  it('on a clock where synchronous code takes time: fires at max(free instant, min(ceiling, end of the last touch run + idle)), never before the exact limit', async () => {
    await fc.assert(
      fc.asyncProperty(
        limitsArb,
        fc.array(burstArb, { maxLength: 25 }),
        async ({ idleMs, ceilingMs }, bursts) => {
          const clock = new DriftClock();
          const deadline = new DeadlineController({ clock, idleMs, ceilingMs });
          let firedAt: number | undefined;
          deadline.signal.addEventListener('abort', () => {
            firedAt = clock.now();
          });
          const ceilingAt = ceilingMs;
          let lastTouch = 0; // the start counts as activity
          let lastRunEnd = 0;
          const check = async (gapMs: number): Promise<boolean> => {
            const freeAt = clock.now();
            const exact = Math.min(ceilingAt, lastTouch + idleMs);
            const promised = Math.min(ceilingAt, lastRunEnd + idleMs);
            await clock.advance(gapMs);
            if (firedAt === undefined) {
              expect(Math.max(freeAt, promised)).toBeGreaterThan(freeAt + gapMs);
              return false;
            }
            // Never early: not before the last touch's exact idle limit, nor before the ceiling.
            expect(firedAt).toBeGreaterThanOrEqual(exact);
            const code = (deadline.signal.reason as InflightError).code;
            if (code === 'CEILING') expect(firedAt).toBeGreaterThanOrEqual(ceilingAt);
            else expect(firedAt).toBeGreaterThanOrEqual(lastTouch + idleMs);
            // Late by exactly what the bound says, and no more than the last touch's run had left to go.
            expect(firedAt).toBe(Math.max(freeAt, promised));
            expect(firedAt - Math.max(freeAt, exact)).toBeLessThanOrEqual(lastRunEnd - lastTouch);
            return true;
          };
          for (const burst of bursts) {
            if (await check(burst.gapMs)) return;
            if (burst.touches.length === 0) continue;
            for (const driftMs of burst.touches) {
              clock.drift(driftMs);
              deadline.touch();
              lastTouch = clock.now();
            }
            clock.drift(burst.tailMs);
            lastRunEnd = clock.now();
            await flushMicrotasks(); // the code yields: the run closes at lastRunEnd
          }
          await check(10_000);
          expect(firedAt).toBeDefined();
        },
      ),
      { seed, numRuns: 300 },
    );
  });

  it('with ManualClock the lateness is zero, whether or not microtasks run between touches and advances', async () => {
    await fc.assert(
      fc.asyncProperty(
        limitsArb,
        fc.array(
          fc.record({
            gapMs: fc.integer({ min: 0, max: 200 }),
            touch: fc.boolean(),
            yieldFirst: fc.boolean(),
          }),
          {
            maxLength: 40,
          },
        ),
        async ({ idleMs, ceilingMs }, steps) => {
          const clock = new ManualClock(1_000);
          const deadline = new DeadlineController({ clock, idleMs, ceilingMs });
          let firedAt: number | undefined;
          deadline.signal.addEventListener('abort', () => {
            firedAt = clock.now();
          });
          let lastTouch = 1_000;
          const due = (): number => Math.min(1_000 + ceilingMs, lastTouch + idleMs);
          for (const step of steps) {
            if (step.yieldFirst) await flushMicrotasks();
            const before = clock.now();
            clock.advance(step.gapMs);
            if (firedAt !== undefined) {
              expect(firedAt).toBe(due());
              expect(firedAt).toBeGreaterThan(before - 1);
              return;
            }
            expect(due()).toBeGreaterThan(clock.now());
            if (step.touch) {
              deadline.touch();
              lastTouch = clock.now();
            }
          }
          clock.advance(10_000);
          expect(firedAt).toBe(due());
        },
      ),
      { seed, numRuns: 300 },
    );
  });

  it('counts touches made while synchronous code runs from the end of that run: 5 ms of work after the last touch make it 5 ms later, not earlier', async () => {
    const clock = new DriftClock();
    const deadline = new DeadlineController({ clock, idleMs: 100 });
    await clock.advance(50);
    deadline.touch(); // at 50
    clock.drift(5); // the same synchronous code runs on to 55, then yields
    await flushMicrotasks();
    await clock.advance(99); // to 154: the exact limit (150) has passed, the promised one (155) has not
    expect(deadline.aborted).toBe(false);
    await clock.advance(1);
    expect((deadline.reason as InflightError).code).toBe('IDLE_TIMEOUT');
    expect((deadline.reason as InflightError).details).toMatchObject({ elapsedMs: 155, progressCount: 1 });
  });

  it('remainingMs is never short: while the touch run is open it counts from now, after it from the run end', async () => {
    const clock = new DriftClock();
    const deadline = new DeadlineController({ clock, idleMs: 100, ceilingMs: 1_000 });
    await clock.advance(10);
    deadline.touch(); // at 10
    clock.drift(4); // still in the same run, at 14
    expect(deadline.remainingMs()).toBe(100); // counts from now (14): the touch was no later than this
    expect(deadline.deadlineAt()).toBe(114);
    clock.drift(2); // the run ends at 16
    await flushMicrotasks();
    expect(deadline.deadlineAt()).toBe(116);
    await clock.advance(6); // 22
    expect(deadline.remainingMs()).toBe(94);
    deadline.dispose();
  });

  it('the ceiling is exact whatever the touches: it fires at start + ceiling to the millisecond', async () => {
    const clock = new DriftClock();
    const deadline = new DeadlineController({ clock, idleMs: 40, ceilingMs: 250 });
    let firedAt: number | undefined;
    deadline.signal.addEventListener('abort', () => {
      firedAt = clock.now();
    });
    for (let i = 0; i < 20; i++) {
      await clock.advance(20);
      deadline.touch();
      clock.drift(3);
    }
    expect(firedAt).toBe(250);
    expect((deadline.reason as InflightError).code).toBe('CEILING');
  });

  it('a touch does not read the clock', () => {
    const manual = new ManualClock();
    let reads = 0;
    const clock: Clock = {
      now: () => {
        reads++;
        return manual.now();
      },
      setTimer: (fn, ms) => manual.setTimer(fn, ms),
    };
    const deadlines = Array.from({ length: 100 }, () => new DeadlineController({ clock, idleMs: 1_000 }));
    const before = reads;
    for (let round = 0; round < 100; round++) for (const d of deadlines) d.touch();
    expect(reads).toBe(before);
    expect(deadlines[0]!.touches).toBe(100);
    for (const d of deadlines) d.dispose();
  });
});
