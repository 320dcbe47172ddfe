import { PassThrough } from 'node:stream';
import { InflightError } from '@mcp-inflight/core';
import { afterEach, describe, expect, it } from 'vitest';
import { type BadInput, connectStdio, type StdioConnection } from '../src/index.js';

// Issue 45 item 7: a response too long to read (over maxLineBytes) is skipped, and its request fails at
// once with an error naming the size and the limit; before, it waited for its deadline ("no progress").

const open: StdioConnection[] = [];
afterEach(() => {
  for (const connection of open.splice(0)) connection.abort();
});

function client() {
  const fromServer = new PassThrough();
  const toServer = new PassThrough();
  const bad: BadInput[] = [];
  const connection = connectStdio({
    input: fromServer,
    output: toServer,
    role: 'client',
    maxLineBytes: 64 * 1024,
    idleMs: 60_000,
    onBadInput: (event) => bad.push(event),
  });
  open.push(connection);
  return { connection, bad, serverWrites: (text: string) => fromServer.write(text) };
}

const big = 'x'.repeat(200_000);

describe('a response over maxLineBytes', () => {
  it.each([
    [
      'the id first',
      (id: unknown) => `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"text":"${big}"}}`,
    ],
    [
      'the id last',
      (id: unknown) => `{"result":{"text":"${big}","id":99},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`,
    ],
    [
      'an error',
      (id: unknown) => `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"error":{"code":1,"message":"${big}"}}`,
    ],
  ])('fails its request at once with -32603 naming the size and the limit (%s)', async (_name, line) => {
    const { connection, bad, serverWrites } = client();
    for (const id of [0, 1]) {
      const pending = connection.endpoint.request('tools/list', {}, {});
      serverWrites(`${line(id)}\n`);
      const error = await pending.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(InflightError.is(error) || error instanceof Error).toBe(true);
      expect(error).toMatchObject({ code: -32603 });
      expect(String((error as Error).message)).toMatch(
        /the response was a line of \d+ bytes, over the limit of 65536 bytes \(maxLineBytes\), and was skipped/,
      );
    }
    expect(bad.map((event) => event.kind)).toEqual(['overlong-line', 'overlong-line']);
    // The connection reads on: the next response is delivered.
    const next = connection.endpoint.request('ping', {}, {});
    serverWrites('{"jsonrpc":"2.0","id":2,"result":{}}\n');
    await expect(next).resolves.toEqual({});
  });

  it('leaves requests alone when the overlong line is a request of the peer, or names no id', async () => {
    const { connection, bad, serverWrites } = client();
    const pending = connection.endpoint.request('tools/list', {}, { idleMs: 60_000 });
    let settled = false;
    void pending.then(
      () => (settled = true),
      () => (settled = true),
    );
    serverWrites(`{"jsonrpc":"2.0","method":"sampling/createMessage","params":{"t":"${big}"},"id":0}\n`);
    serverWrites(`{"jsonrpc":"2.0","result":{"t":"${big}","id":0}}\n`);
    await new Promise((resolve) => setImmediate(resolve));
    expect(bad).toHaveLength(2);
    expect(settled).toBe(false);
    serverWrites('{"jsonrpc":"2.0","id":0,"result":{"tools":[]}}\n');
    await expect(pending).resolves.toEqual({ tools: [] });
  });
});
