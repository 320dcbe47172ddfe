import type { CallOutcome } from './outcome.js';
import type { CallView } from './render.js';
import type { WireTally } from './wire-tally.js';

/** One call as the host saw it, for `--report FILE` (the demo reads this). */
export interface CallReport {
  label: string;
  tool: string;
  /** Progress updates received. */
  updates: number;
  /** The last progress value and total seen. */
  progress?: number;
  total?: number;
  ms: number;
  outcome: CallOutcome | null;
}

/** The whole report: what the host spoke, and each call. */
export interface HostReport {
  target: string;
  revision: string | undefined;
  calls: CallReport[];
  /** What the host's endpoint did on the wire (its event stream): cancels sent, limits fired, late answers. */
  wire?: WireTally;
}

/**
 * Turns the views into a report (plain JSON data).
 *
 * @example
 * ```ts
 * import { toReport } from './report.js';
 * toReport('http://127.0.0.1:3000/mcp', '2026-07-28', []); // { target: 'http://…', revision: '2026-07-28', calls: [] }
 * ```
 */
export function toReport(
  target: string,
  revision: string | undefined,
  views: CallView[],
  wire?: WireTally,
): HostReport {
  const report: HostReport = {
    target,
    revision,
    calls: views.map((v) => {
      const r: CallReport = {
        label: v.label,
        tool: v.tool,
        updates: v.updates,
        ms: (v.endedAt ?? v.startedAt) - v.startedAt,
        outcome: v.outcome ?? null,
      };
      if (v.progress !== undefined) r.progress = v.progress;
      if (v.total !== undefined) r.total = v.total;
      return r;
    }),
  };
  if (wire) report.wire = wire;
  return report;
}

/**
 * The process exit code for a set of ended calls: 0 when every call completed, 130 when the user
 * cancelled (the shell's code for Ctrl-C), 1 otherwise.
 *
 * @example
 * ```ts
 * import { exitCodeFor } from './report.js';
 * exitCodeFor([{ label: 'a', tool: 'work', updates: 1, startedAt: 0, outcome: { kind: 'completed', by: 'server', detail: '' } }]); // 0
 * ```
 */
export function exitCodeFor(views: CallView[]): number {
  if (views.every((v) => v.outcome?.kind === 'completed')) return 0;
  if (views.some((v) => v.outcome?.kind === 'cancelled' && v.outcome.by === 'you')) return 130;
  return 1;
}
