import { type Clock, systemClock } from '../clock/clock.js';
import { InflightError } from '../errors/inflight-error.js';
import { type QueuedTimer, TimerQueue } from '../timers/timer-queue.js';

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
   * Called once, synchronously, when the deadline aborts (before the signal's listeners), with the reason.
   * Cheaper than a signal listener: the signal's AbortController is only made when `signal` is read.
   */
  onAbort?: ((reason: unknown) => void) | undefined;
}

/**
 * A per-request deadline: an idle window that each accepted progress pushes forward, plus a hard
 * ceiling measured from the start that fires on its own timer even if no progress ever arrives
 * (MCP 2025-03-26+ "SHOULD always enforce a maximum timeout, regardless of progress" [TO8]).
 *
 * All controllers on one clock share one {@link TimerQueue}: any number of them arm one clock timer,
 * and `touch()` only stores an instant (the old queue entry is re-checked when it comes due).
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
export class DeadlineController {
  /** The idle window in ms (`Infinity`: none). */
  readonly idleMs: number;
  /** The hard ceiling in ms from the start (`Infinity`: none). */
  readonly ceilingMs: number;
  /** The instant the deadline started, on its clock. */
  readonly startedAt: number;
  /** The clock the deadline's timers run on. */
  readonly clock: Clock;

  // The AbortController is made on first read of `signal`: most deadlines settle without anyone
  // listening, and an AbortController with its EventTarget is the largest part of a deadline.
  #controller: AbortController | undefined;
  #aborted = false;
  #reason: unknown;
  #onAbort: ((reason: unknown) => void) | undefined;
  #queue: TimerQueue;
  #timer: QueuedTimer | undefined;
  #lastActivityAt: number;
  #ceilingAt: number;
  /** The ceiling as configured, or what was left of an earlier parent ceiling, for honest messages. */
  #ceilingLimitMs: number;
  #touches = 0;
  #parent: DeadlineController | undefined;
  #children: Set<DeadlineController> | undefined;
  #parentSignal: AbortSignal | undefined;
  #onParentSignal: (() => void) | undefined;

  constructor(options: DeadlineOptions = {}) {
    const idleMs = options.idleMs ?? Number.POSITIVE_INFINITY;
    const ceilingMs = options.ceilingMs ?? Number.POSITIVE_INFINITY;
    if (!(idleMs > 0))
      throw new RangeError(`idleMs must be a positive number of ms or Infinity, got ${idleMs}`);
    if (!(ceilingMs > 0))
      throw new RangeError(`ceilingMs must be a positive number of ms or Infinity, got ${ceilingMs}`);
    this.idleMs = idleMs;
    this.ceilingMs = ceilingMs;
    this.clock =
      options.clock ?? (options.parent instanceof DeadlineController ? options.parent.clock : systemClock);
    this.#onAbort = options.onAbort;
    this.#queue = TimerQueue.for(this.clock);
    this.startedAt = this.clock.now();
    this.#lastActivityAt = this.startedAt;
    this.#ceilingAt = this.startedAt + ceilingMs;
    this.#ceilingLimitMs = ceilingMs;

    const parent = options.parent;
    if (parent instanceof DeadlineController) {
      if (parent.#aborted) {
        this.#abort(parent.#reason);
        return;
      }
      this.#parent = parent;
      // A child's ceiling is the earlier of its own and its parent's (grpc-style min of instants).
      if (parent.#ceilingAt < this.#ceilingAt) {
        this.#ceilingAt = parent.#ceilingAt;
        this.#ceilingLimitMs = Math.round(parent.#ceilingAt - this.startedAt);
      }
      parent.#children ??= new Set();
      parent.#children.add(this);
    } else if (parent) {
      if (parent.aborted) {
        this.#abort(parent.reason);
        return;
      }
      const onParentSignal = (): void => this.#abort(parent.reason);
      this.#parentSignal = parent;
      this.#onParentSignal = onParentSignal;
      parent.addEventListener('abort', onParentSignal, { once: true });
    }
    this.#timer = this.#queue.schedule(this.#dueAt(), this.#onDue);
  }

  /** Aborts when a limit fires, the parent aborts, or `cancel()` is called; the reason says which. */
  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  /** Whether the deadline has ended (fired, cancelled, or its parent ended). Cheaper than `signal.aborted`. */
  get aborted(): boolean {
    return this.#aborted;
  }

  /** Why it ended (an `InflightError` for our own limits), or `undefined` while live. */
  get reason(): unknown {
    return this.#reason;
  }

  /** Marks activity (accepted progress): the idle window starts again. Does no timer work. */
  touch(): void {
    if (this.#aborted) return;
    this.#lastActivityAt = this.clock.now();
    this.#touches++;
    // Progress on a sub-call is progress on the call that waits for it.
    this.#parent?.touch();
  }

  /** Accepted touches so far. */
  get touches(): number {
    return this.#touches;
  }

  /** The instant at which this deadline will fire if nothing else happens (Infinity for never). */
  deadlineAt(): number {
    const own = Math.min(this.#lastActivityAt + this.idleMs, this.#ceilingAt);
    return this.#parent ? Math.min(own, this.#parent.deadlineAt()) : own;
  }

  /** Milliseconds until the deadline fires (0 once it has; Infinity if it never will). */
  remainingMs(): number {
    if (this.#aborted) return 0;
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
    if (this.#aborted) return Promise.reject(this.#reason);
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

  #dueAt(): number {
    // The parent has its own queue entry; the child only needs its own limits.
    return Math.min(this.#lastActivityAt + this.idleMs, this.#ceilingAt);
  }

  #onDue = (): void => {
    if (this.#fireIfDue() || !this.#timer) return;
    // A touch moved the idle window; re-queue lazily at the new instant.
    this.#queue.reschedule(this.#timer, this.#dueAt());
  };

  /** Aborts if a limit (its own or an ancestor's) has passed; returns whether it is aborted. */
  #fireIfDue(): boolean {
    if (this.#aborted) return true;
    if (!this.#timer) return false; // disposed: a released deadline never fires
    // An ancestor due at the same instant fires first, so the child ends with the ancestor's reason
    // rather than its own copy of the inherited ceiling (the heap does not order equal instants).
    if (this.#parent) this.#parent.#fireIfDue();
    if (this.#aborted) return true;
    const now = this.clock.now();
    const idleAt = this.#lastActivityAt + this.idleMs;
    if (this.#ceilingAt <= now && this.#ceilingAt <= idleAt) {
      this.#abort(InflightError.ceiling(this.#ceilingLimitMs, this.#facts(now)));
    } else if (idleAt <= now) {
      this.#abort(InflightError.idle(this.idleMs, this.#facts(now)));
    }
    return this.#aborted;
  }

  #facts(now: number): { elapsedMs: number; progressCount: number } {
    return { elapsedMs: Math.round(now - this.startedAt), progressCount: this.#touches };
  }

  #abort(reason: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    const children = this.#children;
    this.#release();
    this.#onAbort?.(reason);
    this.#controller?.abort(reason);
    // A child never outlives its parent: it ends with the parent's reason.
    if (children) for (const child of children) child.#abort(reason);
  }

  #release(): void {
    if (this.#timer) {
      this.#queue.cancel(this.#timer);
      this.#timer = undefined;
    }
    this.#children = undefined;
    const parent = this.#parent;
    if (parent) parent.#children?.delete(this);
    this.#parent = undefined;
    if (this.#onParentSignal) {
      this.#parentSignal?.removeEventListener('abort', this.#onParentSignal);
      this.#onParentSignal = undefined;
      this.#parentSignal = undefined;
    }
  }
}
