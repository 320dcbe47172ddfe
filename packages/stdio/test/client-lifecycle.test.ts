import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { type StdioClient, spawnStdio } from '../src/index.js';
import { fixturePath, spawnFixture, textOf } from './helpers.js';

// spawnStdio against our own serveStdio fixture: both eras, graceful close, stderr handling, a child
// that cannot start.

const open: StdioClient[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((client) => client.close()));
});

function start(env: Record<string, string> = {}): StdioClient {
  const client = spawnFixture('inflight-server.mjs', env);
  open.push(client);
  return client;
}

describe('spawnStdio', () => {
  it('connects to a modern server with 2026-07-28: no initialize, identity in every request, progress, cancel', async () => {
    const client = start();
    const handshake = await client.connect({ revision: '2026-07-28' });
    expect(handshake).toMatchObject({
      era: 'modern',
      revision: '2026-07-28',
      serverInfo: { name: 'inflight-fixture' },
    });
    const echoed = JSON.parse(
      textOf(await client.request('tools/call', { name: 'echo', arguments: { a: 1 } })),
    );
    expect(echoed).toEqual({ a: 1 });
    const seen: number[] = [];
    const done = await client.request(
      'tools/call',
      { name: 'work', arguments: { steps: 3, intervalMs: 5 } },
      { onprogress: (p) => seen.push(p.progress) },
    );
    expect(done).toMatchObject({ resultType: 'complete', revision: '2026-07-28' });
    expect(seen.at(-1)).toBe(3);

    const controller = new AbortController();
    const call = client.request(
      'tools/call',
      { name: 'work', arguments: { steps: 100, intervalMs: 20 } },
      { signal: controller.signal, onprogress: () => controller.abort() },
    );
    await expect(call).rejects.toMatchObject({ code: 'CANCELLED' });
    await expect.poll(() => client.stderrText()).toMatch(/ABORTED \d+ CANCELLED/);
  });

  it('sends the modern envelope on the wire: version, capabilities and client identity in _meta', async () => {
    const client = spawnStdio(
      { command: process.execPath, args: [fixturePath('inflight-server.mjs')] },
      {
        stderr: 'ignore',
        clientInfo: { name: 'wire-check', version: '9.9.9' },
        capabilities: { sampling: {} },
      },
    );
    open.push(client);
    const sent: string[] = [];
    const stdin = client.child.stdin!;
    const write = stdin.write.bind(stdin);
    stdin.write = ((chunk: string, ...rest: never[]) => {
      sent.push(String(chunk));
      return write(chunk, ...rest);
    }) as typeof stdin.write;
    await client.connect({ revision: '2026-07-28' });
    await client.request('tools/call', { name: 'status' }); // 2026-07-28 has no ping [rule 12]
    const messages = sent
      .join('')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { method: string; params: { _meta: Record<string, unknown> } });
    expect(messages.map((m) => m.method)).toEqual(['server/discover', 'tools/call']);
    for (const m of messages) {
      expect(m.params._meta).toMatchObject({
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': { sampling: {} },
        'io.modelcontextprotocol/clientInfo': { name: 'wire-check', version: '9.9.9' },
      });
    }
  });

  it('closes gracefully: pending calls rejected with SHUTDOWN, the server sees the cancel, and exits on its own', async () => {
    const client = start();
    await client.connect();
    const call = client
      .request('tools/call', { name: 'work', arguments: { steps: 1_000, intervalMs: 20 } })
      .catch((e: unknown) => e);
    await expect
      .poll(async () => textOf(await client.request('tools/call', { name: 'status' })))
      .toMatch(/"running":1/);
    await client.close();
    const exit = await client.exited; // close() waited for it
    expect(await call).toMatchObject({ code: 'SHUTDOWN' });
    expect(exit).toEqual({ code: 0, signal: null }); // stdin closed, it exited: no signal needed
    expect(client.stderrText()).toMatch(/ABORTED \d+ CANCELLED/); // the SHUTDOWN cancel reached it
    expect(client.stderrText()).toMatch(/CLOSED DISCONNECTED/);
  });

  it('escalates to SIGTERM when the child ignores the end of its stdin', async () => {
    const client = spawnStdio(
      {
        command: process.execPath,
        args: [
          '-e',
          'process.stdin.resume(); process.stdin.on("end", () => {}); setInterval(() => {}, 1000);',
        ],
      },
      { stderr: 'ignore', exitGraceMs: 100, killGraceMs: 1_000 },
    );
    await client.close();
    expect((await client.exited).signal).toBe('SIGTERM');
  });

  it('forwards stderr into a stream of yours', async () => {
    const sink = new PassThrough();
    let text = '';
    sink.on('data', (chunk: Buffer) => {
      text += chunk.toString();
    });
    const client = spawnStdio(
      { command: process.execPath, args: [fixturePath('inflight-server.mjs')] },
      { stderr: sink },
    );
    open.push(client);
    await client.connect();
    await client
      .request('tools/call', { name: 'work', arguments: { steps: 100, intervalMs: 10_000 } }, { idleMs: 60 })
      .catch(() => {});
    await expect.poll(() => text).toMatch(/ABORTED \d+ CANCELLED/);
  });

  it('rejects connect with UPSTREAM_CLOSED naming the reason when the command cannot start', async () => {
    const client = spawnStdio('definitely-not-a-real-mcp-server-binary --flag', { stderr: 'ignore' });
    await expect(client.connect()).rejects.toMatchObject({
      code: 'UPSTREAM_CLOSED',
      message: expect.stringMatching(/could not start: .*ENOENT/),
    });
    expect(await client.exited).toMatchObject({ code: null, error: expect.any(Error) });
    await client.close();
  });
});
