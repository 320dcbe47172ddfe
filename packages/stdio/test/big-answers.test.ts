import { afterEach, describe, expect, it } from 'vitest';
import { fixturePath, RawPeer } from './helpers.js';

// Issue 21: answers that are large, to a peer that reads. A 2025-03-26 batch is bounded in elements, so
// a small line cannot ask for a huge answer; and one large answer never closes the connection to a
// reading peer (the write budget judges what it failed to read over time).

const peers: RawPeer[] = [];
afterEach(() => {
  for (const peer of peers.splice(0)) peer.kill();
});

function start(env: Record<string, string> = {}): RawPeer {
  const peer = new RawPeer(process.execPath, [fixturePath('inflight-server.mjs')], env);
  peers.push(peer);
  return peer;
}

async function initialize(peer: RawPeer, protocolVersion: string): Promise<void> {
  peer.send({
    jsonrpc: '2.0',
    id: 'init',
    method: 'initialize',
    params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });
  peer.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  await peer.response('init');
}

describe('a 2025-03-26 batch over maxBatchElements', () => {
  it('is refused with one -32600 (id null) naming the limit, and the server keeps serving', async () => {
    const peer = start();
    await initialize(peer, '2025-03-26');
    // 1.2 MB of invalid elements: before the bound, one 67.8 MB answer line that tripped maxUnsentBytes.
    peer.write(`[${new Array(600_000).fill('1').join(',')}]\n`);
    const refused = await peer.next((m) => m.id === null && 'error' in m, 10_000);
    expect(refused.error).toMatchObject({
      code: -32600,
      message: expect.stringContaining('more than maxBatchElements (1000)'),
    });
    expect(peer.rawLines.at(-1)!.length).toBeLessThan(1_000);
    // A batch within the limit is still answered in kind.
    peer.send([
      { jsonrpc: '2.0', id: 'a', method: 'ping' },
      { jsonrpc: '2.0', id: 'b', method: 'ping' },
    ]);
    const batch = (await peer.next((m) => Array.isArray(m))) as unknown as { id: string }[];
    expect(batch.map((m) => m.id).sort()).toEqual(['a', 'b']);
    peer.send({ jsonrpc: '2.0', id: 'after', method: 'ping' });
    expect(await peer.response('after')).toMatchObject({ result: {} });
    expect(peer.child.exitCode).toBeNull();
  });
});

describe('one answer larger than maxUnsentBytes, to a peer that reads', () => {
  it('arrives whole, and the connection keeps serving', async () => {
    // A 4 MiB budget and a 16 MiB result: before, the one write passed the budget at once and the server
    // said "the peer stopped reading" (it was reading), closed, and exited.
    const peer = start({ MAX_UNSENT_BYTES: String(4 << 20) });
    await initialize(peer, '2025-06-18');
    peer.send({
      jsonrpc: '2.0',
      id: 'big',
      method: 'tools/call',
      params: { name: 'blob', arguments: { bytes: 16 << 20 } },
    });
    const answer = (await peer.response('big', 20_000)) as { result: { content: { text: string }[] } };
    expect(answer.result.content[0]!.text.length).toBe(16 << 20);
    peer.send({ jsonrpc: '2.0', id: 'after', method: 'ping' });
    expect(await peer.response('after')).toMatchObject({ result: {} });
    expect(peer.stderr).not.toMatch(/stopped reading/);
    expect(peer.child.exitCode).toBeNull();
  });
});
