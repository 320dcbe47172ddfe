import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Clock, MAX_TIMER_MS } from '../clock/clock.js';
import { ManualClock } from '../clock/manual-clock.js';
import { type QueuedTimer, TimerQueue } from './timer-queue.js';

/** A ManualClock that counts how often anything arms a clock timer. */
function countingClock(): { clock: ManualClock & Clock; armed: () => number } {
  const clock = new ManualClock();
  let armed = 0;
  const setTimer = clock.setTimer.bind(clock);
  clock.setTimer = (fn, ms) => {
    armed++;
    return setTimer(fn, ms);
  };
  return { clock, armed: () => armed };
}

type Command =
  | { kind: 'schedule'; dueIn: number }
  | { kind: 'reschedule'; pick: number; dueIn: number }
  | { kind: 'cancel'; pick: number }
  | { kind: 'advance'; ms: number };

// Offsets from now; a few land in the past (negative) and a few never (Infinity).
const dueIn = fc.oneof(
  { weight: 8, arbitrary: fc.integer({ min: -20, max: 200 }) },
  { weight: 1, arbitrary: fc.constant(Number.POSITIVE_INFINITY) },
);
const command: fc.Arbitrary<Command> = fc.oneof(
  fc.record({ kind: fc.constant('schedule' as const), dueIn }),
  fc.record({ kind: fc.constant('reschedule' as const), pick: fc.nat(), dueIn }),
  fc.record({ kind: fc.constant('cancel' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 120 }) }),
);

describe('TimerQueue', () => {
  it('agrees with a sorted-array model under random schedule, reschedule, cancel and advance', () => {
    fc.assert(
      fc.property(fc.array(command, { maxLength: 80 }), (commands) => {
        const clock = new ManualClock();
        const queue = new TimerQueue(clock);
        // The model: every live timer's firing instant (a past instant fires now).
        const model = new Map<number, number>();
        const handles: QueuedTimer[] = [];
        const fired: Array<{ id: number; at: number }> = [];
        const arm = (id: number, offset: number): number => {
          const dueAt = clock.now() + offset;
          if (dueAt === Number.POSITIVE_INFINITY) model.delete(id);
          else model.set(id, Math.max(dueAt, clock.now()));
          return dueAt;
        };
        for (const step of commands) {
          if (step.kind === 'schedule') {
            const id = handles.length;
            handles.push(queue.schedule(arm(id, step.dueIn), () => fired.push({ id, at: clock.now() })));
          } else if (step.kind === 'reschedule' && handles.length > 0) {
            const id = step.pick % handles.length;
            queue.reschedule(handles[id]!, arm(id, step.dueIn));
          } else if (step.kind === 'cancel' && handles.length > 0) {
            const id = step.pick % handles.length;
            queue.cancel(handles[id]!);
            model.delete(id);
          } else if (step.kind === 'advance') {
            const until = clock.now() + step.ms;
            const due = [...model].filter(([, at]) => at <= until).sort((a, b) => a[1] - b[1]);
            const before = fired.length;
            clock.advance(step.ms);
            const now = fired.slice(before);
            // The same timers fire, each at its own instant, in instant order (ties in any order).
            expect(now.map((f) => f.at)).toEqual(due.map(([, at]) => at));
            expect(new Set(now.map((f) => f.id))).toEqual(new Set(due.map(([id]) => id)));
            for (const [id] of due) model.delete(id);
          }
          expect(queue.size).toBe(model.size);
          // Exactly one armed clock timer while anything waits, none when empty.
          expect(clock.pendingTimers).toBe(model.size > 0 ? 1 : 0);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('arms one clock timer for 10,000 entries and re-arms only when the earliest changes', () => {
    const { clock, armed } = countingClock();
    const queue = new TimerQueue(clock);
    const first = queue.schedule(1_000, () => {});
    for (let i = 0; i < 10_000; i++) queue.schedule(2_000 + i, () => {});
    expect(armed()).toBe(1);
    expect(clock.pendingTimers).toBe(1);
    queue.schedule(500, () => {});
    expect(armed()).toBe(2);
    queue.cancel(first); // not the earliest any more: no timer work
    expect(armed()).toBe(2);
    expect(clock.pendingTimers).toBe(1);
  });

  it('disarms the clock timer when the last entry is cancelled', () => {
    const clock = new ManualClock();
    const queue = new TimerQueue(clock);
    const a = queue.schedule(10, () => {});
    const b = queue.schedule(20, () => {});
    queue.cancel(a);
    expect(clock.pendingTimers).toBe(1);
    queue.cancel(b);
    queue.cancel(b);
    expect(queue.size).toBe(0);
    expect(clock.pendingTimers).toBe(0);
  });

  it('never queues an infinite instant, and rescheduling to Infinity removes the entry', () => {
    const clock = new ManualClock();
    const queue = new TimerQueue(clock);
    const never = queue.schedule(Number.POSITIVE_INFINITY, () => {});
    expect(never.index).toBe(-1);
    expect(clock.pendingTimers).toBe(0);
    const later = queue.schedule(10, () => {});
    queue.reschedule(later, Number.POSITIVE_INFINITY);
    expect(queue.size).toBe(0);
    expect(clock.pendingTimers).toBe(0);
  });

  it('re-queues an entry that already fired when it is rescheduled', () => {
    const clock = new ManualClock();
    const queue = new TimerQueue(clock);
    const at: number[] = [];
    const entry = queue.schedule(10, () => at.push(clock.now()));
    clock.advance(10);
    queue.reschedule(entry, 25);
    clock.advance(20);
    expect(at).toEqual([10, 25]);
  });

  it('fires entries scheduled by a firing callback, in the same pass when already due', () => {
    const clock = new ManualClock();
    const queue = new TimerQueue(clock);
    const order: string[] = [];
    queue.schedule(10, () => {
      order.push('a');
      queue.schedule(clock.now(), () => order.push('a-now'));
      queue.schedule(clock.now() + 5, () => order.push('a+5'));
    });
    queue.schedule(12, () => order.push('b'));
    clock.advance(20);
    expect(order).toEqual(['a', 'a-now', 'b', 'a+5']);
    expect(clock.pendingTimers).toBe(0);
  });

  it('lets a firing callback cancel a sibling due at the same instant', () => {
    const clock = new ManualClock();
    const queue = new TimerQueue(clock);
    const order: string[] = [];
    let sibling: QueuedTimer | undefined;
    queue.schedule(10, () => {
      order.push('first');
      if (sibling) queue.cancel(sibling);
    });
    sibling = queue.schedule(10, () => order.push('sibling'));
    clock.advance(10);
    expect(order.length).toBe(1);
    expect(clock.pendingTimers).toBe(0);
  });

  it('steps through delays longer than the 32-bit timer limit', () => {
    const clock = new ManualClock();
    const queue = new TimerQueue(clock);
    let firedAt = -1;
    const dueAt = MAX_TIMER_MS * 2 + 7;
    queue.schedule(dueAt, () => {
      firedAt = clock.now();
    });
    clock.advance(MAX_TIMER_MS);
    expect(firedAt).toBe(-1);
    expect(clock.pendingTimers).toBe(1);
    clock.advance(MAX_TIMER_MS + 7);
    expect(firedAt).toBe(dueAt);
  });

  it('leaves an unreferenced timer set when it empties, and the next later entry reuses it', () => {
    // A ManualClock whose timers can be unreferenced, as Node's can: counts arms, refs and unrefs.
    const clock = new ManualClock();
    const counts = { armed: 0, cleared: 0, ref: 0, unref: 0 };
    const setTimer = clock.setTimer.bind(clock);
    clock.setTimer = (fn, ms) => {
      counts.armed++;
      const handle = setTimer(fn, ms);
      return {
        clear: () => {
          counts.cleared++;
          handle.clear();
        },
        ref: () => void counts.ref++,
        unref: () => void counts.unref++,
      };
    };
    const queue = new TimerQueue(clock);
    const fired: string[] = [];
    // One call at a time: each deadline is cancelled before the next is queued, each due later.
    for (let i = 0; i < 100; i++) {
      const entry = queue.schedule(clock.now() + 1_000, () => fired.push(`call ${i}`));
      expect(queue.armed).toBe(true);
      queue.cancel(entry);
      expect(queue.armed).toBe(false); // left set, but it holds nothing
      clock.advance(1);
    }
    expect(counts).toMatchObject({ armed: 1, cleared: 0 });
    expect(counts.unref).toBe(100);
    expect(counts.ref).toBe(99); // each later entry took the left timer back
    expect(clock.pendingTimers).toBe(1);
    // The left timer comes up with nothing queued: it fires nothing and arms nothing.
    clock.advance(1_000);
    expect(fired).toEqual([]);
    expect(clock.pendingTimers).toBe(0);
    // An entry due before a left timer needs a timer of its own.
    const long = queue.schedule(clock.now() + 1_000, () => fired.push('long'));
    queue.cancel(long);
    queue.schedule(clock.now() + 10, () => fired.push('short'));
    expect(counts).toMatchObject({ armed: 3, cleared: 1 });
    clock.advance(10);
    expect(fired).toEqual(['short']);
    expect(clock.pendingTimers).toBe(0);
    // A live entry that the left timer serves still fires at its instant (the timer fires early and re-arms).
    const late = queue.schedule(clock.now() + 500, () => fired.push('late'));
    queue.schedule(clock.now() + 1_000, () => fired.push('later'));
    queue.cancel(late);
    clock.advance(999);
    expect(fired).toEqual(['short']);
    clock.advance(1);
    expect(fired).toEqual(['short', 'later']);
  });

  it('on the system clock, a timer left set when the queue empties does not hold the process', async () => {
    const { execFileSync } = await import('node:child_process');
    const { fileURLToPath } = await import('node:url');
    const queueModule = fileURLToPath(new URL('../../dist/adapter.js', import.meta.url));
    const clockModule = fileURLToPath(new URL('../../dist/index.js', import.meta.url));
    // A 60 s deadline, cancelled: the child must exit at once, with the timer still set but unreferenced.
    const script = `
      const { TimerQueue } = await import(${JSON.stringify(queueModule)});
      const { systemClock } = await import(${JSON.stringify(clockModule)});
      const queue = TimerQueue.for(systemClock);
      const entry = queue.schedule(systemClock.now() + 60_000, () => console.log('fired'));
      const before = process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
      queue.cancel(entry);
      const after = process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
      console.log(JSON.stringify({ before, after, armed: queue.armed }));`;
    const started = Date.now();
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 30_000, // far short of the deadline: a held process fails here rather than passing late
    });
    expect(JSON.parse(out.trim())).toEqual({ before: 1, after: 0, armed: false });
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it('shares one queue per clock', () => {
    const a = new ManualClock();
    const b = new ManualClock();
    expect(TimerQueue.for(a)).toBe(TimerQueue.for(a));
    expect(TimerQueue.for(a)).not.toBe(TimerQueue.for(b));
  });
});
