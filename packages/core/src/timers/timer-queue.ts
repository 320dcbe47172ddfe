import { type Clock, MAX_TIMER_MS, type TimerHandle } from '../clock/clock.js';

/**
 * An entry in a {@link TimerQueue}; keep it to reschedule or cancel.
 */
export interface QueuedTimer {
  /** Absolute instant on the queue's clock. */
  readonly dueAt: number;
  /** Position in the heap, or -1 when not queued. Internal. */
  index: number;
}

/**
 * What the heap holds: a timer made by {@link TimerQueue.schedule}, or an object that is its own entry (a
 * `DeadlineController`, which saves a closure and an entry object per deadline). `fire` is called as a
 * method, with the entry as `this`.
 * @internal
 */
export interface QueueEntry extends QueuedTimer {
  dueAt: number;
  fire(): void;
}

type Entry = QueueEntry;

/**
 * How late (in the clock's ms) the armed timer may be before the queue takes it for dead: a timer the
 * runtime cancelled without telling us (workerd ends a request's timers with it). A live timer that late
 * only means a busy loop, and arming it again costs one timer.
 */
const DEAD_AFTER_MS = 50;

/** How long (in the clock's ms) one run of the firing loop goes before the callers it fired hear of it. */
const SLICE_MS = 1;
/** The slice is checked every this many firings, so the clock read stays off the per-entry path. */
const SLICE_CHECK_EVERY = 64;
/**
 * How the rest of a long batch continues: after the event loop's I/O (Node's `setImmediate`, which runs
 * right after the poll phase, not a 1 ms timer), so a response or another caller's work that came due in
 * the storm gets its turn between slices; a microtask where there is no such hook (browsers).
 */
const continueAfterIo: (fn: () => void) => unknown =
  (globalThis as { setImmediate?: (fn: () => void) => unknown }).setImmediate ?? queueMicrotask;

/**
 * The touches made in one synchronous run of JavaScript. A touch records the run it was made in (a pointer
 * store, no clock read); the run's end instant is read once, when it closes (a microtask after its first
 * touch, or when a {@link TimerQueue.endTouchRun | ManualClock moves}), and is an upper bound on the instant
 * of every touch in it. `endAt` is `Infinity` while the run is open.
 * @internal
 */
export interface TouchRun {
  endAt: number;
}

/**
 * Many logical timers on one armed clock timer: an indexed binary min-heap keyed by due instant.
 * Deadlines and the relay's trailing flushes all live here, so 10,000 live deadlines arm exactly one
 * timer, and work that pushes a deadline later does not touch the heap at all (it is re-checked lazily
 * when its old instant comes up).
 */
export class TimerQueue {
  static readonly #byClock = new WeakMap<Clock, TimerQueue>();

  /** The queue shared by everything that uses `clock`. */
  static for(clock: Clock): TimerQueue {
    let queue = TimerQueue.#byClock.get(clock);
    if (!queue) {
      queue = new TimerQueue(clock);
      TimerQueue.#byClock.set(clock, queue);
    }
    return queue;
  }

  /**
   * Ends the open touch run of `clock`'s queue at the clock's current reading. A clock that moves by
   * itself in one synchronous step (a test clock) calls this before it moves, so a touch counts from the
   * instant it was made; a real clock does not need it (the run closes in a microtask).
   * @internal
   */
  static endTouchRun(clock: Clock): void {
    TimerQueue.#byClock.get(clock)?.endTouchRun();
  }

  /** The clock this queue's one timer runs on. */
  readonly clock: Clock;
  /** The touch run open now, if any. @internal */
  run: TouchRun | undefined = undefined;
  #closerQueued = false;
  #continueQueued = false;
  #heap: Entry[] = [];
  #armed: TimerHandle | undefined;
  /**
   * When the armed timer is due: the instant it was armed for, or the moment it was armed if that was
   * later. Read only while a timer is armed.
   */
  #armedFor = 0;

  constructor(clock: Clock) {
    this.clock = clock;
  }

  /** Logical timers waiting. */
  get size(): number {
    return this.#heap.length;
  }

  /**
   * Whether the one clock timer is armed for a logical timer (it is whenever one waits; never otherwise).
   * A timer left set, unreferenced, after the queue emptied does not count: it holds nothing.
   */
  get armed(): boolean {
    return this.#armed !== undefined && this.#heap.length > 0;
  }

  /**
   * Opens a touch run: the touches made until the current synchronous code yields share it, and its end
   * instant is read once, in a microtask. @internal
   */
  openTouchRun(): TouchRun {
    const run: TouchRun = { endAt: Number.POSITIVE_INFINITY };
    this.run = run;
    if (!this.#closerQueued) {
      this.#closerQueued = true;
      queueMicrotask(this.#closeRun);
    }
    return run;
  }

  /** Closes the open touch run at the clock's current reading. @internal */
  endTouchRun(): void {
    const run = this.run;
    if (run === undefined) return;
    this.run = undefined;
    run.endAt = this.clock.now();
  }

  #closeRun = (): void => {
    this.#closerQueued = false;
    this.endTouchRun();
  };

  /** Queues `fire` to run at the absolute instant `dueAt` (an infinite instant is never queued). */
  schedule(dueAt: number, fire: () => void): QueuedTimer {
    const entry: Entry = { dueAt, fire, index: -1 };
    this.enqueue(entry);
    return entry;
  }

  /** Queues an entry that is its own timer (see {@link QueueEntry}) at its `dueAt`. @internal */
  enqueue(entry: QueueEntry): void {
    if (entry.dueAt !== Number.POSITIVE_INFINITY) this.#push(entry);
    if (this.clock.timersEndWithRequest) this.#wake(entry);
    this.#rearm();
  }

  /** Moves a queued (or fired) timer to a new instant. */
  reschedule(timer: QueuedTimer, dueAt: number): void {
    const entry = timer as Entry;
    if (entry.index >= 0) this.#removeAt(entry.index);
    entry.dueAt = dueAt;
    this.enqueue(entry);
  }

  /** Removes a timer; a no-op if it already fired or was cancelled. */
  cancel(timer: QueuedTimer): void {
    const entry = timer as Entry;
    if (entry.index < 0) return;
    this.#removeAt(entry.index);
    this.#rearm();
  }

  /**
   * A clock whose timers end with their request (workerd) drops the one shared timer, unseen, when the
   * request that armed it ends, while other requests' entries still wait on it. So on such a clock every
   * entry queued also gets a wake-up of its own, set by the code that queued it (it lives as long as that
   * code's request), at the entry's instant, and set before the shared timer so that it runs first at an
   * equal instant. Due, it runs the queue (everything due; the shared timer is armed again from there)
   * and is done: an entry that fires and comes back (a deadline a touch moved later) gets a new one then.
   * Not due (the entry was re-queued later by another request's timer, or the runtime's timer ran a hair
   * early), it follows the entry to its new instant; out of the queue, it ends. It is not cleared when its
   * entry is cancelled: it ends when it runs, or with its request. Plain clocks never get here.
   */
  #wake(entry: Entry): void {
    if (entry.index >= 0)
      this.clock.setTimer(
        () => (entry.dueAt > this.clock.now() ? this.#wake(entry) : this.#continue()),
        entry.dueAt - this.clock.now(),
      );
  }

  #onTimer = (): void => {
    this.#armed = undefined;
    const clock = this.clock;
    const now = clock.now();
    // Fire everything due; a fired callback may schedule more, which the loop also sees. A callback that
    // throws must not strand the others or leave the queue unarmed: the first error is rethrown after.
    let failed = false;
    let failure: unknown;
    let fired = 0;
    for (let top = this.#heap[0]; top && top.dueAt <= now; top = this.#heap[0]) {
      this.#removeAt(0);
      try {
        top.fire();
      } catch (error) {
        if (!failed) failure = error;
        failed = true;
      }
      // A long batch (thousands of deadlines due at once) stops once it has run for a slice of the clock's
      // own time, so the callers already fired learn it (their rejections are microtasks, queued before the
      // continuation below) before the rest of the batch runs, not after all of it. The rest stays in the
      // heap and the re-arm below finds it due: a 0 ms timer on the same clock, the queue's one armed timer,
      // so cancelling the rest disarms it like any other, and the continuation then finds nothing to do.
      // It continues after the loop's I/O (`continueAfterIo`) rather than waiting for that timer: a 0 ms
      // timer is 1 ms or more in Node, and fifty of them would lengthen the batch more than the yield
      // shortens anyone's wait (the timer stays as the backstop). A clock that does not move while the loop runs (ManualClock) never
      // yields. A yield fires nothing early: what is left is re-read against a later `now()`, and each
      // deadline checks its own limits against the clock when it fires.
      if (++fired % SLICE_CHECK_EVERY === 0 && clock.now() - now >= SLICE_MS) {
        if (!this.#continueQueued) {
          this.#continueQueued = true;
          continueAfterIo(this.#continue);
        }
        break;
      }
    }
    this.#rearm();
    if (failed) throw failure;
  };

  /**
   * Runs the rest of a batch that yielded, after the microtasks its fired callers queued. The armed
   * 0 ms timer is what holds the rest: if it was disarmed meanwhile (everything left was cancelled) or
   * now serves a later instant, there is nothing to continue.
   */
  #continue = (): void => {
    this.#continueQueued = false;
    const top = this.#heap[0];
    if (this.#armed === undefined || top === undefined || top.dueAt > this.clock.now()) return;
    this.#armed.clear();
    this.#onTimer();
  };

  #rearm(): void {
    const armed = this.#armed;
    const top = this.#heap[0];
    if (!top) {
      // With one call at a time the queue empties after every call. A timer that can stop holding the
      // process stays set, unreferenced, and serves the next deadline (due later) with no timer work;
      // if it fires first it finds nothing and is gone [rule 8: what is left holds nothing, and ends].
      // Other clocks' timers are cleared.
      if (armed?.unref) return armed.unref();
      armed?.clear();
      this.#armed = undefined;
      return;
    }
    // An armed timer that is due no later than the new top serves it: when it fires early it re-arms.
    // So settling requests oldest-first does no timer work at all. Unless it is overdue: then the runtime
    // dropped it without a word (workerd, when the request that set it ended), and it is armed again
    // [rule 18: no timer is trusted that was not seen to fire].
    // An overdue top is armed for now, so the test is against that: a timer armed for an overdue top keeps
    // serving it while the loop is busy (clearing it on every schedule would starve it under load).
    const now = this.clock.now();
    const wanted = Math.max(top.dueAt, now);
    if (armed && this.#armedFor <= wanted && now - this.#armedFor < DEAD_AFTER_MS) return void armed.ref?.(); // unreferenced if the queue had emptied
    armed?.clear();
    this.#armedFor = wanted;
    this.#armed = this.clock.setTimer(this.#onTimer, Math.min(MAX_TIMER_MS, wanted - now));
  }

  #push(entry: Entry): void {
    entry.index = this.#heap.length;
    this.#heap.push(entry);
    this.#up(entry.index);
  }

  #removeAt(index: number): void {
    const heap = this.#heap;
    const removed = heap[index]!;
    const last = heap.pop()!;
    removed.index = -1;
    if (last === removed) return;
    heap[index] = last;
    last.index = index;
    this.#down(index);
    this.#up(last.index);
  }

  #up(index: number): void {
    const heap = this.#heap;
    const entry = heap[index]!;
    while (index > 0) {
      const parentIndex = (index - 1) >> 1;
      const parent = heap[parentIndex]!;
      if (parent.dueAt <= entry.dueAt) break;
      heap[index] = parent;
      parent.index = index;
      index = parentIndex;
    }
    heap[index] = entry;
    entry.index = index;
  }

  #down(index: number): void {
    const heap = this.#heap;
    const entry = heap[index]!;
    const length = heap.length;
    for (;;) {
      const left = 2 * index + 1;
      if (left >= length) break;
      const right = left + 1;
      const child = right < length && heap[right]!.dueAt < heap[left]!.dueAt ? right : left;
      if (heap[child]!.dueAt >= entry.dueAt) break;
      heap[index] = heap[child]!;
      heap[index]!.index = index;
      index = child;
    }
    heap[index] = entry;
    entry.index = index;
  }
}
