// Rule 18: no timer is trusted to outlive the request that set it. Cloudflare Workers cancels the timers a
// request set when that request ends, without a word; ManualClock.dropTimers does the same here. On any clock
// a held timer found overdue is armed again; on a clock that says its timers end with their request
// (timersEndWithRequest), each entry queued also gets a wake-up set by the code that queued it.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../clock/manual-clock.js';
import { DeadlineController } from '../deadline/deadline-controller.js';
import { TimerQueue } from './timer-queue.js';

/** Counts the clock timers armed on `clock` from now on. */
function counting(clock: ManualClock): () => number {
  let armed = 0;
  const setTimer = clock.setTimer.bind(clock);
  clock.setTimer = (fn, ms) => {
    armed++;
    return setTimer(fn, ms);
  };
  return () => armed;
}

describe('TimerQueue with timers that die unseen', () => {
  it('re-arms, on the next schedule, a timer that did not fire by its instant; every deadline still fires', () => {
    const clock = new ManualClock();
    const queue = new TimerQueue(clock);
    const fired: string[] = [];
    queue.schedule(200, () => fired.push(`a@${clock.now()}`));
    // The request that armed the shared timer ends: the runtime drops it.
    expect(clock.dropTimers()).toBe(1);
    // Later than the dropped timer's instant, another deadline is queued: the queue sees the held timer is
    // overdue and arms a new one rather than trusting it.
    clock.advance(300);
    queue.schedule(600, () => fired.push(`b@${clock.now()}`));
    clock.advance(0);
    expect(fired).toEqual(['a@300']);
    clock.advance(300);
    expect(fired).toEqual(['a@300', 'b@600']);
    expect(clock.pendingTimers).toBe(0);
  });

  it('keeps one armed timer for many deadlines while the held timer is not overdue (no timer work per schedule)', () => {
    const clock = new ManualClock();
    const armed = counting(clock);
    const queue = new TimerQueue(clock);
    const fired: number[] = [];
    for (let i = 0; i < 1_000; i++) queue.schedule(100 + i, () => fired.push(i));
    expect(armed()).toBe(1);
    clock.advance(2_000);
    expect(fired).toHaveLength(1_000);
  });

  it('a DeadlineController still fires its idle limit after the shared timer was dropped, once the queue is used again', () => {
    const clock = new ManualClock();
    const first = new DeadlineController({ idleMs: 100, clock });
    first.dispose(); // the request that armed the shared timer settled ...
    clock.dropTimers(); // ... and ended, and its timer with it
    clock.advance(500);
    const deadline = new DeadlineController({ idleMs: 1_000, clock });
    clock.advance(999);
    expect(deadline.signal.aborted).toBe(false);
    clock.advance(1);
    expect(deadline.signal.aborted).toBe(true);
    expect(InflightCode(deadline.signal.reason)).toBe('IDLE_TIMEOUT');
  });

  it('on a clock whose timers end with their request, a deadline fires on time after the request that armed the shared timer ended, with no later call', () => {
    const clock = new ManualClock(0, { timersEndWithRequest: true });
    const queue = new TimerQueue(clock);
    const fired: string[] = [];
    // Request A queues a deadline at 200: the shared timer, and A's own wake-up, are A's.
    const aFrom = clock.timersArmed;
    const a = queue.schedule(200, () => fired.push(`a@${clock.now()}`));
    const aTo = clock.timersArmed;
    // Request B queues one at 600 and is still running; the shared timer (A's, due earlier) is kept, and
    // B sets a wake-up of its own.
    queue.schedule(600, () => fired.push(`b@${clock.now()}`));
    expect(clock.timersArmed - aTo).toBe(1);
    // A settles and ends: its entry is cancelled and the runtime drops every timer A set.
    queue.cancel(a);
    expect(clock.dropTimers(aFrom, aTo)).toBe(2);
    // Nothing else happens; B's own wake-up still fires B's deadline on time.
    clock.advance(599);
    expect(fired).toEqual([]);
    clock.advance(1);
    expect(fired).toEqual(['b@600']);
    // Nothing is left set once the queue is empty.
    expect(clock.pendingTimers).toBe(0);
  });

  it('on such a clock, a deadline touched past its first instant is re-queued with a wake-up of its own', () => {
    const clock = new ManualClock(0, { timersEndWithRequest: true });
    const other = new DeadlineController({ idleMs: 50, clock }); // another request's, armed first
    const mark = clock.timersArmed;
    const deadline = new DeadlineController({ idleMs: 100, clock });
    other.dispose();
    clock.dropTimers(0, mark); // the other request ended
    clock.advance(80);
    deadline.touch(); // now due at 180
    clock.advance(99);
    expect(deadline.signal.aborted).toBe(false);
    clock.advance(1);
    expect(deadline.signal.aborted).toBe(true);
    expect(clock.pendingTimers).toBe(0);
  });

  it("on such a clock, a server's 2 s ceiling fires for a request still running after a shorter one, which armed the shared timer, ended", () => {
    // issue 44: the handler's 2 s ceiling never fired on workerd.
    const clock = new ManualClock(0, { timersEndWithRequest: true });
    const from = clock.timersArmed;
    const short = new DeadlineController({ ceilingMs: 2_000, clock });
    const to = clock.timersArmed;
    clock.advance(10);
    const long = new DeadlineController({ ceilingMs: 2_000, clock });
    clock.advance(40);
    short.dispose();
    clock.dropTimers(from, to);
    clock.advance(1_959);
    expect(long.signal.aborted).toBe(false);
    clock.advance(1);
    expect(InflightCode(long.signal.reason)).toBe('CEILING');
  });

  it("on such a clock, a deadline that another request's timer fired and re-queued is still followed by its own wake-up", () => {
    const clock = new ManualClock(0, { timersEndWithRequest: true });
    const fired: string[] = [];
    // Request C's entry at 100 is queued before B's: at the equal instant C's timers run first.
    const cFrom = clock.timersArmed;
    const queue = new TimerQueue(clock);
    queue.schedule(100, () => fired.push(`c@${clock.now()}`));
    const cTo = clock.timersArmed;
    // B's entry at 100 moves itself to 300 when it first comes up (a touched idle window).
    let moved = false;
    const b = {
      dueAt: 100,
      index: -1,
      fire(): void {
        if (moved) return void fired.push(`b@${clock.now()}`);
        moved = true;
        queue.reschedule(b, 300);
      },
    };
    queue.enqueue(b);
    // At 100 C's wake-up runs the queue: C fires, and B is re-queued at 300 from C's request (a wake-up
    // for B and the shared timer, both C's: the next two timers armed). B's own wake-up runs after it.
    const during = clock.timersArmed;
    clock.advance(100);
    expect(fired).toEqual(['c@100']);
    // C ends: every timer it set is dropped.
    expect(clock.dropTimers(cFrom, cTo) + clock.dropTimers(during, during + 2)).toBe(2);
    // B's own wake-up, set by B, followed B to 300.
    clock.advance(199);
    expect(fired).toEqual(['c@100']);
    clock.advance(1);
    expect(fired).toEqual(['c@100', 'b@300']);
  });
});

function InflightCode(reason: unknown): string | undefined {
  return (reason as { code?: string } | undefined)?.code;
}
