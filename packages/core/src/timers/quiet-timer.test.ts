import { describe, expect, it } from 'vitest';
import { ManualClock } from '../clock/manual-clock.js';
import { QuietTimer } from './quiet-timer.js';

describe('QuietTimer', () => {
  it('calls back after a full quiet window; touches push it forward with no timer work', () => {
    const clock = new ManualClock();
    const quiet: number[] = [];
    const timer = new QuietTimer(clock, 100, (ms) => quiet.push(ms));
    timer.start();
    expect(clock.pendingTimers).toBe(1);
    clock.advance(60);
    timer.touch(); // at 60
    expect(clock.pendingTimers).toBe(1); // still the one timer
    clock.advance(40); // 100: the timer fires early, sees the touch, re-arms for 60 more
    expect(quiet).toEqual([]);
    clock.advance(59);
    expect(quiet).toEqual([]);
    clock.advance(1); // 160: a full window since the touch
    expect(quiet).toEqual([100]);
    expect(clock.pendingTimers).toBe(0);
  });

  it('keeps watching when the callback starts it again, and stop() leaves no timer', () => {
    const clock = new ManualClock();
    let fired = 0;
    const timer = new QuietTimer(clock, 50, () => {
      fired++;
      timer.touch();
      timer.start();
    });
    timer.start();
    clock.advance(150);
    expect(fired).toBe(3);
    timer.stop();
    expect(clock.pendingTimers).toBe(0);
    timer.stop(); // twice is fine
  });

  it('arms nothing for an unbounded or empty window', () => {
    const clock = new ManualClock();
    new QuietTimer(clock, Number.POSITIVE_INFINITY, () => {}).start();
    new QuietTimer(clock, 0, () => {}).start();
    expect(clock.pendingTimers).toBe(0);
  });
});
