import { describe, expect, it } from 'vitest';
import { legPaths, shellWord } from '../src/legs.js';
import { DEMO_CALLS, hostCallArgs } from '../src/scenario.js';
import { type DemoFacts, expectedCounts, summarize } from '../src/summary.js';

const good = (): DemoFacts => ({
  host: [
    {
      label: 'finishes',
      updates: 8,
      ms: 1_610,
      outcome: { kind: 'completed', by: 'server', detail: 'finishes: done 8 steps' },
    },
    {
      label: 'cancelled',
      updates: 11,
      ms: 1_205,
      outcome: { kind: 'cancelled', by: 'you', cause: 'CANCELLED', detail: '' },
    },
    {
      label: 'silent',
      updates: 0,
      ms: 803,
      outcome: { kind: 'idle-timeout', by: 'server', cause: 'IDLE_TIMEOUT', detail: 'idle' },
    },
    {
      label: 'chatty',
      updates: 29,
      ms: 3_004,
      outcome: { kind: 'ceiling', by: 'server', cause: 'CEILING', detail: 'ceiling' },
    },
  ],
  proxy: [
    {
      type: 'call',
      method: 'tools/call',
      arguments: { tag: 'silent' },
      outcome: 'cancelled',
      cause: 'IDLE_TIMEOUT',
      message: 'IDLE_TIMEOUT: idle limit of 800 ms passed with no progress (0 updates before)',
      progressIn: 0,
      progressOut: 0,
      ms: 801,
    },
    {
      type: 'call',
      method: 'tools/call',
      arguments: { tag: 'cancelled' },
      outcome: 'cancelled',
      cause: 'DISCONNECTED',
      message: 'DISCONNECTED: the client closed the request stream',
      progressIn: 11,
      progressOut: 11,
      ms: 1_202,
    },
    {
      type: 'call',
      method: 'tools/call',
      arguments: { tag: 'finishes' },
      outcome: 'completed',
      progressIn: 8,
      progressOut: 8,
      ms: 1_605,
    },
    {
      type: 'call',
      method: 'tools/call',
      arguments: { tag: 'chatty' },
      outcome: 'cancelled',
      cause: 'CEILING',
      message: 'CEILING: hard ceiling of 3000 ms reached (29 updates before)',
      progressIn: 29,
      progressOut: 29,
      ms: 3_000,
    },
  ],
  server: { running: 0, completed: 1, cancelled: 3 },
});

describe('summarize', () => {
  it('reports what each leg saw and finds nothing wrong when every leg agrees', () => {
    const { lines, problems } = summarize(good(), DEMO_CALLS);
    expect(problems).toEqual([]);
    const text = lines.join('\n');
    expect(text).toContain('finishes   completed after 1.6 s, 8 progress updates');
    expect(text).toContain('cancelled  cancelled by the user after 1.2 s, 11 progress updates');
    expect(text).toContain(
      'silent     idle limit (the proxy said IDLE_TIMEOUT) after 0.8 s, 0 progress updates',
    );
    expect(text).toContain(
      'chatty     cancelled upstream, reason "CEILING: hard ceiling of 3000 ms reached (29 updates before)"',
    );
    expect(text).toContain('running 0, completed 1, cancelled 3');
  });

  it('names each disagreement', () => {
    const facts = good();
    (facts.host[2] as { outcome: unknown }).outcome = {
      kind: 'ceiling',
      by: 'server',
      cause: 'CEILING',
      detail: '',
    };
    (facts.host[0] as { updates: number }).updates = 7;
    facts.proxy = facts.proxy.filter((p) => (p.arguments as { tag: string }).tag !== 'chatty');
    facts.server = { running: 1, completed: 1, cancelled: 2 };
    const { problems } = summarize(facts, DEMO_CALLS);
    expect(problems).toEqual([
      'host: finishes saw 7 progress updates, expected 8',
      'host: silent ended as ceiling (by server), expected idle limit, reported by the proxy',
      'proxy: no record of chatty',
      'server: expected running 0, completed 1, cancelled 3',
    ]);
  });

  it('does not take a host’s own timeout for the proxy’s, nor a proxy cancel for the user’s', () => {
    const facts = good();
    (facts.host[3] as { outcome: unknown }).outcome = {
      kind: 'ceiling',
      by: 'host',
      cause: 'CEILING',
      detail: '',
    };
    (facts.host[1] as { outcome: unknown }).outcome = {
      kind: 'cancelled',
      by: 'server',
      cause: 'CANCELLED',
      detail: '',
    };
    expect(summarize(facts, DEMO_CALLS).problems).toHaveLength(2);
    expect(summarize({ host: [], proxy: [], server: undefined }, DEMO_CALLS).problems).toHaveLength(9);
  });
});

describe('scenario and legs', () => {
  it('expects one completed and three cancelled at the server', () => {
    expect(expectedCounts(DEMO_CALLS)).toEqual({ running: 0, completed: 1, cancelled: 3 });
  });

  it('builds the host’s arguments, one --tool per call', () => {
    const args = hostCallArgs(DEMO_CALLS);
    expect(args.filter((a) => a === '--tool')).toHaveLength(4);
    expect(args.slice(args.indexOf('cancelled') - 3, args.indexOf('cancelled') + 5)).toEqual([
      '--tool',
      'work',
      '--label',
      'cancelled',
      '--args',
      '{"steps":40,"intervalMs":100,"tag":"cancelled"}',
      '--cancel-after',
      '1200',
    ]);
  });

  it('finds the legs next to the demo and quotes paths with spaces and quotes', () => {
    expect(legPaths('file:///repo/examples/demo/dist/index.js')).toEqual({
      server: '/repo/examples/server/dist/index.js',
      proxy: '/repo/packages/proxy/dist/bin.js',
      host: '/repo/examples/host/dist/index.js',
    });
    expect(shellWord("/a b/it's.js")).toBe("'/a b/it'\\''s.js'");
  });
});
