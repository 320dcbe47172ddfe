import { afterEach, describe, expect, it } from 'vitest';
import { fixturePath, RawPeer } from './helpers.js';

// serveStdio in a real child process, driven byte by byte from a raw peer that reads with node:readline.

const peers: RawPeer[] = [];
afterEach(() => {
  for (const peer of peers.splice(0)) peer.kill();
});

function start(env: Record<string, string> = {}): RawPeer {
  const peer = new RawPeer(process.execPath, [fixturePath('inflight-server.mjs')], env);
  peers.push(peer);
  return peer;
}

const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};

function initialize(peer: RawPeer, protocolVersion: string, id: string | number = 'init'): void {
  peer.send({
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });
  peer.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
}

describe('serveStdio on the wire', () => {
  it('answers garbage, truncated and oversized lines with the named errors, then answers the valid request', async () => {
    const peer = start({ MAX_LINE_BYTES: '1024' });
    peer.write('this is not json\n');
    peer.write('{"jsonrpc":"2.0","id":1,"meth\n'); // truncated
    const huge = `{"jsonrpc":"2.0","id":2,"method":"ping","params":{"pad":"${'x'.repeat(6_000)}"}}\n`;
    for (let at = 0; at < huge.length; at += 700) peer.write(huge.slice(at, at + 700)); // spread over chunks
    peer.write('\r\n   \n'); // blank lines are skipped quietly
    peer.send({ jsonrpc: '1.0', id: 3, method: 'ping' }); // not JSON-RPC 2.0
    peer.send({ jsonrpc: '2.0', id: 4, method: 'no/such/method' });
    peer.send({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: ['not', 'an', 'object'] });
    peer.send({ jsonrpc: '2.0', id: null, method: 'ping' }); // a null id is not allowed [J2]
    peer.write('{"jsonrpc":"2.0","id":"ok","method":"ping"}\r\n');
    expect(await peer.response('ok')).toEqual({ jsonrpc: '2.0', id: 'ok', result: {} });
    const errors = peer.messages
      .filter((m) => 'error' in m)
      .map((m) => [m.id, (m.error as { code: number }).code]);
    expect(errors).toEqual(
      expect.arrayContaining([
        [null, -32700],
        [null, -32700],
        [null, -32700],
        [3, -32600],
        [4, -32601],
        [5, -32602],
        [null, -32600],
      ]),
    );
    expect(errors).toHaveLength(7);
    const overlong = peer.messages.find(
      (m) => (m.error as { data?: { maxLineBytes?: number } })?.data?.maxLineBytes,
    );
    expect(overlong?.error).toMatchObject({
      code: -32700,
      data: { maxLineBytes: 1024, lineBytes: huge.length - 1 },
    });
    expect(await peer.end()).toBe(0);
  });

  it('answers a 2025-03-26 batch in kind, and refuses a batch in a revision without batches', async () => {
    const peer = start();
    initialize(peer, '2025-03-26');
    await peer.response('init');
    peer.send([
      { jsonrpc: '2.0', id: 'a', method: 'ping' },
      {
        jsonrpc: '2.0',
        id: 'b',
        method: 'tools/call',
        params: { name: 'work', arguments: { steps: 2, intervalMs: 5 }, _meta: { progressToken: 'pb' } },
      },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
    ]);
    await peer.next((m) => Array.isArray(m));
    const batch = peer.messages.find((m) => Array.isArray(m)) as unknown as Record<string, unknown>[];
    expect(batch.map((m) => m.id).sort()).toEqual(['a', 'b']);
    const progress = peer.messages.filter((m) => m.method === 'notifications/progress');
    expect(progress.length).toBeGreaterThan(0);
    expect(peer.messages.indexOf(progress.at(-1)!)).toBeLessThan(peer.messages.indexOf(batch as never));

    const legacy = start();
    initialize(legacy, '2025-06-18');
    await legacy.response('init');
    legacy.send([{ jsonrpc: '2.0', id: 'x', method: 'ping' }]);
    const refused = await legacy.next((m) => 'error' in m);
    expect(refused).toMatchObject({ id: null, error: { code: -32600 } });
  });

  it('serves legacy and 2026-07-28 requests from one process, each by its own rules', async () => {
    const peer = start();
    initialize(peer, '2024-11-05');
    expect(await peer.response('init')).toMatchObject({ result: { protocolVersion: '2024-11-05' } });
    peer.send({
      jsonrpc: '2.0',
      id: 'old',
      method: 'tools/call',
      params: { name: 'work', arguments: { steps: 2, intervalMs: 5 }, _meta: { progressToken: 1 } },
    });
    expect(await peer.response('old')).toMatchObject({ result: { revision: '2024-11-05' } });
    const oldProgress = peer.messages.filter((m) => m.method === 'notifications/progress');
    expect(oldProgress.length).toBeGreaterThan(0);
    for (const m of oldProgress) expect(m.params).not.toHaveProperty('message'); // 2024-11-05 has no message [PS6]

    peer.send({ jsonrpc: '2.0', id: 'd', method: 'server/discover', params: { _meta: MODERN_META } });
    expect(await peer.response('d')).toMatchObject({
      result: { supportedVersions: expect.arrayContaining(['2026-07-28']) },
    });
    peer.send({
      jsonrpc: '2.0',
      id: 'new',
      method: 'tools/call',
      params: {
        name: 'work',
        arguments: { steps: 2, intervalMs: 5 },
        _meta: { ...MODERN_META, progressToken: 'n' },
      },
    });
    expect(await peer.response('new')).toMatchObject({
      result: { resultType: 'complete', revision: '2026-07-28' },
    });
    const newProgress = peer.messages.filter(
      (m) =>
        m.method === 'notifications/progress' &&
        (m.params as { progressToken: unknown }).progressToken === 'n',
    );
    expect(newProgress.at(-1)?.params).toMatchObject({ progress: 2, total: 2, message: 'step 2' });

    // A 2026-07-28 client sends no progress [PG2]: ignored, and the server keeps serving.
    peer.send({
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken: 'n', progress: 9, _meta: MODERN_META },
    });
    peer.send({
      jsonrpc: '2.0',
      id: 'v',
      method: 'ping',
      params: { _meta: { ...MODERN_META, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } },
    });
    expect(await peer.response('v')).toMatchObject({
      error: { code: -32022, data: { requested: '2099-01-01' } },
    });
  });

  it('sends no response for a cancelled request, even when the cancel arrives in the same chunk as it', async () => {
    const peer = start();
    initialize(peer, '2025-11-25');
    await peer.response('init');
    const call = (id: string) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'work', arguments: { steps: 100, intervalMs: 20 }, _meta: { progressToken: id } },
    });
    const cancel = (id: string) => ({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: id, reason: 'stop' },
    });
    peer.write(`${JSON.stringify(call('same'))}\n${JSON.stringify(cancel('same'))}\n`); // the cancel still wins [rule 3]
    peer.send(call('later'));
    await peer.next((m) => m.method === 'notifications/progress');
    peer.send(cancel('later'));
    await expect.poll(() => peer.stderr).toMatch(/ABORTED later CANCELLED/);
    peer.send({ jsonrpc: '2.0', id: 's', method: 'tools/call', params: { name: 'status' } });
    const status = await peer.response('s');
    expect(JSON.parse((status.result as { content: { text: string }[] }).content[0]!.text)).toEqual({
      running: 0,
      completed: 0,
      cancelled: 1,
    });
    const answered = peer.messages.filter((m) => m.id === 'same' || m.id === 'later');
    expect(answered).toEqual([]);
    expect(peer.stderr).not.toMatch(/ABORTED same/); // its handler never ran
  });

  it('answers a result JSON cannot carry with -32603 and keeps serving', async () => {
    const peer = start();
    peer.send({ jsonrpc: '2.0', id: 'big', method: 'tools/call', params: { name: 'bigint' } });
    expect(await peer.response('big')).toMatchObject({
      error: { code: -32603, message: expect.stringMatching(/serialize/) },
    });
    peer.send({ jsonrpc: '2.0', id: 'after', method: 'ping' });
    expect(await peer.response('after')).toMatchObject({ result: {} });
  });

  it('aborts every handler with DISCONNECTED when stdin ends, and the process exits promptly', async () => {
    const peer = start();
    initialize(peer, '2025-06-18');
    await peer.response('init');
    peer.send({
      jsonrpc: '2.0',
      id: 'w1',
      method: 'tools/call',
      params: { name: 'work', arguments: { steps: 1_000, intervalMs: 50 } },
    });
    peer.send({
      jsonrpc: '2.0',
      id: 'w2',
      method: 'tools/call',
      params: { name: 'work', arguments: { steps: 1_000, intervalMs: 50 } },
    });
    peer.send({ jsonrpc: '2.0', id: 's', method: 'tools/call', params: { name: 'status' } });
    const status = await peer.response('s');
    expect((status.result as { content: { text: string }[] }).content[0]!.text).toMatch(/"running":2/);
    expect(peer.stderr).not.toMatch(/ABORTED/);
    const started = performance.now();
    expect(await peer.end()).toBe(0);
    // Well before the 50 s of work left: the handlers were aborted, not waited for (a bound load cannot reach).
    expect(performance.now() - started).toBeLessThan(25_000);
    expect(peer.stderr).toMatch(/ABORTED w1 DISCONNECTED/);
    expect(peer.stderr).toMatch(/ABORTED w2 DISCONNECTED/);
    expect(peer.stderr).toMatch(/CLOSED DISCONNECTED/);
  });

  it('honours backpressure from a client that stops reading: nothing lost, nothing reordered', async () => {
    const peer = start();
    peer.child.stdout!.pause(); // we stop reading; the pipe fills and the server must queue
    const count = 400;
    const pad = 'p'.repeat(8_000);
    let batch = '';
    for (let i = 0; i < count; i++) {
      batch += `${JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'echo', arguments: { i, pad } } })}\n`;
    }
    peer.write(batch);
    await expect.poll(() => peer.stderr, { timeout: 20_000 }).toMatch(/BACKPRESSURE \d+/); // the server waits for drain
    expect(peer.messages).toHaveLength(0);
    peer.child.stdout!.resume();
    await peer.response(count - 1, 5_000);
    expect(peer.messages.map((m) => m.id)).toEqual(Array.from({ length: count }, (_, i) => i));
    await peer.end();
    const stats = JSON.parse(/STATS (.*)/.exec(peer.stderr)![1]!) as {
      drainWaits: number;
      peakUnsentBytes: number;
      messages: number;
    };
    expect(stats.messages).toBe(count);
    expect(stats.drainWaits).toBeGreaterThan(0);
    expect(stats.peakUnsentBytes).toBeGreaterThan(0);
  });
});
