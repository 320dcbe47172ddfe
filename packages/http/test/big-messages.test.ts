// Issue 21 over real sockets: a 2025-03-26 batch is bounded in elements; a client that reads never
// loses a message to the SSE budget, whatever the size of one write.
import { serveLifecycle } from '@mcp-inflight/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningHttpServer, serveHttp } from '../src/index.js';
import { RawHttp } from './fixtures/raw-http.js';

let server: RunningHttpServer;
let raw: RawHttp;

beforeAll(async () => {
  server = await serveHttp(
    (endpoint) => {
      serveLifecycle(endpoint, { serverInfo: { name: 'big', version: '1' }, capabilities: { tools: {} } });
      endpoint.setRequestHandler('tools/call', async (params, ctx) => {
        const args = params?.arguments as { progressBytes?: number; resultBytes: number };
        if (args.progressBytes !== undefined) ctx.progress(1, 1, 'p'.repeat(args.progressBytes));
        return { content: [{ type: 'text', text: 'r'.repeat(args.resultBytes) }] };
      });
    },
    { port: 0 },
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
