import type { Revision } from '@mcp-inflight/core';

/**
 * The proxy's limits for every relayed call in the demo.
 *
 * @example
 * ```ts
 * import { DEMO_LIMITS } from './scenario.js';
 * ['--idle-timeout', String(DEMO_LIMITS.idleMs), '--max-timeout', String(DEMO_LIMITS.ceilingMs)];
 * ```
 */
export const DEMO_LIMITS = { idleMs: 800, ceilingMs: 3_000 } as const;

/**
 * The revision each leg speaks: a 2026-07-28 host over HTTP, a legacy server over stdio, so a cancel
 * crosses eras (the host closes its stream; the proxy sends the server `notifications/cancelled`).
 *
 * @example
 * ```ts
 * import { DEMO_ERAS } from './scenario.js';
 * DEMO_ERAS.host; // '2026-07-28'
 * ```
 */
export const DEMO_ERAS: { host: Revision; upstream: Revision } = {
  host: '2026-07-28',
  upstream: '2025-11-25',
};

/** How a demo call should end, as the host sees it. */
export type Expected = 'completed' | 'cancelled' | 'idle-timeout' | 'ceiling';

/** One of the demo's calls to the example server's `work` tool. */
export interface DemoCall {
  label: string;
  args: { steps: number; intervalMs: number; tag: string };
  /** The scripted user cancel, as if the user pressed stop after this long. */
  cancelAfterMs?: number;
  expect: Expected;
  /** What happens, in a sentence. */
  story: string;
}

/**
 * The four calls made at once: one finishes, one is cancelled by the user, one goes silent for longer
 * than the idle limit, one keeps talking past the ceiling.
 *
 * @example
 * ```ts
 * import { DEMO_CALLS } from './scenario.js';
 * DEMO_CALLS.map((c) => c.label); // ['finishes', 'cancelled', 'silent', 'chatty']
 * ```
 */
export const DEMO_CALLS: readonly DemoCall[] = [
  {
    label: 'finishes',
    args: { steps: 8, intervalMs: 200, tag: 'finishes' },
    expect: 'completed',
    story: '8 steps of 200 ms, progress after each: done in 1.6 s',
  },
  {
    label: 'cancelled',
    args: { steps: 40, intervalMs: 100, tag: 'cancelled' },
    cancelAfterMs: 1_200,
    expect: 'cancelled',
    story: '40 steps of 100 ms; the user presses stop at 1.2 s',
  },
  {
    label: 'silent',
    args: { steps: 2, intervalMs: 5_000, tag: 'silent' },
    expect: 'idle-timeout',
    story: `5 s between updates: the proxy's idle limit (${DEMO_LIMITS.idleMs} ms) ends it`,
  },
  {
    label: 'chatty',
    args: { steps: 100, intervalMs: 100, tag: 'chatty' },
    expect: 'ceiling',
    story: `progress every 100 ms for 10 s: the proxy's ceiling (${DEMO_LIMITS.ceilingMs} ms) ends it`,
  },
];

/**
 * The host CLI arguments for the demo's calls.
 *
 * @example
 * ```ts
 * import { DEMO_CALLS, hostCallArgs } from './scenario.js';
 * hostCallArgs(DEMO_CALLS).slice(0, 4); // ['--tool', 'work', '--label', 'finishes']
 * ```
 */
export function hostCallArgs(calls: readonly DemoCall[]): string[] {
  return calls.flatMap((c) => [
    '--tool',
    'work',
    '--label',
    c.label,
    '--args',
    JSON.stringify(c.args),
    ...(c.cancelAfterMs === undefined ? [] : ['--cancel-after', String(c.cancelAfterMs)]),
  ]);
}
