// Issue 21 item 5, on real child processes: the upstream dies and its respawn hangs in initialize. Host
// calls waiting for the respawn end at their own idle limit with UPSTREAM_UNAVAILABLE (not after the 30 s
// handshake limit), only one child is spawned for them, and the respawn is bounded by --connect-timeout.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HttpClient } from '@mcp-inflight/http';
import { afterAll, expect, it } from 'vitest';
import { commandLine, eventually, type RunningProxy, startProxy } from './procs.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/upstream.mjs', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'proxy-respawn-'));
let proxy: RunningProxy | undefined;
afterAll(async () => {
  await proxy?.kill();
});

it('calls waiting for a hanging respawn end at their idle limit with UPSTREAM_UNAVAILABLE; one respawn at a time', {
  timeout: 30_000,
}, async () => {
  const starts = join(dir, 'starts');
  const pids = () => readFileSync(starts, 'utf8').trim().split('\n');
  const upstream = commandLine(process.execPath, FIXTURE, '--starts-file', starts, '--hang-after-first');
  proxy = await startProxy([
    '--upstream-stdio',
    upstream,
    '--idle-timeout',
    '1000',
    '--connect-timeout',
    '4000',
  ]);
  const host = new HttpClient({ url: proxy.url });
  await host.callTool('work', { steps: 1, intervalMs: 5 });
  process.kill(Number(pids()[0]), 'SIGKILL');
  await eventually(() => expect(proxy?.events.some((e) => e.type === 'upstream-closed')).toBe(true));

  const began = Date.now();
  const calls = await Promise.allSettled([
    host.callTool('work', { steps: 1, intervalMs: 5 }),
    host.callTool('work', { steps: 1, intervalMs: 5 }),
    host.callTool('work', { steps: 1, intervalMs: 5 }),
  ]);
  const tookMs = Date.now() - began;
  for (const call of calls) {
    expect(call.status).toBe('rejected');
    const reason = (call as PromiseRejectedResult).reason;
    expect(reason).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE' });
    expect(String(reason.message)).toMatch(/not ready: start #2 still connecting after 1000 ms/);
  }
  expect(tookMs).toBeLessThan(3_500); // their idle limit, far below the 30 s handshake limit
  await eventually(() => expect(pids()).toHaveLength(2), 5_000); // one respawn for the three calls
  // The respawn itself ends at --connect-timeout, and says so.
  await eventually(() => {
    const failed = proxy?.events.find((e) => e.type === 'upstream-failed');
    expect(String(failed?.message)).toMatch(/did not connect within 4000 ms/);
    expect(pids()).toHaveLength(2);
  }, 10_000);
  await host.close();
});
