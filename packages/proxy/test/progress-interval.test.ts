// `--progress-interval MS` sets how often the proxy passes a call's progress to its host: by default at
// most one update per 50 ms (the latest kept), with `0` every value the upstream sent (bench/README.md
// measures both against mcp-proxy). The upstream is the SDK v1 fixture, which sends every step.
import { spawnStdio } from '@mcp-inflight/stdio';
import { describe, expect, it } from 'vitest';
import { commandLine, PROXY, V1_FIXTURE } from './procs.js';

const STEPS = 200;

async function progressThroughProxy(extra: string[]): Promise<number[]> {
  const host = spawnStdio(
    {
      command: process.execPath,
      args: [
        PROXY,
        '--upstream-stdio',
        commandLine(process.execPath, V1_FIXTURE),
        '--log',
        'quiet',
        ...extra,
      ],
    },
    { stderr: 'ignore' },
  );
  try {
    await host.connect({ revision: '2025-11-25' });
    const seen: number[] = [];
    // intervalMs 0: a timer turn between steps, so the steps span well over one 50 ms window.
    await host.callTool(
      'work',
      { steps: STEPS, intervalMs: 0 },
      { onprogress: (p) => seen.push(p.progress) },
    );
    return seen;
  } finally {
    await host.close();
  }
}

describe('--progress-interval', () => {
  it('0 passes every value the upstream sent, in order', async () => {
    const seen = await progressThroughProxy(['--progress-interval', '0']);
    expect(seen).toEqual(Array.from({ length: STEPS }, (_, i) => i + 1));
  });

  it('by default coalesces to one update per 50 ms and still delivers the last value', async () => {
    const seen = await progressThroughProxy([]);
    expect(seen.length).toBeLessThan(STEPS / 2);
    expect(seen.at(-1)).toBe(STEPS);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
  });
});
