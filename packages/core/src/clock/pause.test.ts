import { describe, expect, it } from 'vitest';
import { ManualClock } from './manual-clock.js';
import { nap, pause, settleWithin } from './pause.js';

const flush = async () => {
  for (let i = 0; i < 5; i++) await Promise.resolve();
};

describe('pause', () => {
  it('waits on the injected clock, not on real time', async () => {
    const clock = new ManualClock();
    let done = false;
    const waiting = pause(60_000, new AbortController().signal, clock).then(() => {
      done = true;
    });
    expect(clock.pendingTimers).toBe(1);
    clock.advance(59_999);
    await flush();
    expect(done).toBe(false);
    clock.advance(1);
    await waiting; // a minute of real time would time the test out
    expect(clock.pendingTimers).toBe(0);
  });

  it('rejects with the abort reason and disarms its timer', async () => {
    const clock = new ManualClock();
    const stop = new AbortController();
    const waiting = pause(100, stop.signal, clock);
    stop.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
    expect(clock.pendingTimers).toBe(0);
  });
});

describe('nap', () => {
  it('ends when its time is up, or at once on wake, and disarms its timer', async () => {
    const clock = new ManualClock();
    const full = nap(100, clock);
    clock.advance(100);
    await full.slept;
    const cut = nap(60_000, clock);
    expect(clock.pendingTimers).toBe(1);
    cut.wake();
    await cut.slept;
    expect(clock.pendingTimers).toBe(0);
    cut.wake(); // a no-op once ended
  });
});

describe('settleWithin', () => {
  it('settles with the work, or at the bound, and never rejects', async () => {
    const clock = new ManualClock();
    await settleWithin(Promise.reject(new Error('refused')), 1_000, clock);
    expect(clock.pendingTimers).toBe(0);
    let settled = false;
    const bounded = settleWithin(new Promise(() => {}), 1_000, clock).then(() => {
      settled = true;
    });
    clock.advance(999);
    await flush();
    expect(settled).toBe(false);
    clock.advance(1);
    await bounded;
  });
});
