import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, it } from 'vitest';
import { MeasuredPeer } from '../../stdio/test/rss-peer.js';
import { commandLine, PROXY } from './procs.js';

// Issue 45 item 6, on real processes: at the fd limit a respawn of the upstream fails before its pipes
// exist. Before, the proxy died on it ("Cannot read properties of undefined (reading 'on')" from
// spawnStdio); now the call fails naming the spawn error (EMFILE), the failure is logged with the
// backoff, and once descriptors are free again the next start works. The limit is the proxy's own,
// lowered from outside with prlimit(1) to exactly the descriptors it holds.

const FIXTURE = fileURLToPath(new URL('./fixtures/upstream.mjs', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'proxy-fd-limit-'));
const peers: MeasuredPeer[] = [];
afterEach(() => {
  for (const peer of peers.splice(0)) peer.kill();
});

const work = (id: string) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'work', arguments: { steps: 1, intervalMs: 1 } },
});

/** The lowest descriptor number `pid` does not hold: a soft limit there leaves it none to open. */
function firstFreeDescriptor(pid: number): number {
  const held = new Set(readdirSync(`/proc/${pid}/fd`).map(Number));
  let fd = 0;
  while (held.has(fd)) fd++;
  return fd;
}

it('reports a spawn that fails at the fd limit, backs off, and starts again once descriptors are free', {
  timeout: 30_000,
}, async () => {
  const starts = join(dir, 'starts');
  const upstream = commandLine(process.execPath, FIXTURE, '--starts-file', starts);
  const host = new MeasuredPeer(PROXY, ['--upstream-stdio', upstream]);
  peers.push(host);
  await host.initialize();
  host.send(work('first'));
  expect(await host.line('"id":"first"')).toMatch(/"result"/);
  const pid = host.child.pid!;
  const hard = /Max open files\s+\d+\s+(\d+)/.exec(readFileSync(`/proc/${pid}/limits`, 'utf8'))![1]!;
  process.kill(Number(readFileSync(starts, 'utf8').trim()), 'SIGKILL');
  await expect.poll(() => host.stderr, { timeout: 10_000 }).toMatch(/upstream #1 closed/);
  execFileSync('prlimit', ['--pid', String(pid), `--nofile=${firstFreeDescriptor(pid)}:${hard}`]);

  host.send(work('at-limit'));
  const failed = await host.line('"id":"at-limit"');
  expect(failed).toMatch(/"error"/);
  expect(failed).toMatch(/could not start the upstream: .*could not start: spawn .*EMFILE/);
  host.send(work('again'));
  expect(await host.line('"id":"again"')).toMatch(/EMFILE/);
  // The second failure in a row starts the backoff, and the log says when the next start may come.
  await expect.poll(() => host.stderr).toMatch(/upstream #3 failed to start: .*EMFILE; next start in \d+ ms/);
  expect(host.child.exitCode).toBeNull();

  execFileSync('prlimit', ['--pid', String(pid), `--nofile=${hard}:${hard}`]);
  await expect
    .poll(
      async () => {
        const id = `later-${performance.now()}`;
        host.send(work(id));
        return host.line(`"id":"${id}"`);
      },
      { timeout: 15_000, interval: 200 },
    )
    .toMatch(/"result"/);
  expect(host.stderr).toMatch(/upstream #[4-9] ready/);
});
