import { DEMO_LIMITS, type DemoCall, type Expected } from './scenario.js';

// The demo reads what the other processes wrote (the host's --report file, the proxy's --log json
// lines, the server's status tool). These are the fields it reads, as JSON.

/** A call in the host's report. */
export interface HostCallFacts {
  label: string;
  updates: number;
  ms: number;
  outcome: { kind: string; by: string; cause?: string; detail: string } | null;
}

/** A `call` event from the proxy's JSON log. */
export interface ProxyCallFacts {
  type: 'call';
  method: string;
  arguments?: unknown;
  outcome: string;
  cause?: string;
  message?: string;
  progressIn: number;
  progressOut: number;
  ms: number;
}

/** The example server's `status` tool result. */
export interface ServerCounts {
  running: number;
  completed: number;
  cancelled: number;
}

/** Everything the demo learned from the three legs. */
export interface DemoFacts {
  host: HostCallFacts[];
  proxy: ProxyCallFacts[];
  server: ServerCounts | undefined;
}

/** The summary's lines, and anything that disagreed with the scenario (empty when all is well). */
export interface Summary {
  lines: string[];
  problems: string[];
}

const HOST_WORDS: Record<Expected, string> = {
  completed: 'completed',
  cancelled: 'cancelled by the user',
  'idle-timeout': 'idle limit, reported by the proxy',
  ceiling: 'ceiling, reported by the proxy',
};

const PROXY_CAUSES: Record<Expected, readonly string[]> = {
  completed: [],
  // A 2026-07-28 host cancels by closing its stream, which the proxy sees as the host leaving [CN24].
  cancelled: ['CANCELLED', 'DISCONNECTED'],
  'idle-timeout': ['IDLE_TIMEOUT'],
  ceiling: ['CEILING'],
};

/**
 * Lines of the demo's summary (what each leg saw), and a check of each leg against the scenario.
 *
 * @example
 * ```ts
 * import { summarize } from './summary.js';
 * import { DEMO_CALLS } from './scenario.js';
 * const { lines, problems } = summarize({ host: [], proxy: [], server: undefined }, DEMO_CALLS);
 * problems.length > 0; // true: nothing was seen
 * ```
 */
export function summarize(facts: DemoFacts, calls: readonly DemoCall[]): Summary {
  const lines: string[] = [];
  const problems: string[] = [];
  const width = Math.max(...calls.map((c) => c.label.length));
  const pad = (label: string) => label.padEnd(width);

  lines.push('host (what the caller saw)');
  for (const call of calls) {
    const seen = facts.host.find((h) => h.label === call.label);
    if (!seen?.outcome) {
      lines.push(`  ${pad(call.label)}  no outcome reported`);
      problems.push(`host: no outcome for ${call.label}`);
      continue;
    }
    lines.push(
      `  ${pad(call.label)}  ${hostWords(seen)} after ${secs(seen.ms)}, ${n(seen.updates, 'progress update')}`,
    );
    const ok =
      seen.outcome.kind === call.expect &&
      (call.expect !== 'cancelled' || seen.outcome.by === 'you') &&
      (call.expect !== 'idle-timeout' && call.expect !== 'ceiling' ? true : seen.outcome.by === 'server');
    if (!ok)
      problems.push(
        `host: ${call.label} ended as ${seen.outcome.kind} (by ${seen.outcome.by}), expected ${HOST_WORDS[call.expect]}`,
      );
    if (call.expect === 'completed' && seen.updates !== call.args.steps) {
      problems.push(`host: ${call.label} saw ${seen.updates} progress updates, expected ${call.args.steps}`);
    }
  }

  lines.push(
    `proxy (idle limit ${DEMO_LIMITS.idleMs} ms, ceiling ${DEMO_LIMITS.ceilingMs} ms for every relayed call)`,
  );
  for (const call of calls) {
    const seen = facts.proxy.find((p) => p.method === 'tools/call' && tagOf(p.arguments) === call.args.tag);
    if (!seen) {
      lines.push(`  ${pad(call.label)}  not relayed`);
      problems.push(`proxy: no record of ${call.label}`);
      continue;
    }
    const relayed = `relayed ${seen.progressOut} of ${n(seen.progressIn, 'progress update')}`;
    const how =
      seen.outcome === 'cancelled'
        ? `cancelled upstream, reason "${seen.message ?? seen.cause}"`
        : seen.outcome;
    lines.push(`  ${pad(call.label)}  ${how}; ${relayed}`);
    const causes = PROXY_CAUSES[call.expect];
    const ok =
      call.expect === 'completed'
        ? seen.outcome === 'completed'
        : seen.outcome === 'cancelled' && causes.includes(seen.cause ?? '');
    if (!ok)
      problems.push(
        `proxy: ${call.label} ended as ${seen.outcome} ${seen.cause ?? ''}, expected ${call.expect}`,
      );
  }

  lines.push('server (its status tool, counting work calls)');
  const expected = expectedCounts(calls);
  if (!facts.server) {
    lines.push('  no status');
    problems.push('server: status could not be read');
  } else {
    const s = facts.server;
    lines.push(`  running ${s.running}, completed ${s.completed}, cancelled ${s.cancelled}`);
    if (s.running !== 0 || s.completed !== expected.completed || s.cancelled !== expected.cancelled) {
      problems.push(
        `server: expected running 0, completed ${expected.completed}, cancelled ${expected.cancelled}`,
      );
    }
  }
  return { lines, problems };
}

/**
 * What the server's counters should read after the scenario: every early end is a cancel there.
 *
 * @example
 * ```ts
 * import { expectedCounts } from './summary.js';
 * import { DEMO_CALLS } from './scenario.js';
 * expectedCounts(DEMO_CALLS); // { running: 0, completed: 1, cancelled: 3 }
 * ```
 */
export function expectedCounts(calls: readonly DemoCall[]): ServerCounts {
  const completed = calls.filter((c) => c.expect === 'completed').length;
  return { running: 0, completed, cancelled: calls.length - completed };
}

function hostWords(seen: HostCallFacts): string {
  const o = seen.outcome;
  if (!o) return 'no outcome';
  if (o.kind === 'cancelled' && o.by === 'you') return 'cancelled by the user';
  if (o.kind === 'idle-timeout' || o.kind === 'ceiling') {
    const which = o.kind === 'idle-timeout' ? 'idle limit' : 'ceiling';
    return `${which} (${o.by === 'server' ? `the proxy said ${o.cause}` : 'this host'})`;
  }
  return o.kind === 'completed' ? 'completed' : `${o.kind}: ${o.detail}`;
}

function tagOf(args: unknown): unknown {
  return typeof args === 'object' && args !== null ? (args as { tag?: unknown }).tag : undefined;
}

function secs(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

function n(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
