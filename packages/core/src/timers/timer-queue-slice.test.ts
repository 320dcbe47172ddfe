import { describe, expect, it } from 'vitest';
import type { Clock, TimerHandle } from '../clock/clock.js';
import { ManualClock } from '../clock/manual-clock.js';
import { DeadlineController } from '../deadline/deadline-controller.js';
import { TimerQueue } from './timer-queue.js';

/**
 * A clock whose reading moves on by `stepMs` every time it is read, the way real time moves while a long
 * batch runs. Its timers run only when the test says (`runTimer`), so a test sees each one armed.
 */
class StepClock implements Clock {
  at = 0;
  stepMs = 0;
  readonly timers: Array<{ fn: () => void; ms: number; live: boolean }> = [];

  now(): number {
    const reading = this.at;
    this.at += this.stepMs;
    return reading;
  }

  setTimer(fn: () => void, ms: number): TimerHandle {
    const timer = { fn, ms, live: true };
    this.timers.push(timer);
    return {
      clear: () => {
        timer.live = false;
      },
    };
  }

  get live(): Array<{ fn: () => void; ms: number; live: boolean }> {
    return this.timers.filter((t) => t.live);
  }

  /** Runs the one armed timer as if it came due now. */
  runTimer(): void {
    const live = this.live;
    expect(live.length).toBe(1);
    live[0]!.live = false;
    live[0]!.fn();
  }
}

/** Lets the batch's continuations run: each slice continues after the event loop's I/O (`setImmediate`). */
const afterContinuations = async (): Promise<void> => {
  for (let turn = 0; turn < 50; turn++) await new Promise((resolve) => setImmediate(resolve));
};

describe('TimerQueue firing a long batch', () => {
  it('yields once a slice of real time has run, lets the fired callers hear first, then finishes', async () => {
    const clock = new StepClock();
    const queue = new TimerQueue(clock);
    const fires = new Map<number, number>();
    const heard: number[] = [];
    let heardWhenResumed = -1;
    let mostUnheard = 0; // callers fired but not yet told, at any firing
    const n = 1_000;
    for (let i = 0; i < n; i++) {
      // Half due at 10, half at 10,000: the late half must not fire in this storm.
      const dueAt = i % 2 === 0 ? 10 : 10_000;
      queue.schedule(dueAt, () => {
        if (fires.size === 64 && heardWhenResumed < 0) heardWhenResumed = heard.length;
        expect(fires.has(i)).toBe(false); // exactly once
        expect(clock.at).toBeGreaterThanOrEqual(dueAt); // never early
        fires.set(i, clock.at);
        mostUnheard = Math.max(mostUnheard, fires.size - heard.length);
        queueMicrotask(() => heard.push(i)); // the caller hears in a microtask, as a rejection would
      });
    }
    clock.at = 10;
    clock.stepMs = 1; // every reading moves on a millisecond
    clock.runTimer();
    // The first check (after 64 firings) finds 1 ms gone: the loop stopped there, re-armed at 0 ms.
    expect(fires.size).toBe(64);
    expect(clock.live.map((t) => t.ms)).toEqual([0]);
    // Other work queued now (a response read, another caller's turn) runs between slices, not after all.
    let firedWhenOtherWorkRan = -1;
    setImmediate(() => {
      firedWhenOtherWorkRan = fires.size;
    });
    await afterContinuations();
    expect(firedWhenOtherWorkRan).toBeGreaterThanOrEqual(64);
    expect(firedWhenOtherWorkRan).toBeLessThan(n / 2);
    // Those 64 callers heard before the batch went on, and the batch finished without the timer.
    expect(heardWhenResumed).toBe(64);
    expect(fires.size).toBe(n / 2);
    expect([...fires.keys()].every((i) => i % 2 === 0)).toBe(true);
    expect(heard.length).toBe(n / 2);
    // In one unbroken loop the last one would fire with 499 others still untold; here never more than a slice.
    expect(mostUnheard).toBe(64);
    // What is left is the late half, on one timer for its own instant.
    expect(queue.size).toBe(n / 2);
    expect(clock.live.length).toBe(1);
    expect(clock.live[0]!.ms).toBeGreaterThan(9_000);
  });

  it('resumes from its 0 ms timer too, and the continuation then finds nothing left to do', async () => {
    const clock = new StepClock();
    const queue = new TimerQueue(clock);
    let fired = 0;
    for (let i = 0; i < 300; i++) queue.schedule(5, () => fired++);
    clock.at = 5;
    clock.stepMs = 1;
    clock.runTimer();
    expect(fired).toBe(64);
    clock.stepMs = 0; // time stands still now: the timer's run takes the rest in one go
    clock.runTimer();
    expect(fired).toBe(300);
    expect(clock.live.length).toBe(0);
    await afterContinuations();
    expect(fired).toBe(300);
    expect(queue.size).toBe(0);
    expect(clock.live.length).toBe(0);
  });

  it('leaves nothing armed and fires nothing more when the rest is cancelled before it resumes', async () => {
    const clock = new StepClock();
    const queue = new TimerQueue(clock);
    let fired = 0;
    const timers = Array.from({ length: 500 }, () => queue.schedule(1, () => fired++));
    clock.at = 1;
    clock.stepMs = 1;
    clock.runTimer();
    expect(fired).toBe(64);
    expect(clock.live.length).toBe(1);
    for (const timer of timers) queue.cancel(timer);
    expect(clock.live.length).toBe(0); // the continuation's timer is cleared with the last entry
    await afterContinuations();
    expect(fired).toBe(64);
    expect(queue.size).toBe(0);
  });

  it('disposed deadlines left in a yielded batch never fire, and their continuation is cleared', async () => {
    const clock = new StepClock();
    const aborted: DeadlineController[] = [];
    const deadlines = Array.from(
      { length: 400 },
      () => new DeadlineController({ idleMs: 50, clock, onAbort: (_r, d) => aborted.push(d) }),
    );
    // Each abort reads the clock: with 1 ms a reading, the first check has long passed the slice.
    clock.at = 60;
    clock.stepMs = 1;
    clock.runTimer();
    expect(aborted.length).toBe(64);
    for (const deadline of deadlines) deadline.dispose();
    expect(clock.live.length).toBe(0);
    await afterContinuations();
    expect(aborted.length).toBe(64);
    expect(TimerQueue.for(clock).size).toBe(0);
  });

  it('never yields on a ManualClock, whose reading stands still while the batch runs', () => {
    const clock = new ManualClock();
    const queue = new TimerQueue(clock);
    let fired = 0;
    for (let i = 0; i < 5_000; i++) queue.schedule(10, () => fired++);
    clock.advance(10);
    expect(fired).toBe(5_000);
    expect(clock.pendingTimers).toBe(0);
  });
});
