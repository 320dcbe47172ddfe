import type { Clock, RequestId, TimerHandle } from '@mcp-inflight/core';
import type { Line, LineWriter } from '../framing/line-writer.js';

/**
 * Default gap between a request's last progress line reaching the OS and its response being written:
 * 5 ms. A reader decides where its reads break, so a progress line and the result right behind it often
 * arrive in one read; the official SDK v1 client handles a notification one microtask after a response
 * in the same read, so it drops that final update ("unknown token"). With the gap they arrive in separate
 * reads at a reader that is not busy. bench/progress-gap.mjs: 5 ms lost none of 1,000 calls in any run at
 * an idle host, directly or through the example proxy, even on a loaded machine; 2-3 ms lost up to 7.
 * The cost is the gap itself, only on calls whose result follows their progress.
 *
 * @example
 * ```ts
 * import { DEFAULT_RESULT_GAP_MS, serveStdio } from '@mcp-inflight/stdio';
 * // A host known to keep its event loop busy for longer slices: give its reads more room.
 * serveStdio(() => {}, { resultGapMs: DEFAULT_RESULT_GAP_MS * 3 });
 * ```
 */
export const DEFAULT_RESULT_GAP_MS = 5;

/** What the gap knows of one request that sent progress: when its last progress line left, and a held response. */
interface Mark {
  /** The writer's write call that carries the last progress line. */
  writeCall: number;
  /** When that write call was taken by the OS; NaN until then. */
  writtenAtMs: number;
  /** The response line, while it waits for the gap to pass. */
  held: Line | undefined;
  timer: TimerHandle | undefined;
}

/**
 * Holds a response back until `gapMs` after the same request's last progress line was handed to the OS,
 * and only then: a response with no progress before it, or whose progress left more than `gapMs` ago,
 * goes out at once, and no other line ever waits behind a held one (each response waits alone).
 * Bookkeeping is one entry per request that sent progress, removed when its response goes out or the
 * request ends without one, and bounded (the oldest entry is dropped first), so nothing grows for the life
 * of a connection.
 */
export class ResultGap {
  readonly gapMs: number;
  readonly #writer: LineWriter;
  readonly #clock: Clock;
  readonly #maxEntries: number;
  readonly #marks = new Map<RequestId, Mark>();
  /** Ids whose last progress rides each write call not yet taken by the OS. */
  readonly #byWriteCall = new Map<number, RequestId[]>();
  #heldCount = 0;
  #delayed = 0;
  #closed = false;

  constructor(writer: LineWriter, clock: Clock, gapMs: number, maxEntries: number) {
    this.gapMs = gapMs;
    this.#writer = writer;
    this.#clock = clock;
    this.#maxEntries = Math.max(1, maxEntries);
  }

  /** Responses held right now, and how many have been held in all. */
  get stats(): { heldResponses: number; gapDelayedResponses: number } {
    return { heldResponses: this.#heldCount, gapDelayedResponses: this.#delayed };
  }

  /** A progress line for request `id` was just queued on the writer. */
  progress(id: RequestId): void {
    if (this.gapMs <= 0 || this.#closed) return;
    const writeCall = this.#writer.nextWriteCall;
    let mark = this.#marks.get(id);
    if (mark === undefined) {
      if (this.#marks.size >= this.#maxEntries) this.#evictOldest();
      mark = { writeCall: 0, writtenAtMs: Number.NaN, held: undefined, timer: undefined };
      this.#marks.set(id, mark);
    } else if (mark.writeCall === writeCall) return; // this write call already carries one of its lines
    mark.writeCall = writeCall;
    mark.writtenAtMs = Number.NaN;
    const ids = this.#byWriteCall.get(writeCall);
    if (ids) ids.push(id);
    else {
      this.#byWriteCall.set(writeCall, [id]);
      this.#writer.whenWritten(writeCall, this.#written);
    }
  }

  /**
   * The response `line` for request `id` is ready. Returns true when it is held (the gap writes it later),
   * false when the caller should write it now. The common case, no progress before it, is one map lookup.
   */
  hold(id: RequestId, line: Line): boolean {
    if (this.#marks.size === 0) return false;
    const mark = this.#marks.get(id);
    if (mark === undefined || mark.held !== undefined) return false;
    const waitMs = this.#waitMs(mark);
    if (waitMs <= 0) {
      this.#marks.delete(id);
      return false;
    }
    mark.held = line;
    this.#heldCount++;
    this.#delayed++;
    // Still on its way to the OS: the timer starts when the write callback stamps it.
    if (!Number.isNaN(mark.writtenAtMs)) mark.timer = this.#clock.setTimer(() => this.#release(id), waitMs);
    return true;
  }

  /** Request `id` ended without a response (cancelled): forget its progress. */
  forget(id: RequestId): void {
    const mark = this.#marks.get(id);
    if (mark !== undefined && mark.held === undefined) this.#marks.delete(id);
  }

  /**
   * Ends the gap: every timer is cleared and every entry dropped. `flush` (a graceful close) is given the
   * held responses, oldest first, to write at once; without it they are dropped with the connection.
   */
  close(flush?: (line: Line) => void): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const mark of this.#marks.values()) {
      mark.timer?.clear();
      if (mark.held !== undefined) flush?.(mark.held);
    }
    this.#marks.clear();
    this.#byWriteCall.clear();
    this.#heldCount = 0;
  }

  #waitMs(mark: Mark): number {
    if (Number.isNaN(mark.writtenAtMs)) return this.gapMs;
    return mark.writtenAtMs + this.gapMs - this.#clock.now();
  }

  /** The OS took write call `writeCall`: stamp the requests whose last progress it carried. */
  #written = (writeCall: number): void => {
    const ids = this.#byWriteCall.get(writeCall);
    if (ids === undefined) return;
    this.#byWriteCall.delete(writeCall);
    const now = this.#clock.now();
    for (const id of ids) {
      const mark = this.#marks.get(id);
      if (mark === undefined || mark.writeCall !== writeCall) continue;
      mark.writtenAtMs = now;
      if (mark.held !== undefined && mark.timer === undefined)
        mark.timer = this.#clock.setTimer(() => this.#release(id), this.gapMs);
    }
  };

  #release(id: RequestId): void {
    const mark = this.#marks.get(id);
    if (mark?.held === undefined) return;
    // A timer may fire a fraction early against `now()` (Node arms it from the loop's cached time).
    const leftMs = this.#waitMs(mark);
    if (leftMs > 0) {
      mark.timer = this.#clock.setTimer(() => this.#release(id), leftMs);
      return;
    }
    this.#marks.delete(id);
    this.#heldCount--;
    this.#writer.writeLine(mark.held);
  }

  /** Over the bound: the oldest entry that holds nothing goes (it only costs that request its gap). */
  #evictOldest(): void {
    for (const [id, mark] of this.#marks) {
      if (mark.held === undefined) {
        this.#marks.delete(id);
        return;
      }
    }
  }
}
