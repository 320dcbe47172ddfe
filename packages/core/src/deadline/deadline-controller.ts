import { type Clock, systemClock } from '../clock/clock.js';
import { InflightError, type LimitFacts, limitWithoutStack } from '../errors/inflight-error.js';
import { type QueueEntry, TimerQueue, type TouchRun } from '../timers/timer-queue.js';

/**
 * Options for {@link DeadlineController}.
 *
 * @example
 * ```ts
 * import { DeadlineController, type DeadlineOptions } from '@mcp-inflight/core';
 * const call = new DeadlineController({ ceilingMs: 30_000 });
 * const options: DeadlineOptions = { idleMs: 5_000, ceilingMs: 60_000, parent: call };
 * const subCall = new DeadlineController(options); // its ceiling is the parent's 30 s, not 60 s
 * subCall.touch(); // progress on the sub-call touches the parent too
 * subCall.dispose();
 * call.dispose();
 * ```
 */
export interface DeadlineOptions {
  /**
   * The idle window: fires when this long passes with no {@link DeadlineController.touch | touch}.
   * `Infinity` turns it off. @default Infinity
   */
  idleMs?: number | undefined;
  /** The hard ceiling from the start; nothing extends it. `Infinity` turns it off. @default Infinity */
  ceilingMs?: number | undefined;
  /** The time source. @default systemClock */
  clock?: Clock | undefined;
  /**
   * An enclosing deadline (or any AbortSignal). The child never outlives it: it aborts when the parent
   * does, with the parent's reason, and its ceiling is never later than the parent's.
   */
  parent?: DeadlineController | AbortSignal | undefined;
  /**
   * Called once, synchronously, when the deadline aborts (before the signal's listeners), with the reason
   * and the deadline itself (so one function can serve many deadlines). Cheaper than a signal listener: the
   * signal's AbortController is only made when `signal` is read.
   */
  onAbort?: ((reason: unknown, deadline: DeadlineController) => void) | undefined;
  /**
   * `'parent'`: this deadline is a scope over part of its parent's work (a handler's `ctx.limit`), with no
   * progress of its own, so its messages count the parent's updates. `'own'`: a sub-call with its own
   * progress, counted on its own. @default 'own'
   */
  updates?: 'own' | 'parent' | undefined;
}

/** What few deadlines need, kept off the object most deadlines are. */
interface Rare {
  /** Made on first read of `signal`. */
  controller: AbortController | undefined;
  children: Set<DeadlineController> | undefined;
  parentSignal: AbortSignal | undefined;
  onParentSignal: (() => void) | undefined;
  /** A parent's ceiling that is earlier than our own, as an instant, and what was left of it. */
  ceilingAt: number | undefined;
  ceilingLimitMs: number | undefined;
  /** Set for a scope: the deadline whose updates its messages count. */
  countsOf: DeadlineController | undefined;
}

const LIVE = 0;
const RELEASED = 1;
const ABORTED = 2;

/**
 * A per-request deadline: an idle window that each accepted progress pushes forward, plus a hard
 * ceiling measured from the start that fires on its own timer even if no progress ever arrives
 * (MCP 2025-03-26+ "SHOULD always enforce a maximum timeout, regardless of progress" [TO8]).
 *
 * All controllers on one clock share one {@link TimerQueue}: any number of them arm one clock timer.
 * `touch()` reads no clock and does no timer work: it records the synchronous run of JavaScript it was
 * made in, and the run's end instant (read once per run, in a microtask) stands for every touch in it.
 * When a deadline's queued instant comes up, it moves itself to the idle window after its last touch.
 *
 * Timing guarantees: a deadline never fires before `last touch + idleMs` or `start + ceilingMs`. The
 * ceiling is exact. The idle limit counts from the end of the run that made the last touch, so it fires
 * at most that much later than the exact instant: the time from the touch until the code that made it
 * yields (microseconds in a handler that reports progress and awaits; never more than the one
 * synchronous stretch that a timer could not have interrupted anyway). With `ManualClock` the lateness
 * is zero: it ends the run before time moves.
 *
 * @example
 * ```ts
 * import { DeadlineController } from '@mcp-inflight/core';
 * const deadline = new DeadlineController({ idleMs: 60_000, ceilingMs: 600_000 });
 * deadline.signal.addEventListener('abort', () => {
 *   console.log(deadline.signal.reason.code); // 'IDLE_TIMEOUT' or 'CEILING'
 * });
 * deadline.touch();   // progress arrived: the idle window starts again
 * deadline.dispose(); // the call settled: nothing stays armed
 * ```
 */
export class DeadlineController implements QueueEntry {
  // Fields are few on purpose (a proxy holds one deadline per call in flight), and the ones `touch()`
  // reads and writes come first, next to the object's header, so a touch stays on one cache line.
  #state = LIVE;
  #touches = 0;
  #queue: TimerQueue;
  /** The run of the latest touch not yet folded into `#activityAt`. */
  #touchRun: TouchRun | undefined;
  #parent: DeadlineController | undefined;
  /** The idle window in ms (`Infinity`: none). */
  readonly idleMs: number;
  /** The hard ceiling in ms from the start (`Infinity`: none). */
  readonly ceilingMs: number;
  /** The instant the deadline started, on its clock. */
  readonly startedAt: number;
  /** The instant this deadline's entry in the shared queue comes up (a lower bound of when it fires). @internal */
  dueAt: number;
  /** Position in the shared queue's heap, or -1. @internal */
  index = -1;
  #reason: unknown;
  #onAbort: ((reason: unknown, deadline: DeadlineController) => void) | undefined;
  /** The latest instant a touch is known to have happened by; `undefined`: none yet (the start). */
  #activityAt: number | undefined;
  #rare: Rare | undefined;

  constructor(options: DeadlineOptions = {}) {
    const idleMs = options.idleMs ?? Number.POSITIVE_INFINITY;
    const ceilingMs = options.ceilingMs ?? Number.POSITIVE_INFINITY;
    if (!(idleMs > 0 && ceilingMs > 0))
      throw new RangeError(`idleMs and ceilingMs must be > 0 (or Infinity), got ${idleMs} and ${ceilingMs}`);
    this.idleMs = idleMs;
    this.ceilingMs = ceilingMs;
    const parent = options.parent;
    const clock = options.clock ?? (parent instanceof DeadlineController ? parent.clock : systemClock);
    this.#queue = TimerQueue.for(clock);
    this.#onAbort = options.onAbort;
    this.#activityAt = undefined;
    this.#touchRun = undefined;
    this.#parent = undefined;
    this.#rare = undefined;
    const startedAt = clock.now();
    this.startedAt = startedAt;
    this.dueAt = Math.min(startedAt + idleMs, startedAt + ceilingMs);

    if (parent instanceof DeadlineController) {
      if (parent.#state === ABORTED) {
        this.#abort(parent.#reason);
        return;
      }
      this.#parent = parent;
      // A child's ceiling is the earlier of its own and its parent's (grpc-style min of instants).
      const parentCeilingAt = parent.#ceilingAt();
      if (parentCeilingAt < startedAt + ceilingMs) {
        const rare = this.#rareOf();
        rare.ceilingAt = parentCeilingAt;
        rare.ceilingLimitMs = Math.round(parentCeilingAt - startedAt);
        this.dueAt = Math.min(startedAt + idleMs, parentCeilingAt);
      }
      if (options.updates === 'parent') this.#rareOf().countsOf = parent;
      const siblings = parent.#rareOf();
      siblings.children ??= new Set();
      siblings.children.add(this);
    } else if (parent) {
      if (parent.aborted) {
        this.#abort(parent.reason);
        return;
      }
      const onParentSignal = (): void => this.#abort(parent.reason);
      const rare = this.#rareOf();
      rare.parentSignal = parent;
      rare.onParentSignal = onParentSignal;
      parent.addEventListener('abort', onParentSignal, { once: true });
    }
    this.#queue.enqueue(this);
  }

  /** The clock the deadline's timers run on. */
  get clock(): Clock {
    return this.#queue.clock;
  }

  /** Aborts when a limit fires, the parent aborts, or `cancel()` is called; the reason says which. */
  get signal(): AbortSignal {
    const rare = this.#rareOf();
    if (!rare.controller) {
      rare.controller = new AbortController();
      if (this.#state === ABORTED) rare.controller.abort(this.#reason);
    }
    return rare.controller.signal;
  }

  /** Whether the deadline has ended (fired, cancelled, or its parent ended). Cheaper than `signal.aborted`. */
  get aborted(): boolean {
    return this.#state === ABORTED;
  }

  /** Why it ended (an `InflightError` for our own limits), or `undefined` while live. */
  get reason(): unknown {
    return this.#reason;
  }

  /**
   * Marks activity (accepted progress): the idle window starts again. Reads no clock and does no timer
   * work; the touch counts from the end of the synchronous run it was made in (see the class notes).
   */
  touch(): void {
    if (this.#state !== LIVE) return;
    this.#touches++;
    const queue = this.#queue;
    this.#touchRun = queue.run ?? queue.openTouchRun();
    // A scope's update is its parent's update: counted there, once.
    const countsOf = this.#rare?.countsOf;
    if (countsOf !== undefined) return countsOf.touch();
    // Progress on a sub-call keeps the call that waits for it alive, but is not an update of its own: a
    // relayed update that also reaches the parent through `ctx.progress` counts once.
    if (this.#parent !== undefined) this.#parent.#keepAlive();
  }

  /** A descendant's touch: the idle window starts again; the update count is the descendant's. */
  #keepAlive(): void {
    if (this.#state !== LIVE) return;
    const queue = this.#queue;
    this.#touchRun = queue.run ?? queue.openTouchRun();
    if (this.#parent !== undefined) this.#parent.#keepAlive();
  }

  /**
   * Accepted updates so far: this deadline's own touches, or the most any live sub-call has seen (an update
   * that reaches it both ways counts once); for a scope (`updates: 'parent'`), its parent's.
   */
  get touches(): number {
    const rare = this.#rare;
    if (rare === undefined) return this.#touches;
    if (rare.countsOf !== undefined) return rare.countsOf.touches;
    let touches = this.#touches;
    if (rare.children)
      for (const child of rare.children)
        if (child.#rare?.countsOf !== this) touches = Math.max(touches, child.touches);
    return touches;
  }

  /**
   * The instant at which this deadline will fire if nothing else happens (Infinity for never). A touch
   * counts from the end of its run; while that run is still going, from now (an upper bound either way).
   */
  deadlineAt(): number {
    const own = Math.min(this.#idleAt(Number.NaN), this.#ceilingAt());
    return this.#parent ? Math.min(own, this.#parent.deadlineAt()) : own;
  }

  /** Milliseconds until the deadline fires (0 once it has; Infinity if it never will). Never short. */
  remainingMs(): number {
    if (this.#state === ABORTED) return 0;
    return Math.max(0, this.deadlineAt() - this.clock.now());
  }

  /** Ends the deadline early with `reason` (a caller's cancel by default). Aborts the signal. */
  cancel(reason: unknown = InflightError.cancelled()): void {
    this.#abort(reason);
  }

  /** Releases the timer entry and the parent link without aborting. Call when the request settles. */
  dispose(): void {
    this.#release();
  }

  /** Same as `dispose()`, for `using`. */
  [Symbol.dispose](): void {
    this.dispose();
  }

  /**
   * Bounds `work` by this deadline: rejects with the signal's reason when the deadline fires first.
   * The work itself is not stopped; pass `deadline.signal` into it for that.
   */
  race<T>(work: PromiseLike<T>): Promise<T> {
    if (this.#state === ABORTED) return Promise.reject(this.#reason);
    const signal = this.signal;
    return new Promise<T>((resolve, reject) => {
      const onAbort = (): void => reject(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      Promise.resolve(work).then(
        (value) => {
          signal.removeEventListener('abort', onAbort);
          resolve(value);
        },
        (error: unknown) => {
          signal.removeEventListener('abort', onAbort);
          reject(error);
        },
      );
    });
  }

  /** The shared queue calls this when `dueAt` comes up. @internal */
  fire(): void {
    if (this.#fireIfDue() || this.#state !== LIVE) return;
    // A touch moved the idle window: re-queue lazily at the new instant.
    this.dueAt = Math.min(this.#idleAt(Number.NaN), this.#ceilingAt());
    this.#queue.reschedule(this, this.dueAt);
  }

  #rareOf(): Rare {
    this.#rare ??= {
      controller: undefined,
      children: undefined,
      parentSignal: undefined,
      onParentSignal: undefined,
      ceilingAt: undefined,
      ceilingLimitMs: undefined,
      countsOf: undefined,
    };
    return this.#rare;
  }

  #ceilingAt(): number {
    return this.#rare?.ceilingAt ?? this.startedAt + this.ceilingMs;
  }

  /**
   * When the idle window ends: the latest known touch instant + idleMs. A touch whose run has closed is
   * folded in at the run's end; one whose run is still open counts from `now` (read here if NaN), an
   * upper bound on when it was made, so the answer is never early.
   */
  #idleAt(now: number): number {
    const run = this.#touchRun;
    if (run !== undefined) {
      let at = run.endAt;
      if (at === Number.POSITIVE_INFINITY) at = Number.isNaN(now) ? this.#queue.clock.now() : now;
      else this.#touchRun = undefined;
      if (this.#activityAt === undefined || at > this.#activityAt) this.#activityAt = at;
    }
    return (this.#activityAt ?? this.startedAt) + this.idleMs;
  }

  /** Aborts if a limit (its own or an ancestor's) has passed; returns whether it is aborted. */
  #fireIfDue(): boolean {
    if (this.#state === ABORTED) return true;
    if (this.#state === RELEASED) return false; // disposed: a released deadline never fires
    // An ancestor due at the same instant fires first, so the child ends with the ancestor's reason
    // rather than its own copy of the inherited ceiling (the heap does not order equal instants).
    if (this.#parent) this.#parent.#fireIfDue();
    if (this.#state === ABORTED) return true;
    const now = this.#queue.clock.now();
    const idleAt = this.#idleAt(now);
    const ceilingAt = this.#ceilingAt();
    if (ceilingAt <= now && ceilingAt <= idleAt) {
      const limitMs = this.#rare?.ceilingLimitMs ?? this.ceilingMs;
      this.#abort(limitWithoutStack('CEILING', this.#facts(now, limitMs)));
    } else if (idleAt <= now) {
      this.#abort(limitWithoutStack('IDLE_TIMEOUT', this.#facts(now, this.idleMs)));
    }
    return this.#state === ABORTED;
  }

  #facts(now: number, limitMs: number): LimitFacts {
    return { elapsedMs: Math.round(now - this.startedAt), progressCount: this.touches, limitMs };
  }

  #abort(reason: unknown): void {
    if (this.#state === ABORTED) return;
    const rare = this.#rare;
    const children = rare?.children;
    this.#release();
    this.#state = ABORTED;
    this.#reason = reason;
    this.#onAbort?.(reason, this);
    rare?.controller?.abort(reason);
    // A child never outlives its parent: it ends with the parent's reason.
    if (children) for (const child of children) child.#abort(reason);
  }

  #release(): void {
    if (this.#state !== LIVE) return;
    this.#state = RELEASED;
    this.#touchRun = undefined;
    if (this.index >= 0) this.#queue.cancel(this);
    const parent = this.#parent;
    if (parent) parent.#rare?.children?.delete(this);
    this.#parent = undefined;
    const rare = this.#rare;
    if (rare === undefined) return;
    rare.children = undefined;
    if (rare.onParentSignal) {
      rare.parentSignal?.removeEventListener('abort', rare.onParentSignal);
      rare.onParentSignal = undefined;
      rare.parentSignal = undefined;
    }
  }
}
