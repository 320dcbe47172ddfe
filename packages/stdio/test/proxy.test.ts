import { afterEach, describe, expect, it } from 'vitest';
import type { StdioClient } from '../src/index.js';
import { spawnFixture, textOf } from './helpers.js';

// host (our client) -> proxy (serveStdio + spawnStdio, fixtures/proxy.mjs) -> upstream (serveStdio),
// three real processes, as the README's proxy example is written.

const open: StdioClient[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((client) => client.close()));
});

async function start(): Promise<StdioClient> {
  const host = spawnFixture('proxy.mjs');
  open.push(host);
  await host.connect({ revision: '2025-06-18' });
  return host;
}

describe('stdio inside a proxy', () => {
  it("relays the upstream's progress to the host under the host's token, then the result", async () => {
    const host = await start();
    const seen: { progressToken: unknown; progress: number; message?: string }[] = [];
    const result = await host.request(
      'tools/call',
      { name: 'work', arguments: { steps: 4, intervalMs: 60 } },
      { onprogress: (p) => seen.push(p) },
    );
    expect(textOf(result)).toBe('done 4');
    // The upstream leg spoke 2026-07-28; the host's leg is 2025-06-18 and gets its own shape of result.
    expect(result).toMatchObject({ resultType: 'complete', revision: '2026-07-28' });
    expect(seen.map((p) => p.progress)).toEqual([1, 2, 3, 4]);
    expect(seen.at(-1)).toMatchObject({ message: 'step 4', progressToken: seen[0]!.progressToken });
  });

  it("carries the host's cancel to the upstream handler", async () => {
    const host = await start();
    const controller = new AbortController();
    const call = host.request(
      'tools/call',
      { name: 'work', arguments: { steps: 100, intervalMs: 30 } },
      {
        signal: controller.signal,
        onprogress: () => controller.abort('host stop'),
      },
    );
    await expect(call).rejects.toMatchObject({ code: 'CANCELLED' });
    await expect.poll(() => host.stderrText(), { timeout: 20_000 }).toMatch(/ABORTED \d+ CANCELLED/);
  });

  it('turns the host leaving into an upstream cancel, and the proxy exits cleanly', async () => {
    const host = await start();
    void host
      .request(
        'tools/call',
        { name: 'work', arguments: { steps: 100, intervalMs: 30 } },
        { onprogress: () => {} },
      )
      .catch(() => {});
    await expect.poll(() => host.endpoint.progressRelay.stats.passed, { timeout: 20_000 }).toBeGreaterThan(0);
    host.child.stdin!.end(); // the host goes away without a word
    expect(await host.exited).toEqual({ code: 0, signal: null });
    // The proxy's handler saw DISCONNECTED; on the upstream leg that is a cancel (reason "DISCONNECTED: ...").
    expect(host.stderrText()).toMatch(/ABORTED \d+ CANCELLED/);
    expect(host.stderrText()).toMatch(/CLOSED/);
  });
});
