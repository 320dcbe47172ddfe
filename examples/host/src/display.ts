import type { Clock, TimerHandle } from '@mcp-inflight/core';
import { type CallView, renderEndLine, renderLine, shouldLogProgress } from './render.js';

/** Where the display writes: a terminal (redrawn in place) or anything else (plain lines). */
export interface DisplayOutput {
  write(text: string): void;
  readonly isTTY?: boolean;
  readonly columns?: number;
}

/** Redraws at most this often on a terminal: smooth to the eye, cheap under a flood of progress. */
const REDRAW_MS = 80;
/** Without a terminal, one progress line per call at most this often, so a log file stays short. */
const LOG_EVERY_MS = 500;

/**
 * Live progress bars for a set of calls. On a terminal the bars are redrawn in place (cursor up, clear
 * line) at most every 80 ms; elsewhere (a pipe, a log file) it writes plain lines with no escape codes:
 * a progress line per call at most every 500 ms, and one line when each call ends saying why.
 *
 * @example
 * ```ts
 * import { systemClock } from '@mcp-inflight/core';
 * import { Display } from './display.js';
 * const view = { label: 'a', tool: 'work', updates: 0, startedAt: systemClock.now() };
 * const display = new Display([view], process.stdout, systemClock);
 * view.progress = 1; view.total = 4; view.updates = 1;
 * display.update(view);
 * display.finish();
 * ```
 */
export class Display {
  readonly #views: CallView[];
  readonly #out: DisplayOutput;
  readonly #clock: Clock;
  readonly #tty: boolean;
  #drawnLines = 0;
  #redrawTimer: TimerHandle | undefined;
  #lastLogged = new Map<CallView, number>();
  #finished = false;
  readonly #labelWidth: number;

  constructor(views: CallView[], out: DisplayOutput, clock: Clock) {
    this.#views = views;
    this.#out = out;
    this.#clock = clock;
    this.#tty = out.isTTY === true;
    this.#labelWidth = Math.max(0, ...views.map((v) => v.label.length));
    if (this.#tty) this.#redraw();
  }

  /** A call's progress changed. */
  update(view: CallView): void {
    if (this.#finished) return;
    if (this.#tty) return this.#scheduleRedraw();
    const now = this.#clock.now();
    if (!shouldLogProgress(this.#lastLogged.get(view), now, LOG_EVERY_MS)) return;
    this.#lastLogged.set(view, now);
    this.#out.write(`${renderLine(view, { now, tty: false, width: 200, labelWidth: this.#labelWidth })}\n`);
  }

  /** A call ended: say why, at once. */
  end(view: CallView): void {
    if (this.#finished) return;
    this.#lastLogged.delete(view);
    if (this.#tty) this.#redraw();
    else this.#out.write(`${renderEndLine(view)}\n`);
  }

  /** Prints a line of its own (above the bars on a terminal). */
  note(text: string): void {
    if (!this.#tty) return this.#out.write(`${text}\n`);
    this.#clear();
    this.#out.write(`${text}\n`);
    this.#redraw();
  }

  /** Draws the final state and, on a terminal, one plain line per call saying why it ended. */
  finish(): void {
    if (this.#finished) return;
    this.#redrawTimer?.clear();
    this.#redrawTimer = undefined;
    if (this.#tty) {
      this.#redraw();
      for (const view of this.#views) this.#out.write(`${renderEndLine(view)}\n`);
    }
    this.#finished = true;
  }

  #scheduleRedraw(): void {
    this.#redrawTimer ??= this.#clock.setTimer(() => {
      this.#redrawTimer = undefined;
      if (!this.#finished) this.#redraw();
    }, REDRAW_MS);
  }

  #clear(): void {
    if (this.#drawnLines === 0) return;
    // Up to the first bar, then clear everything below it.
    this.#out.write(`\x1b[${this.#drawnLines}F\x1b[J`);
    this.#drawnLines = 0;
  }

  #redraw(): void {
    const now = this.#clock.now();
    // A terminal that does not report its size (0 or undefined) gets the classic 80 columns.
    const columns = this.#out.columns;
    const width = columns !== undefined && columns >= 20 ? columns - 1 : 79;
    let frame = this.#drawnLines > 0 ? `\x1b[${this.#drawnLines}F` : '';
    for (const view of this.#views)
      frame += `\x1b[2K${renderLine(view, { now, tty: true, width, labelWidth: this.#labelWidth })}\n`;
    this.#out.write(frame);
    this.#drawnLines = this.#views.length;
  }
}
