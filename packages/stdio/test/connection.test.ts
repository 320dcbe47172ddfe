import { createServer, type Socket } from 'node:net';
import { PassThrough, Writable } from 'node:stream';
import { InflightError } from '@mcp-inflight/core';
import { afterEach, describe, expect, it } from 'vitest';
import { type BadInput, connectStdio, readLines, type StdioConnection } from '../src/index.js';

// connectStdio over real Node streams in one process: a client and a server joined by a loopback
// socket (one duplex per side, as a Unix socket or TCP deployment would be), or by plain pipes.

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** A connected pair of loopback sockets on 127.0.0.1 with an OS-chosen port. */
async function socketPair(): Promise<[Socket, Socket]> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const accepted = new Promise<Socket>((resolve) => server.once('connection', resolve));
  const { connect } = await import('node:net');
  const client = connect(port, '127.0.0.1');
  const peer = await accepted;
  server.close();
  cleanups.push(() => {
    client.destroy();
    peer.destroy();
  });
  return [client, peer];
}

async function pair(): Promise<{ client: StdioConnection; server: StdioConnection }> {
  const [a, b] = await socketPair();
  const server = connectStdio({ input: b, output: b, role: 'server' });
  const client = connectStdio({ input: a, output: a, role: 'client' });
  return { client, server };
}

describe('connectStdio', () => {
  it('joins a client and a server over a socket: progress, a cancel that reaches the handler, no response after it', async () => {
    const { client, server } = await pair();
    let handlerReason: InflightError | undefined;
    server.endpoint.setRequestHandler('tools/call', async (_params, ctx) => {
      for (let i = 1; ; i++) {
        ctx.progress(i, undefined, `tick ${i}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
        if (ctx.signal.aborted) {
          handlerReason = ctx.signal.reason as InflightError;
          return { content: [] }; // ignored: the request was cancelled
        }
      }
    });
    const controller = new AbortController();
    const seen: number[] = [];
    const call = client.endpoint.request(
      'tools/call',
      { name: 'x' },
      {
        signal: controller.signal,
        onprogress: (p) => {
          seen.push(p.progress);
          if (p.progress >= 3) controller.abort('enough');
        },
      },
    );
    await expect(call).rejects.toMatchObject({ code: 'CANCELLED' });
    await expect.poll(() => handlerReason?.code).toBe('CANCELLED');
    expect(handlerReason?.message).toMatch(/enough/);
    // The handler has returned its result by now (absorbed on the server), and none reached the client.
    await expect.poll(() => server.endpoint.stats.lateResults).toBe(1);
    expect(client.endpoint.stats.lateResponses).toBe(0);
    expect(seen).toEqual([...seen].sort((x, y) => x - y));
  });

  it('fails every pending call at once with UPSTREAM_CLOSED when the server side goes away', async () => {
    const [a, b] = await socketPair();
    const client = connectStdio({ input: a, output: a, role: 'client' });
    const calls = [1, 2, 3].map(() => client.endpoint.request('tools/call', {}).catch((e: unknown) => e));
    b.destroy();
    const errors = await Promise.all(calls);
    for (const error of errors)
      expect(error).toMatchObject({ name: 'InflightError', code: 'UPSTREAM_CLOSED' });
    await client.closed;
    expect(client.closeReason?.code).toBe('UPSTREAM_CLOSED');
  });

  it('closes gracefully: calls cancelled on the wire with SHUTDOWN, handlers answered with SHUTDOWN, output ended', async () => {
    const toServer = new PassThrough();
    const fromServer = new PassThrough();
    const server = connectStdio({
      input: toServer,
      output: fromServer,
      role: 'server',
      setup: (endpoint) =>
        endpoint.setRequestHandler(
          'slow',
          (_p, ctx) =>
            new Promise((_r, reject) =>
              ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason)),
            ),
        ),
    });
    const lines: string[] = [];
    const reading = (async () => {
      for await (const line of readLines(fromServer)) lines.push(line);
    })();
    toServer.write('{"jsonrpc":"2.0","id":7,"method":"slow"}\n');
    await expect.poll(() => server.endpoint.stats.inboundInFlight).toBe(1);
    await server.close('maintenance');
    await reading; // the output was ended
    expect(lines.map((l) => JSON.parse(l))).toEqual([
      { jsonrpc: '2.0', id: 7, error: { code: -32000, message: 'maintenance', data: { cause: 'SHUTDOWN' } } },
    ]);
    expect(server.closeReason?.code).toBe('SHUTDOWN');

    const [a, b] = await socketPair();
    const client = connectStdio({ input: a, output: a, role: 'client' });
    const call = client.endpoint.request('tools/call', {}).catch((e: unknown) => e);
    const seenByPeer: string[] = [];
    const peerReading = (async () => {
      for await (const line of readLines(b)) seenByPeer.push(line);
    })();
    await expect.poll(() => seenByPeer.length).toBe(1); // the request reached the peer
    await client.close('bye');
    expect(await call).toMatchObject({ code: 'SHUTDOWN' });
    await peerReading;
    expect(JSON.parse(seenByPeer[1]!)).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 0, reason: 'SHUTDOWN: bye' },
    });
  });

  it('as a client, counts bad lines from the server without answering them', async () => {
    const fromServer = new PassThrough();
    const toServer = new PassThrough();
    const bad: BadInput[] = [];
    const client = connectStdio({
      input: fromServer,
      output: toServer,
      role: 'client',
      maxLineBytes: 64,
      onBadInput: (e) => bad.push(e),
    });
    const written: string[] = [];
    toServer.on('data', (chunk: Buffer) => written.push(chunk.toString()));
    const call = client.endpoint.request('ping');
    fromServer.write('Server starting on port 3000...\n'); // a stray log line on stdout
    fromServer.write(`{"pad":"${'x'.repeat(100)}"}\n`);
    fromServer.write('{"jsonrpc":"2.0","id":0,"result":{}}\n{"partial"');
    await expect(call).resolves.toEqual({});
    fromServer.end();
    await client.closed;
    expect(bad.map((e) => [e.kind, e.answered])).toEqual([
      ['parse-error', false],
      ['overlong-line', false],
      ['truncated-at-end', false],
    ]);
    expect(client.stats).toMatchObject({ parseErrors: 1, overlongLines: 1, truncatedBytesAtEnd: 10 });
    expect(written.join('')).toBe(
      '{"jsonrpc":"2.0","id":0,"method":"ping","params":{"_meta":{"progressToken":0}}}\n',
    );
  });

  it('absorbs and counts progress and a response that arrive after our cancel, and leaves nothing behind', async () => {
    const fromServer = new PassThrough();
    const toServer = new PassThrough();
    const client = connectStdio({ input: fromServer, output: toServer, role: 'client' });
    cleanups.push(() => client.close());
    const peerLines: string[] = [];
    toServer.on('data', (chunk: Buffer) => peerLines.push(...chunk.toString().trim().split('\n')));
    const controller = new AbortController();
    const seen: number[] = [];
    const call = client.endpoint.request(
      'tools/call',
      {},
      { signal: controller.signal, onprogress: (p) => seen.push(p.progress) },
    );
    const token = 0; // the first token the registry mints
    const progress = (value: number) =>
      `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":${token},"progress":${value}}}\n`;
    fromServer.write(progress(1));
    await expect.poll(() => seen).toEqual([1]);
    controller.abort();
    await expect(call).rejects.toMatchObject({ code: 'CANCELLED' });
    // A server that ignores the cancel: more progress, then its result.
    fromServer.write(`${progress(2)}${progress(3)}{"jsonrpc":"2.0","id":0,"result":{"late":true}}\n`);
    await expect.poll(() => client.endpoint.stats.lateResponses).toBe(1);
    expect(client.endpoint.progressRelay.stats.late).toBe(2);
    expect(seen).toEqual([1]);
    expect(client.endpoint.stats).toMatchObject({ outboundInFlight: 0, inboundInFlight: 0 });
    expect(client.endpoint.progressRelay.stats.openRoutes).toBe(0);
    expect(JSON.parse(peerLines[1]!)).toMatchObject({
      method: 'notifications/cancelled',
      params: { requestId: 0 },
    });
  });

  it('reports an exception from a notification handler and keeps reading', async () => {
    const input = new PassThrough();
    const errors: unknown[] = [];
    const server = connectStdio({
      input,
      output: new PassThrough(),
      role: 'server',
      onError: (e) => errors.push(e),
      setup: (endpoint) =>
        endpoint.setNotificationHandler('notifications/boom', () => {
          throw new Error('handler bug');
        }),
    });
    let pinged = false;
    server.endpoint.setNotificationHandler('notifications/after', () => {
      pinged = true;
    });
    input.write(
      '{"jsonrpc":"2.0","method":"notifications/boom"}\n{"jsonrpc":"2.0","method":"notifications/after"}\n',
    );
    await expect.poll(() => pinged).toBe(true);
    expect(errors).toEqual([new Error('handler bug')]);
    cleanups.push(() => server.close());
  });

  it('closes with a cause naming the bound when a peer stops reading and the write queue passes maxUnsentBytes', async () => {
    const input = new PassThrough();
    const stuck = new Writable({ highWaterMark: 1_024, write: () => {} }); // never calls back: a peer that never reads
    let closedWith: InflightError | undefined;
    const server = connectStdio({
      input,
      output: stuck,
      role: 'server',
      maxUnsentBytes: 50_000,
      unsentStallMs: 50, // a backlog over the bound that has not shrunk in 50 ms: the peer stopped reading
      onClose: (reason) => {
        closedWith = reason;
      },
      setup: (endpoint) => endpoint.setRequestHandler('echo', (params) => params),
    });
    // One request per tick, so the answers queue up behind the first blocked write.
    for (let i = 0; i < 100 && !server.closeReason; i++) {
      input.write(`{"jsonrpc":"2.0","id":${i},"method":"echo","params":{"pad":"${'z'.repeat(2_000)}"}}\n`);
      await new Promise((resolve) => setImmediate(resolve));
    }
    await server.closed;
    expect(server.closeReason).toBeInstanceOf(InflightError);
    expect(server.closeReason?.code).toBe('DISCONNECTED');
    // 100 answers of 2 KiB pass the budget plus one message before the stall window ends: the cap cuts first.
    expect(server.closeReason?.message).toMatch(
      /stopped reading: \d+ bytes waited to be written, and the next line would pass the budget maxUnsentBytes 50000 plus one message/,
    );
    expect(server.stats.drainWaits).toBe(1);
    expect(closedWith).toBe(server.closeReason); // reported once, as it happened
    expect(stuck.destroyed).toBe(true); // our output ended: the peer sees the end, not silence
    expect(input.isPaused()).toBe(true); // nothing more is read, so a server process can exit
  });
});
