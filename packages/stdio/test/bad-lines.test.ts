import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { type BadInput, connectStdio, type StdioClient } from '../src/index.js';
import { spawnFixture } from './helpers.js';

// Who answers a line that is JSON but not a JSON-RPC message. A server answers it as an invalid request
// (-32600, id null when none can be read [J6]). A client does not: what its server prints by mistake is
// not a request, and a 2026-07-28 client writes no responses [S5]. It counts and reports it instead.

const STRAY = ['null', '42', '"text"', '{"level":30,"msg":"listening"}', '{"jsonrpc":"2.0","id":77}'];

const open: StdioClient[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((client) => client.close()));
});

function lines(stream: PassThrough): string[] {
  const seen: string[] = [];
  stream.setEncoding('utf8').on('data', (text: string) => seen.push(...text.split('\n').filter(Boolean)));
  return seen;
}

describe('lines that are JSON but not JSON-RPC messages', () => {
  it('a server answers each with -32600, and the id when it can read one', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const written = lines(output);
    const server = connectStdio({ input, output, role: 'server' });
    input.write(`${STRAY.join('\n')}\n{"jsonrpc":"2.0","id":"after","method":"ping"}\n`);
    await expect.poll(() => written.length).toBe(STRAY.length + 1);
    const answers = written.map((l) => JSON.parse(l) as { id: unknown; error?: { code: number } });
    expect(answers.slice(0, -1).map((a) => [a.id, a.error?.code])).toEqual([
      [null, -32600],
      [null, -32600],
      [null, -32600],
      [null, -32600],
      [77, -32600],
    ]);
    expect(answers.at(-1)).toEqual({ jsonrpc: '2.0', id: 'after', result: {} });
    expect(server.stats.notMessages).toBe(0);
    server.abort();
  });

  it('a client answers none of them; it reports each and keeps working', async () => {
    const fromServer = new PassThrough();
    const toServer = new PassThrough();
    const written = lines(toServer);
    const bad: BadInput[] = [];
    const client = connectStdio({
      input: fromServer,
      output: toServer,
      role: 'client',
      onBadInput: (event) => bad.push(event),
    });
    const call = client.endpoint.request('ping');
    fromServer.write(`${STRAY.join('\n')}\n{"jsonrpc":"2.0","id":0,"result":{}}\n`);
    await expect(call).resolves.toEqual({});
    expect(bad.map((e) => [e.kind, e.answered])).toEqual(STRAY.map(() => ['not-a-message', false]));
    expect(client.stats.notMessages).toBe(STRAY.length);
    expect(written).toHaveLength(1); // only our ping
    client.abort();
  });

  it('a client of a child process that prints stray lines on stdout writes nothing back for them', async () => {
    const client = spawnFixture('stray-lines-server.mjs');
    open.push(client);
    await client.connect({ revision: '2025-06-18' });
    await expect(client.request('ping')).resolves.toEqual({});
    // Its stderr is a separate pipe: wait until its record of the ping has arrived too.
    await expect.poll(() => client.stderrText()).toMatch(/RECV .*"method":"ping"/);
    const received = client
      .stderrText()
      .split('\n')
      .filter((l) => l.startsWith('RECV '))
      .map((l) => JSON.parse(l.slice(5)) as { method?: string });
    expect(received.map((m) => m.method)).toEqual(['initialize', 'notifications/initialized', 'ping']);
    expect(client.connection.stats.notMessages).toBe(STRAY.length);
  });

  it('a response line with both result and error (or a broken error) is reported and dropped; the call stays pending', async () => {
    const errors: unknown[] = [];
    const client = spawnFixture('stray-lines-server.mjs', {}, { onError: (error) => errors.push(error) });
    open.push(client);
    await client.connect({ revision: '2025-06-18' });
    let settled = false;
    const call = client.request('ping', { broken: true }).finally(() => {
      settled = true;
    });
    await expect.poll(() => errors.length).toBe(2);
    expect(String(errors[0])).toMatch(/invalid response 1: both result and error/);
    // A round trip after the broken lines: had one settled the call, it would have by now.
    await expect(client.request('ping')).resolves.toEqual({});
    expect(settled).toBe(false);
    await client.notify('test/answer');
    await expect(call).resolves.toEqual({ answer: 'valid' });
  });
});
