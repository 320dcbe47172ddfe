import { type CallOutcome, describeOutcome } from './outcome.js';

/** What the display knows about one call: pure data, updated by the runner, drawn by the functions below. */
export interface CallView {
  label: string;
  tool: string;
  /** Latest accepted progress, total and message (strictly increasing: the endpoint drops the rest). */
  progress?: number;
  total?: number;
  message?: string;
  /** Progress updates received. */
  updates: number;
  /** Clock readings (ms) at the start and the end. */
  startedAt: number;
  endedAt?: number;
  outcome?: CallOutcome;
}

/** How to draw. */
export interface RenderOptions {
  /** The clock reading to measure running calls against. */
  now: number;
  /** Terminal columns available. @default 80 */
  width?: number;
  /** Whether the output is a terminal: colours and block glyphs; otherwise plain ASCII, no escape codes. */
  tty: boolean;
  /** Pads labels to this width so the bars line up. @default the label's own length */
  labelWidth?: number;
}

const GREEN = '\x1b[32m';
const RED = '\x1b[31m';
const YELLOW = '\x1b[33m';
const DIM = '\x1b[2m';
const RESET = '\x1b[0m';

/**
 * Seconds with one decimal: `1.6 s`.
 *
 * @example
 * ```ts
 * import { seconds } from './render.js';
 * seconds(1_560); // '1.6 s'
 * ```
 */
export function seconds(ms: number): string {
  return `${(Math.max(0, ms) / 1000).toFixed(1)} s`;
}

/**
 * A progress bar `width` cells wide for `fraction` (0..1), or a moving marker when the total is unknown.
 *
 * @example
 * ```ts
 * import { bar } from './render.js';
 * bar(0.5, 10, false); // '#####.....'
 * ```
 */
export function bar(fraction: number | undefined, width: number, tty: boolean, tick = 0): string {
  const [full, empty] = tty ? ['\u2588', '\u2591'] : ['#', '.'];
  if (fraction === undefined) {
    const at = Math.abs(tick) % width;
    return empty.repeat(at) + full + empty.repeat(width - at - 1);
  }
  const filled = Math.round(Math.min(1, Math.max(0, fraction)) * width);
  return full.repeat(filled) + empty.repeat(width - filled);
}

/**
 * One line for one call: label, bar, numbers and the latest message while it runs; the outcome once it
 * has ended. Never longer than `width`.
 *
 * @example
 * ```ts
 * import { renderLine } from './render.js';
 * renderLine({ label: 'a', tool: 'work', progress: 3, total: 10, message: 'step 3', updates: 3, startedAt: 0 }, { now: 900, tty: false });
 * // 'a  [######..............]  3/10  30%  0.9 s  step 3'
 * ```
 */
export function renderLine(view: CallView, options: RenderOptions): string {
  const width = options.width ?? 80;
  const elapsed = seconds((view.endedAt ?? options.now) - view.startedAt);
  const fraction = fractionOf(view);
  const numbers =
    view.progress === undefined
      ? 'waiting'
      : view.total === undefined
        ? `${view.progress}`
        : `${view.progress}/${view.total}  ${Math.round((fraction ?? 0) * 100)}%`;
  // Before the first update the bar is empty: a marker at the start would read as 5% done.
  const drawn =
    view.progress === undefined ? bar(0, 20, options.tty) : bar(fraction, 20, options.tty, view.updates);
  const head = `${view.label.padEnd(options.labelWidth ?? 0)}  [${drawn}]  ${numbers}  ${elapsed}`;
  const tail = view.outcome ? endText(view) : (view.message ?? '');
  const line = tail ? `${head}  ${tail}` : head;
  const clipped = line.length > width ? `${line.slice(0, Math.max(0, width - 3))}...` : line;
  return options.tty ? colour(clipped, view) : clipped;
}

/**
 * The line printed when a call ends: how long, how many updates, and why it ended.
 *
 * @example
 * ```ts
 * import { renderEndLine } from './render.js';
 * renderEndLine({ label: 'b', tool: 'work', updates: 12, startedAt: 0, endedAt: 1_200,
 *   outcome: { kind: 'cancelled', by: 'you', cause: 'CANCELLED', detail: '' } });
 * // 'b: cancelled by you after 1.2 s, 12 progress updates'
 * ```
 */
export function renderEndLine(view: CallView): string {
  const after = seconds((view.endedAt ?? view.startedAt) - view.startedAt);
  const updates = `${view.updates} progress update${view.updates === 1 ? '' : 's'}`;
  if (!view.outcome) return `${view.label}: still running after ${after}, ${updates}`;
  const sentence = describeOutcome(view.outcome);
  const [what, ...rest] = sentence.split(': ');
  const why = rest.length ? `: ${rest.join(': ')}` : '';
  return `${view.label}: ${what} after ${after}, ${updates}${why}`;
}

/**
 * Whether a non-terminal log should get a progress line now: the first update, then at most one per
 * `everyMs` per call, so a log file stays readable whatever the server's rate.
 *
 * @example
 * ```ts
 * import { shouldLogProgress } from './render.js';
 * shouldLogProgress(undefined, 100, 500); // true
 * shouldLogProgress(100, 300, 500);       // false
 * ```
 */
export function shouldLogProgress(lastLoggedAt: number | undefined, now: number, everyMs: number): boolean {
  return lastLoggedAt === undefined || now - lastLoggedAt >= everyMs;
}

function fractionOf(view: CallView): number | undefined {
  if (view.progress === undefined || view.total === undefined || !(view.total > 0)) return undefined;
  return view.progress / view.total;
}

function endText(view: CallView): string {
  const o = view.outcome;
  if (!o) return '';
  return describeOutcome(o);
}

function colour(line: string, view: CallView): string {
  const o = view.outcome;
  if (!o) return line;
  if (o.kind === 'completed') return `${GREEN}${line}${RESET}`;
  if (o.kind === 'cancelled' && o.by === 'you') return `${DIM}${line}${RESET}`;
  if (o.kind === 'idle-timeout' || o.kind === 'ceiling') return `${YELLOW}${line}${RESET}`;
  return `${RED}${line}${RESET}`;
}
