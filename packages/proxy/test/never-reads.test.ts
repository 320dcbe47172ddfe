import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { MeasuredPeer, MiB } from '../../stdio/test/rss-peer.js';
import { commandLine, PROXY } from './procs.js';

// Issue 45 item 2 through the proxy, over real pipes: a host on --stdio that never reads, and a command
// upstream that never reads, each cost the proxy at most the write budget (64 MiB) plus one message, and
// are cut off with a cause naming the cap. Memory is the proxy's own, from /proc: its resident set at
// idle after the handshake, and its peak (VmHWM).

const STDIO_FIXTURES = fileURLToPath(new URL('../../stdio/test/fixtures/', import.meta.url));
const BLOB_SERVER = commandLine(process.execPath, `${STDIO_FIXTURES}inflight-server.mjs`);
const DEAF_SERVER = commandLine(process.execPath, `${STDIO_FIXTURES}deaf-server.mjs`);
const BUDGET_BYTES = 64 * MiB;
/** The message's other copies and the runtime's slack (see packages/stdio/test/never-reads.test.ts). */
const SLACK_BYTES = 56 * MiB;

const peers: MeasuredPeer[] = [];
afterEach(() => {
  for (const peer of peers.splice(0)) peer.kill();
});

function proxy(upstream: string): MeasuredPeer {
  const peer = new MeasuredPeer(PROXY, ['--upstream-stdio', upstream]);
  peers.push(peer);
  return peer;
}

const call = (id: string, name: string, args: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
});

describe('the proxy', () => {
  it('holds at most the budget plus one message for a --stdio host that never reads, then cuts it off', async () => {
    const peer = proxy(BLOB_SERVER);
    const baselineBytes = await peer.initialize();
    peer.send(call('warm', 'blob', { bytes: 10 })); // the upstream is started and connected
    await peer.line('"id":"warm"');
    peer.stopReading();
    // 2,000 answers of 256 KiB (500 MiB), at most 100 at a time upstream (--max-host-in-flight), which
    // the proxy reads as fast as they come; the host reads none of them.
    const messageBytes = MiB / 4;
    for (let i = 0; i < 2_000; i++) peer.send(call(`b${i}`, 'blob', { bytes: messageBytes }));
    await expect.poll(() => peer.stderr, { timeout: 30_000 }).toMatch(/plus one message/);
    peer.child.stdin!.end(); // the host is gone: the proxy exits and reports its peak
    await peer.exited;
    const overBaseline = peer.peakBytes - baselineBytes;
    console.info(
      `proxy, a host that never reads: peak RSS ${(overBaseline / MiB).toFixed(0)} MiB over its idle baseline`,
    );
    expect(peer.stderr).toMatch(
      /the peer stopped reading: \d+ bytes waited to be written, and the next line would pass the budget maxUnsentBytes 67108864 plus one message/,
    );
    expect(overBaseline).toBeLessThan(BUDGET_BYTES + messageBytes + SLACK_BYTES);
  }, 60_000);

  it('fails the calls to an upstream that never reads at once, naming the cap, and keeps serving', async () => {
    // The host's own requests are what fill this queue, and the proxy holds each one it relays while it
    // runs, so the proxy's memory here is the requests in flight (--max-host-in-flight), not the queue.
    const peer = new MeasuredPeer(PROXY, ['--upstream-stdio', DEAF_SERVER, '--max-host-in-flight', '300']);
    peers.push(peer);
    await peer.initialize();
    await expect.poll(() => peer.stderr, { timeout: 10_000 }).toMatch(/upstream #1 ready/);
    const text = 'q'.repeat(MiB);
    const began = performance.now();
    for (let i = 0; i < 300; i++) peer.send(call(`q${i}`, 'echo', { text }));
    // Before the cap, 300 MiB waited for the 10 s stall window, and the calls failed only then.
    const failed = await peer.line('"error"', 30_000);
    console.info(
      `proxy, an upstream that never reads: the first call failed ${Math.round(performance.now() - began)} ms after the flood`,
    );
    expect(failed).toMatch(
      /the peer stopped reading: \d+ bytes waited to be written, and the next line would pass the budget maxUnsentBytes 67108864 plus one message/,
    );
    peer.send({ jsonrpc: '2.0', id: 'after', method: 'ping' });
    expect(await peer.line('"id":"after"')).toMatch(/"result":\{\}/);
  }, 60_000);
});
