// Issue 21 over real sockets: a 2025-03-26 batch is bounded in elements; a client that reads never
// loses a message to the SSE budget, whatever the size of one write.
import { serveLifecycle } from '@mcp-inflight/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningHttpServer, serveHttp } from '../src/index.js';
import { EventReader, modernHeaders, modernRequest, RawHttp } from './fixtures/raw-http.js';

const MIB = 2 ** 20;
const MAX_MESSAGE_BYTES = 8 * MIB;

let server: RunningHttpServer;
let raw: RawHttp;

beforeAll(async () => {
  server = await serveHttp(
    (endpoint) => {
      serveLifecycle(endpoint, { serverInfo: { name: 'big', version: '1' }, capabilities: { tools: {} } });
      endpoint.setRequestHandler('tools/call', async (params, ctx) => {
        const args = params?.arguments as BigArgs;
        if (args.progressBytes !== undefined) ctx.progress(1, 1, 'p'.repeat(args.progressBytes));
        return { content: [{ type: 'text', text: (args.char ?? 'r').repeat(args.resultBytes) }] };
      });
    },
    { port: 0, sseMaxMessageBytes: MAX_MESSAGE_BYTES },
  );
  raw = new RawHttp(server.url);
});
afterAll(() => server.close());

describe('a 2025-03-26 batch over maxBatchElements', () => {
  it('gets one -32600 (id null) naming the limit, and the session keeps serving', async () => {
    const session = await raw.initialize('2025-03-26');
    const headers = raw.legacy(session, '2025-03-26');
    // 2 MB of invalid elements: before the bound, a 113 MB answer after seconds, the server at 721 MB.
    const response = await raw.post(`[${new Array(1_000_000).fill('1').join(',')}]`, headers);
    expect(response.status).toBe(400);
    const text = await response.text();
    expect(text.length).toBeLessThan(1_000);
    expect(JSON.parse(text)).toMatchObject({
      id: null,
      error: { code: -32600, data: { elements: 1_000_000, maxBatchElements: 1_000 } },
    });
    const pings = await raw.post(
      [
        { jsonrpc: '2.0', id: 1, method: 'ping' },
        { jsonrpc: '2.0', id: 2, method: 'ping' },
      ],
      headers,
    );
    expect(pings.status).toBe(200);
    const answers = (await pings.json()) as { id: number }[];
    expect(answers.map((a) => a.id).sort()).toEqual([1, 2]);
  });
});

type BigArgs = { progressBytes?: number; resultBytes: number; char?: string };

/** Posts one `big` call: a 2026-07-28 request, or one on a fresh session of legacy `revision`. */
async function postCall(revision: string, args: BigArgs, progressToken?: string): Promise<Response> {
  const meta = progressToken === undefined ? undefined : { progressToken };
  if (revision === '2026-07-28') {
    const call = modernRequest(1, 'tools/call', { name: 'big', arguments: args }, meta);
    return raw.post(call, modernHeaders('tools/call', 'big'));
  }
  const session = await raw.initialize(revision);
  const params = { name: 'big', arguments: args, ...(meta && { _meta: meta }) };
  return raw.post({ jsonrpc: '2.0', id: 1, method: 'tools/call', params }, raw.legacy(session, revision));
}

/** One call on either era, read as fast as the client can; every event it carried. */
async function readCall(modern: boolean, args: BigArgs): Promise<Record<string, unknown>[]> {
  const response = await postCall(modern ? '2026-07-28' : '2025-06-18', args, 'p1');
  expect(response.status).toBe(200);
  // A call that wrote nothing before its result is answered with JSON.
  if (response.headers.get('content-type')?.startsWith('application/json'))
    return [(await response.json()) as Record<string, unknown>];
  const events = await new EventReader(response.body!).rest();
  return events.map((e) => e.message!).filter(Boolean);
}

describe('a client that reads as fast as it can (rule 13)', () => {
  it.each([
    ['2026-07-28', true],
    ['2025-06-18', false],
  ])('%s: a 2 MiB progress then a 2 MiB result both arrive (4 MiB budget)', async (_revision, modern) => {
    const before = server.handler.stats.slowReaderEnds;
    // Before the fix: the result met the progress still queued, passed the budget at that instant, and
    // the connection was reset with 0 messages delivered.
    const messages = await readCall(modern, { progressBytes: 2 * MIB, resultBytes: 2 * MIB });
    expect(messages.map((m) => m.method ?? 'result')).toEqual(['notifications/progress', 'result']);
    const result = messages[1] as { result: { content: { text: string }[] } };
    expect(result.result.content[0]!.text.length).toBe(2 * MIB);
    expect(server.handler.stats.slowReaderEnds).toBe(before);
  });

  it.each([
    ['2026-07-28', true],
    ['2025-06-18', false],
  ])(
    '%s: a result over sseMaxMessageBytes becomes an error for its request; an oversize progress is dropped and counted',
    async (_revision, modern) => {
      const before = server.handler.stats.oversizeMessages;
      const messages = await readCall(modern, { progressBytes: 9 * MIB, resultBytes: 9 * MIB });
      expect(messages).toHaveLength(1); // the progress was dropped
      expect(messages[0]).toMatchObject({
        id: 1,
        error: { code: -32603, data: { maxMessageBytes: MAX_MESSAGE_BYTES } },
      });
      expect(server.handler.stats.oversizeMessages).toBe(before + 2);
      // A 6 MiB result, over the budget but under the per-message limit, arrives whole.
      const big = await readCall(modern, { resultBytes: 6 * MIB });
      expect((big[0] as { result: { content: { text: string }[] } }).result.content[0]!.text.length).toBe(
        6 * MIB,
      );
    },
  );
});

describe('a long JSON answer, its head written on its own', () => {
  it.each([
    ['2026-07-28', true],
    ['2025-11-25', false],
  ])(
    '%s: 70,000 two- and four-byte characters arrive whole, content-length counting bytes',
    async (_r, modern) => {
      const args = { resultBytes: 35_000, char: 'é😀' }; // 70,000+ UTF-16 units: over the 64 Ki line
      const response = await postCall(modern ? '2026-07-28' : '2025-11-25', args);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      const bytes = Buffer.from(await response.arrayBuffer());
      expect(Number(response.headers.get('content-length'))).toBe(bytes.length);
      const message = JSON.parse(bytes.toString('utf8')) as { result: { content: { text: string }[] } };
      expect(message.result.content[0]!.text).toBe('é😀'.repeat(35_000));
    },
  );

  it.each([
    ['2026-07-28', true],
    ['2025-11-25', false],
  ])(
    '%s: a long string is the same text whether it needs escapes or not, on JSON and on SSE',
    async (_r, modern) => {
      for (const char of ['é😀a', 'a"\\\n\u0001😀']) {
        const text = char.repeat(25_000); // over 64 Ki UTF-16 units: written as a piece when plain
        const answer = await readCall(modern, { resultBytes: 25_000, char });
        expect(
          (answer[0] as { result: { content: { text: string }[] } }).result.content[0]!.text === text,
        ).toBe(true);
        // A progress first makes the answer an SSE stream: the result is then an event's data.
        const streamed = await readCall(modern, { progressBytes: 10, resultBytes: 25_000, char });
        expect(streamed.map((m) => m.method ?? 'result')).toEqual(['notifications/progress', 'result']);
        expect(
          (streamed[1] as { result: { content: { text: string }[] } }).result.content[0]!.text === text,
        ).toBe(true);
      }
    },
  );
});
