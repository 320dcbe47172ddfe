import { describe, expect, it, vi } from 'vitest';
import { MAX_TIMER_MS, systemClock, timersOf } from './clock.js';
import { ManualClock } from './manual-clock.js';

describe('ManualClock', () => {
  it('starts at the given instant and moves only on advance', () => {
    const clock = new ManualClock(1_000);
    expect(clock.now()).toBe(1_000);
    clock.advance(250);
    expect(clock.now()).toBe(1_250);
    expect(new ManualClock().now()).toBe(0);
  });

  it('fires a timer at its due instant and not a millisecond before', () => {
    const clock = new ManualClock();
    const seen: number[] = [];
    clock.setTimer(() => seen.push(clock.now()), 100);
    clock.advance(99);
    expect(seen).toEqual([]);
    clock.advance(1);
    expect(seen).toEqual([100]);
  });

  it('fires timers in due order, whatever order they were armed in', () => {
    const clock = new ManualClock();
    const order: string[] = [];
    clock.setTimer(() => order.push('c'), 30);
    clock.setTimer(() => order.push('a'), 10);
    clock.setTimer(() => order.push('b'), 20);
    clock.advance(100);
    expect(order).toEqual(['a', 'b', 'c']);
  });

  it('breaks ties in arming order', () => {
    const clock = new ManualClock();
    const order: number[] = [];
    for (let i = 0; i < 5; i++) clock.setTimer(() => order.push(i), 50);
    clock.advance(50);
    expect(order).toEqual([0, 1, 2, 3, 4]);
  });

  it('reads each timer its own due instant while it runs', () => {
    const clock = new ManualClock();
    const readings: number[] = [];
    clock.setTimer(() => readings.push(clock.now()), 10);
    clock.setTimer(() => readings.push(clock.now()), 70);
    clock.advance(1_000);
    expect(readings).toEqual([10, 70]);
    expect(clock.now()).toBe(1_000);
  });

  it('fires a timer armed inside a timer in the same advance when it falls inside it', () => {
    const clock = new ManualClock();
    const seen: Array<[string, number]> = [];
    clock.setTimer(() => {
      seen.push(['outer', clock.now()]);
      clock.setTimer(() => seen.push(['inner', clock.now()]), 15);
      clock.setTimer(() => seen.push(['beyond', clock.now()]), 500);
    }, 10);
    clock.advance(100);
    expect(seen).toEqual([
      ['outer', 10],
      ['inner', 25],
    ]);
    expect(clock.pendingTimers).toBe(1);
    clock.advance(410);
    expect(seen.at(-1)).toEqual(['beyond', 510]);
  });

  it('runs a zero-delay timer armed inside a timer before later ones', () => {
    const clock = new ManualClock();
    const order: string[] = [];
    clock.setTimer(() => {
      order.push('first');
      clock.setTimer(() => order.push('zero'), 0);
    }, 10);
    clock.setTimer(() => order.push('later'), 11);
    clock.advance(20);
    expect(order).toEqual(['first', 'zero', 'later']);
  });

  it('counts pending timers and forgets fired and cleared ones', () => {
    const clock = new ManualClock();
    const a = clock.setTimer(() => {}, 10);
    clock.setTimer(() => {}, 20);
    expect(clock.pendingTimers).toBe(2);
    a.clear();
    expect(clock.pendingTimers).toBe(1);
    clock.advance(20);
    expect(clock.pendingTimers).toBe(0);
  });

  it('never fires a cleared timer, and clearing twice or after firing is harmless', () => {
    const clock = new ManualClock();
    let fired = 0;
    const cleared = clock.setTimer(() => fired++, 10);
    const kept = clock.setTimer(() => fired++, 10);
    cleared.clear();
    cleared.clear();
    clock.advance(10);
    expect(fired).toBe(1);
    kept.clear();
    expect(clock.pendingTimers).toBe(0);
  });

  it('lets a timer clear a sibling that is due at the same instant', () => {
    const clock = new ManualClock();
    const order: string[] = [];
    let second: { clear(): void } | undefined;
    clock.setTimer(() => {
      order.push('first');
      second?.clear();
    }, 5);
    second = clock.setTimer(() => order.push('second'), 5);
    clock.advance(5);
    expect(order).toEqual(['first']);
  });

  it('treats a negative delay as zero', () => {
    const clock = new ManualClock(100);
    let at = -1;
    clock.setTimer(() => {
      at = clock.now();
    }, -50);
    clock.runDue();
    expect(at).toBe(100);
  });

  it('runDue fires what is due without moving time', () => {
    const clock = new ManualClock();
    let fired = false;
    clock.setTimer(() => {
      fired = true;
    }, 0);
    clock.runDue();
    expect(fired).toBe(true);
    expect(clock.now()).toBe(0);
  });

  it('rejects a negative or NaN advance', () => {
    const clock = new ManualClock();
    expect(() => clock.advance(-1)).toThrow(RangeError);
    expect(() => clock.advance(Number.NaN)).toThrow(RangeError);
  });
});

describe('systemClock', () => {
  it('reads a finite, non-decreasing time', () => {
    const a = systemClock.now();
    const b = systemClock.now();
    expect(Number.isFinite(a)).toBe(true);
    expect(b).toBeGreaterThanOrEqual(a);
  });

  it('returns a handle whose clear disarms the timer (no sleeping: the timer is far in the future)', () => {
    let fired = false;
    const handle = systemClock.setTimer(() => {
      fired = true;
    }, 60_000);
    expect(typeof handle.clear).toBe('function');
    handle.clear();
    handle.clear();
    expect(fired).toBe(false);
  });

  it('clamps delays beyond the 32-bit timer limit instead of letting them overflow to ~1 ms', () => {
    const spy = vi.spyOn(globalThis, 'setTimeout');
    try {
      systemClock.setTimer(() => {}, MAX_TIMER_MS * 4).clear();
      systemClock.setTimer(() => {}, -5).clear();
      expect(spy.mock.calls.map((call) => call[1])).toEqual([MAX_TIMER_MS, 0]);
    } finally {
      spy.mockRestore();
    }
  });
});

describe('timersOf', () => {
  it('adapts a clock to the setTimeout/clearTimeout pair that p-timeout calls unbound', () => {
    const clock = new ManualClock();
    const timers = timersOf(clock);
    let fired = 0;
    const setTimeoutUnbound = timers.setTimeout;
    const handle = setTimeoutUnbound.call(undefined, () => fired++, 10);
    timers.clearTimeout.call(undefined, handle);
    timers.clearTimeout(undefined);
    timers.setTimeout(() => fired++, 10);
    clock.advance(10);
    expect(fired).toBe(1);
  });
});
