import { describe, expect, it } from 'vitest';
import { ManualClock } from '../clock/manual-clock.js';
import { InflightError } from '../errors/inflight-error.js';
import { DeadlineController } from './deadline-controller.js';

/** The instant the signal aborted, read on the clock inside the abort event. */
function abortInstant(deadline: DeadlineController, clock: ManualClock): () => number | undefined {
  let at: number | undefined;
  deadline.signal.addEventListener('abort', () => {
    at = clock.now();
  });
  return () => at;
}

describe('DeadlineController: idle window', () => {
  it('fires IDLE_TIMEOUT at last touch + idle', () => {
    const clock = new ManualClock();
    const deadline = new DeadlineController({ clock, idleMs: 100 });
    const firedAt = abortInstant(deadline, clock);
    clock.advance(60);
    deadline.touch();
    clock.advance(60);
    deadline.touch();
    clock.advance(99);
    expect(deadline.signal.aborted).toBe(false);
    clock.advance(1);
    expect(firedAt()).toBe(220);
    const reason = deadline.signal.reason as InflightError;
    expect(reason).toBeInstanceOf(InflightError);
    expect(reason.code).toBe('IDLE_TIMEOUT');
    expect(reason.details).toMatchObject({ limitMs: 100, elapsedMs: 220, progressCount: 2 });
    expect(reason.message).toContain('100 ms');
  });

  it('fires at start + idle when nothing ever touches it', () => {
    const clock = new ManualClock(5_000);
    const deadline = new DeadlineController({ clock, idleMs: 300 });
    const firedAt = abortInstant(deadline, clock);
    clock.advance(1_000);
    expect(firedAt()).toBe(5_300);
    expect((deadline.signal.reason as InflightError).code).toBe('IDLE_TIMEOUT');
  });
});

describe('DeadlineController: hard ceiling', () => {
  it('fires CEILING at start + ceiling with zero progress (the official SDK maxTotalTimeout is only checked on progress, so it never fires here)', () => {
    const clock = new ManualClock();
    const deadline = new DeadlineController({ clock, ceilingMs: 1_000 });
    const firedAt = abortInstant(deadline, clock);
    clock.advance(10_000);
    expect(firedAt()).toBe(1_000);
    expect(deadline.touches).toBe(0);
    const reason = deadline.signal.reason as InflightError;
    expect(reason.code).toBe('CEILING');
    expect(reason.details).toMatchObject({ limitMs: 1_000, elapsedMs: 1_000, progressCount: 0 });
  });

  it('is not extended by touches', () => {
    const clock = new ManualClock();
    const deadline = new DeadlineController({ clock, idleMs: 100, ceilingMs: 250 });
    const firedAt = abortInstant(deadline, clock);
    for (let i = 0; i < 10; i++) {
      clock.advance(50);
      deadline.touch();
    }
    expect(firedAt()).toBe(250);
    expect((deadline.signal.reason as InflightError).code).toBe('CEILING');
  });

  it('reports CEILING when both limits fall on the same instant', () => {
    const clock = new ManualClock();
    const deadline = new DeadlineController({ clock, idleMs: 500, ceilingMs: 500 });
    clock.advance(500);
    expect((deadline.signal.reason as InflightError).code).toBe('CEILING');
  });
});

describe('DeadlineController: life cycle', () => {
  it('ignores a touch after the abort', () => {
    const clock = new ManualClock();
    const deadline = new DeadlineController({ clock, idleMs: 10 });
    clock.advance(10);
    const before = deadline.deadlineAt();
    deadline.touch();
    expect(deadline.touches).toBe(0);
    expect(deadline.deadlineAt()).toBe(before);
    expect(deadline.remainingMs()).toBe(0);
  });

  it('reports remainingMs from the nearer limit, Infinity with none, 0 once aborted', () => {
    const clock = new ManualClock();
    const deadline = new DeadlineController({ clock, idleMs: 100, ceilingMs: 250 });
    expect(deadline.remainingMs()).toBe(100);
    clock.advance(40);
    expect(deadline.remainingMs()).toBe(60);
    deadline.touch();
    expect(deadline.remainingMs()).toBe(100);
    clock.advance(80);
    deadline.touch();
    expect(deadline.remainingMs()).toBe(100);
    clock.advance(60);
    deadline.touch();
    expect(deadline.remainingMs()).toBe(70); // the ceiling (250) is nearer than the idle limit (280) now
    const unbounded = new DeadlineController({ clock });
    expect(unbounded.remainingMs()).toBe(Number.POSITIVE_INFINITY);
    expect(clock.pendingTimers).toBe(1);
    unbounded.cancel();
    expect(unbounded.remainingMs()).toBe(0);
    deadline.dispose();
  });

  it('cancel() aborts with CANCELLED, never a timeout code', () => {
    const clock = new ManualClock();
    const deadline = new DeadlineController({ clock, idleMs: 100 });
    deadline.cancel();
    const reason = deadline.signal.reason as InflightError;
    expect(reason.code).toBe('CANCELLED');
    expect(reason.isTimeout).toBe(false);
    expect(clock.pendingTimers).toBe(0);
  });

  it('cancel(reason) keeps the caller reason untouched, and a second cancel changes nothing', () => {
    const deadline = new DeadlineController({ clock: new ManualClock(), idleMs: 100 });
    const why = new Error('user pressed stop');
    deadline.cancel(why);
    deadline.cancel(new Error('second'));
    expect(deadline.signal.reason).toBe(why);
  });

  it('dispose leaves no pending timers and never aborts', () => {
    const clock = new ManualClock();
    const deadlines = [1, 2, 3].map(
      (n) => new DeadlineController({ clock, idleMs: n * 10, ceilingMs: n * 100 }),
    );
    expect(clock.pendingTimers).toBe(1);
    for (const deadline of deadlines) deadline.dispose();
    expect(clock.pendingTimers).toBe(0);
    clock.advance(10_000);
    expect(deadlines.every((d) => !d.signal.aborted)).toBe(true);
    deadlines[0]![Symbol.dispose]();
  });

  it('rejects a non-positive or NaN idleMs / ceilingMs', () => {
    const clock = new ManualClock();
    for (const bad of [0, -1, Number.NaN]) {
      expect(() => new DeadlineController({ clock, idleMs: bad })).toThrow(RangeError);
      expect(() => new DeadlineController({ clock, ceilingMs: bad })).toThrow(RangeError);
    }
    expect(clock.pendingTimers).toBe(0);
  });
});

describe('DeadlineController: parent and child', () => {
  it('a child aborts with its parent reason, the very same object', () => {
    const clock = new ManualClock();
    const parent = new DeadlineController({ clock, idleMs: 1_000 });
    const child = new DeadlineController({ parent, idleMs: 5_000 });
    expect(child.clock).toBe(clock);
    parent.cancel();
    expect(child.signal.aborted).toBe(true);
    expect(child.signal.reason).toBe(parent.signal.reason);
    expect(clock.pendingTimers).toBe(0);
  });

  it('a child never ends later than its parent ceiling, and carries the parent reason when it ends there', () => {
    const clock = new ManualClock();
    const parent = new DeadlineController({ clock, idleMs: 400, ceilingMs: 1_000 });
    // Unrelated deadlines shuffle the heap so that equal instants come out in no useful order.
    const others = Array.from(
      { length: 20 },
      (_, i) => new DeadlineController({ clock, ceilingMs: 990 + i }),
    );
    clock.advance(300);
    const child = new DeadlineController({ parent, ceilingMs: 60_000 });
    expect(child.deadlineAt()).toBe(parent.deadlineAt()); // the parent idle limit (400) is nearest now
    const firedAt = abortInstant(child, clock);
    for (let t = 300; t < 1_000; t += 50) {
      clock.advance(50);
      child.touch();
    }
    expect(firedAt()).toBe(1_000);
    expect(child.signal.reason).toBe(parent.signal.reason);
    expect((child.signal.reason as InflightError).details.limitMs).toBe(1_000);
    for (const other of others) other.dispose();
  });

  it('a child touch keeps its parent alive, and its updates count once on the parent', () => {
    const clock = new ManualClock();
    const parent = new DeadlineController({ clock, idleMs: 100 });
    const child = new DeadlineController({ parent, idleMs: 1_000 });
    for (let i = 0; i < 5; i++) {
      clock.advance(80);
      child.touch();
    }
    expect(parent.signal.aborted).toBe(false);
    // One update is one update: the parent reports what its sub-call saw, not a second count of it.
    expect([parent.touches, child.touches]).toEqual([5, 5]);
    clock.advance(100);
    expect((parent.signal.reason as InflightError).code).toBe('IDLE_TIMEOUT');
    expect(child.signal.reason).toBe(parent.signal.reason);
  });

  it("a relayed update reaching the parent by the child and by the parent's own touch counts once", () => {
    const clock = new ManualClock();
    const request = new DeadlineController({ clock, ceilingMs: 3_000 });
    const upstream = new DeadlineController({ parent: request, ceilingMs: 3_000 });
    for (let i = 0; i < 29; i++) {
      clock.advance(100);
      upstream.touch(); // the upstream's progress
      request.touch(); // the relay's ctx.progress to the host
    }
    clock.advance(200);
    expect((request.signal.reason as InflightError).message).toContain('(29 updates before)');
    expect((upstream.signal.reason as InflightError).message).toContain('(29 updates before)');
  });

  it('a relayed call whose ceiling is a parent over two sub-deadlines, each touched per update, counts each update once', () => {
    const clock = new ManualClock();
    const call = new DeadlineController({ clock, ceilingMs: 3_000 });
    const roundIdle = new DeadlineController({ parent: call, idleMs: 800 });
    const upstream = new DeadlineController({ parent: call });
    for (let i = 0; i < 28; i++) {
      clock.advance(100);
      roundIdle.touch();
      upstream.touch();
    }
    clock.advance(200);
    expect((call.signal.reason as InflightError).message).toBe(
      'hard ceiling of 3000 ms reached (28 updates before)',
    );
  });

  it("a scope (updates: 'parent') counts its parent's updates, and its own touches count there once", () => {
    const clock = new ManualClock();
    const request = new DeadlineController({ clock });
    const scope = new DeadlineController({ parent: request, ceilingMs: 300, updates: 'parent' });
    for (let i = 0; i < 5; i++) request.touch(); // the handler's ctx.progress on the request
    scope.touch(); // and one through the scoped ctx
    expect([request.touches, scope.touches]).toEqual([6, 6]);
    clock.advance(300);
    expect((scope.signal.reason as InflightError).message).toBe(
      'hard ceiling of 300 ms reached (6 updates before)',
    );
    expect(request.signal.aborted).toBe(false);
    request.dispose();
  });

  it('remainingMs of a child counts its parent limits', () => {
    const clock = new ManualClock();
    const parent = new DeadlineController({ clock, idleMs: 100 });
    const child = new DeadlineController({ parent, idleMs: 1_000 });
    clock.advance(30);
    expect(child.remainingMs()).toBe(70);
  });

  it('an AbortSignal parent aborts the child with its reason', () => {
    const clock = new ManualClock();
    const controller = new AbortController();
    const child = new DeadlineController({ clock, idleMs: 100, parent: controller.signal });
    const why = new Error('host went away');
    controller.abort(why);
    expect(child.signal.reason).toBe(why);
    expect(clock.pendingTimers).toBe(0);
  });

  it('a parent that already aborted aborts the child at once and arms nothing', () => {
    const clock = new ManualClock();
    const why = new Error('too late');
    const child = new DeadlineController({ clock, idleMs: 100, parent: AbortSignal.abort(why) });
    expect(child.signal.reason).toBe(why);
    expect(clock.pendingTimers).toBe(0);
  });

  it('dispose removes the listener it put on the parent signal', () => {
    const listeners = new Set<unknown>();
    const signal = {
      aborted: false,
      addEventListener: (_type: string, fn: unknown) => listeners.add(fn),
      removeEventListener: (_type: string, fn: unknown) => listeners.delete(fn),
    } as unknown as AbortSignal;
    const child = new DeadlineController({ clock: new ManualClock(), idleMs: 100, parent: signal });
    expect(listeners.size).toBe(1);
    child.dispose();
    expect(listeners.size).toBe(0);
  });

  it('a disposed parent does not fire through its child', () => {
    const clock = new ManualClock();
    const parent = new DeadlineController({ clock, idleMs: 100 });
    const child = new DeadlineController({ parent, idleMs: 100 });
    parent.dispose();
    clock.advance(100);
    expect(parent.signal.aborted).toBe(false);
    expect((child.signal.reason as InflightError).code).toBe('IDLE_TIMEOUT');
  });
});

describe('DeadlineController.race', () => {
  it('resolves with the work when it finishes in time, and rejects with its error', async () => {
    const clock = new ManualClock();
    const deadline = new DeadlineController({ clock, idleMs: 100 });
    await expect(deadline.race(Promise.resolve(42))).resolves.toBe(42);
    const boom = new Error('boom');
    await expect(deadline.race(Promise.reject(boom))).rejects.toBe(boom);
    deadline.dispose();
  });

  it('rejects with the signal reason when the deadline fires first', async () => {
    const clock = new ManualClock();
    const deadline = new DeadlineController({ clock, idleMs: 100 });
    const raced = deadline.race(new Promise<never>(() => {}));
    clock.advance(100);
    await expect(raced).rejects.toMatchObject({ code: 'IDLE_TIMEOUT' });
  });

  it('rejects at once when already aborted', async () => {
    const deadline = new DeadlineController({ clock: new ManualClock(), idleMs: 100 });
    deadline.cancel();
    await expect(deadline.race(Promise.resolve(1))).rejects.toMatchObject({ code: 'CANCELLED' });
  });
});

describe('DeadlineController: the error of a limit', () => {
  it('carries no stack frames (the shared timer raised it) and leaves Error.stackTraceLimit as it was', () => {
    const errorClass = Error as { stackTraceLimit?: number };
    const before = errorClass.stackTraceLimit;
    errorClass.stackTraceLimit = 7;
    try {
      const clock = new ManualClock();
      const idle = new DeadlineController({ clock, idleMs: 10 });
      const ceiling = new DeadlineController({ clock, ceilingMs: 10 });
      clock.advance(10);
      for (const deadline of [idle, ceiling]) {
        const reason = deadline.reason as InflightError;
        expect(reason).toBeInstanceOf(InflightError);
        expect(reason.stack).toBe(`InflightError: ${reason.message}`);
      }
      expect(errorClass.stackTraceLimit).toBe(7);
      expect(new Error('after').stack?.split('\n').length).toBeGreaterThan(1);
    } finally {
      errorClass.stackTraceLimit = before;
    }
  });
});

describe('DeadlineController: the error of a limit where the stack cannot be turned off', () => {
  it('is an ordinary error when Error.stackTraceLimit cannot be written (a hardened realm)', () => {
    const descriptor = Object.getOwnPropertyDescriptor(Error, 'stackTraceLimit');
    Object.defineProperty(Error, 'stackTraceLimit', { value: 10, writable: false, configurable: true });
    try {
      const clock = new ManualClock();
      const deadline = new DeadlineController({ clock, idleMs: 10 });
      clock.advance(10);
      expect((deadline.reason as InflightError).code).toBe('IDLE_TIMEOUT');
      expect((deadline.reason as InflightError).stack?.split('\n').length).toBeGreaterThan(1);
    } finally {
      if (descriptor) Object.defineProperty(Error, 'stackTraceLimit', descriptor);
    }
  });
});
