import { fileURLToPath } from 'node:url';
import { afterEach, expect, it } from 'vitest';
import { MeasuredPeer } from '../../stdio/test/rss-peer.js';
import { commandLine, PROXY } from './procs.js';

// Issue 45 item 7: an upstream's answer over the 16 MiB line limit (a 20 MB tools/list) fails the host's
// call at once with an error naming the size and the limit. Before, the line was dropped silently and
// the host got IDLE_TIMEOUT ("no progress") 60 s later.

const UPSTREAM = commandLine(
  process.execPath,
  fileURLToPath(new URL('./fixtures/huge-list-upstream.mjs', import.meta.url)),
);

const peers: MeasuredPeer[] = [];
afterEach(() => {
  for (const peer of peers.splice(0)) peer.kill();
});

it('fails a call whose upstream answer is over the line limit at once, says why, and keeps serving', {
  timeout: 30_000,
}, async () => {
  const host = new MeasuredPeer(PROXY, ['--upstream-stdio', UPSTREAM]);
  peers.push(host);
  await host.initialize();
  const began = performance.now();
  host.send({ jsonrpc: '2.0', id: 'list', method: 'tools/list' });
  const answer = JSON.parse(await host.line('"id":"list"', 15_000)) as {
    error?: { code: number; message: string };
  };
  console.info(
    `a 20 MB upstream tools/list: the host's call failed after ${Math.round(performance.now() - began)} ms`,
  );
  expect(answer.error?.code).toBe(-32603);
  expect(answer.error?.message).toMatch(
    /the response was a line of 2000\d{4} bytes, over the limit of 16777216 bytes \(maxLineBytes\), and was skipped/,
  );
  expect(host.stderr).toMatch(/upstream .*line of 2000\d{4} bytes passed maxLineBytes \(16777216\)/);
  host.send({ jsonrpc: '2.0', id: 'after', method: 'ping' });
  expect(await host.line('"id":"after"')).toMatch(/"result":\{\}/);
});
