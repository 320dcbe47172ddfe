import { PassThrough } from 'node:stream';
import { KeptString, keepStrings } from '@mcp-inflight/core/adapter';
import { describe, expect, it } from 'vitest';
import { type BadInput, connectStdio } from '../src/index.js';

// A relay's upstream leg (keepStrings): a long result line arrives as bytes and its long literal stays
// those bytes; bad long lines are reported with their size, and the connection keeps working.

describe('connectStdio with keepStrings', () => {
  it('keeps a long result literal as the bytes read, writes it on as them, and reports a bad long line', async () => {
    const fromServer = new PassThrough();
    const toServer = new PassThrough();
    const bad: BadInput[] = [];
    const client = connectStdio({
      input: fromServer,
      output: toServer,
      role: 'client',
      keepStrings: keepStrings(64),
      onBadInput: (event) => bad.push(event),
    });
    const literal = `"${'é\\u00e9\\/'.repeat(40)}"`;
    const garbage = `{"jsonrpc":"2.0","id":0,"result":{"text":"${'x'.repeat(100)}\u0001"}}`;
    const call = client.endpoint.request('tools/call', { name: 't' });
    // Written in small chunks, so the line is joined from many.
    const line = Buffer.from(
      `${garbage}\n{"jsonrpc":"2.0","id":0,"result":{"content":[{"type":"text","text":${literal}}]}}\n`,
    );
    for (let at = 0; at < line.length; at += 7) fromServer.write(line.subarray(at, at + 7));
    const result = (await call) as { content: Array<{ text: unknown }> };
    const kept = result.content[0]!.text as KeptString;
    expect(kept).toBeInstanceOf(KeptString);
    expect(kept.literal).toBeInstanceOf(Uint8Array);
    expect(Buffer.from(kept.literal as Uint8Array).toString('utf8')).toBe(literal);
    expect(String(kept)).toBe(JSON.parse(literal));
    expect(bad).toEqual([
      {
        kind: 'parse-error',
        detail: 'the line is not valid JSON',
        bytes: Buffer.byteLength(garbage),
        answered: false,
      },
    ]);

    // The other way: a server whose answer carries it writes the bytes as they came.
    const input = new PassThrough();
    const output = new PassThrough();
    const written: Buffer[] = [];
    output.on('data', (chunk: Buffer) => written.push(chunk));
    const server = connectStdio({
      input,
      output,
      role: 'server',
      setup: (endpoint) => endpoint.setRequestHandler('tools/call', async () => result),
    });
    input.write('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}}\n');
    await expect.poll(() => Buffer.concat(written).includes('\n')).toBe(true);
    expect(Buffer.concat(written).toString('utf8')).toBe(
      `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":${literal}}]}}\n`,
    );
    server.abort();
    client.abort();
  });
});
