import type { Writable } from 'node:stream';
import type { Clock, TimerHandle } from '@mcp-inflight/core';

/**
 * Why a writer gave up on its peer: it left a backlog over the budget unread for a whole stall window
 * (`'stalled'`), or it fell behind by more than the budget plus one message (`'over-cap'`).
 */
export type OverflowVerdict = 'stalled' | 'over-cap';

/** What a {@link WriteBudget} needs from its writer's options. */
export interface WriteBudgetOptions {
  maxUnsentBytes: number;
  stallMs: number;
  clock: Clock;
  onOverflow: (unsentBytes: number, verdict: OverflowVerdict) => void;
  /** The bytes the writer holds in its own queue, not yet handed to the stream. */
  queuedBytes: () => number;
}

/**
 * The judge of a writer's backlog (bytes queued by us plus the stream's own buffer), under backpressure
 * only. Two limits, each with its reason (rule 13, rule 14):
 * - a hard cap: the backlog never holds more than `maxUnsentBytes` plus one message (the largest line
 *   accepted while it waits), so a peer that never reads costs at most that, however fast we produce;
 * - a stall window: a backlog over the budget that does not shrink for `stallMs` means the peer stopped
 *   reading, even when nothing more is written (one large write to a reader is no verdict by itself).
 */
export class WriteBudget {
  readonly maxUnsentBytes: number;
  readonly stallMs: number;
  readonly #output: Writable;
  readonly #options: WriteBudgetOptions;
  /** Armed while the backlog is over budget: the backlog then, which the peer must shrink by the check. */
  #stall: { timer: TimerHandle; unsentBytes: number } | undefined;
  /** When the peer last read (its buffer shrank, or drained), or bytes started waiting for it. */
  #lastReadMs = 0;
  #lastWritableBytes = 0;
  /** The one message the backlog may hold past the budget: the largest line since it was last empty. */
  #oneMessageBytes = 0;
  #done = false;

  constructor(output: Writable, options: WriteBudgetOptions) {
    this.#output = output;
    this.#options = options;
    this.maxUnsentBytes = options.maxUnsentBytes;
    this.stallMs = options.stallMs;
  }

  /**
   * A write left bytes waiting for `drain`; `largestLineBytes` is the longest line it carried. One flush
   * can carry a whole tick past the budget by itself (the writer hands a tick over before it passes the
   * budget, so by at most its last line): only a backlog that then does not shrink is a verdict.
   */
  waiting(largestLineBytes: number): void {
    this.#lastReadMs = this.#options.clock.now(); // the peer's silence counts from here
    const writable = this.#output.writableLength;
    this.#lastWritableBytes = writable;
    if (largestLineBytes > this.#oneMessageBytes) this.#oneMessageBytes = largestLineBytes;
    if (writable > this.maxUnsentBytes) this.#overBudget(writable);
  }

  /**
   * Whether a line of `bytes` may join the backlog. False once the line would put the backlog past the
   * budget plus one message: the writer has overflowed (told once).
   */
  admit(bytes: number): boolean {
    const writable = this.#output.writableLength;
    if (writable < this.#lastWritableBytes) this.#lastReadMs = this.#options.clock.now(); // it read
    this.#lastWritableBytes = writable;
    if (bytes > this.#oneMessageBytes) this.#oneMessageBytes = bytes;
    const unsent = this.#options.queuedBytes() + writable + bytes;
    if (unsent > this.maxUnsentBytes + this.#oneMessageBytes) {
      this.#overflow(unsent - bytes, 'over-cap');
      return false;
    }
    if (unsent > this.maxUnsentBytes) this.#overBudget(unsent);
    return !this.#done;
  }

  /** The stream took everything it held (`drain`): the peer reads; no stall to judge, no timer to hold. */
  read(): void {
    this.#lastReadMs = this.#options.clock.now();
    this.#clearStall();
  }

  /** Nothing waits for `drain` any more. */
  drained(queueEmpty: boolean): void {
    if (queueEmpty) this.#oneMessageBytes = 0;
  }

  /** The writer stopped: nothing more to judge. */
  stop(): void {
    this.#done = true;
    this.#clearStall();
  }

  #clearStall(): void {
    this.#stall?.timer.clear();
    this.#stall = undefined;
  }

  /**
   * The backlog passed the budget. A peer silent for a whole stall window already has stopped reading;
   * otherwise the window runs out from its last read, and by then the backlog must have shrunk.
   */
  #overBudget(unsentBytes: number): void {
    if (this.#stall || this.#done) return;
    const silentMs = this.#options.clock.now() - this.#lastReadMs;
    if (silentMs >= this.stallMs) return this.#overflow(unsentBytes, 'stalled');
    this.#armStall(this.stallMs - silentMs);
  }

  #armStall(ms = this.stallMs): void {
    const unsentBytes = this.#unsent();
    this.#stall = { timer: this.#options.clock.setTimer(this.#checkStall, ms), unsentBytes };
  }

  #unsent(): number {
    return this.#options.queuedBytes() + this.#output.writableLength;
  }

  #overflow(unsentBytes: number, verdict: OverflowVerdict): void {
    if (this.#done) return;
    this.stop();
    this.#options.onOverflow(unsentBytes, verdict);
  }

  /** A stall window passed: a backlog still over budget that did not shrink means the peer stopped reading. */
  #checkStall = (): void => {
    const before = this.#stall?.unsentBytes ?? 0;
    this.#stall = undefined;
    if (this.#done) return;
    const unsent = this.#unsent();
    if (unsent <= this.maxUnsentBytes) return;
    if (unsent < before) return this.#armStall(); // it read something: judge the next window
    this.#overflow(unsent, 'stalled');
  };
}
