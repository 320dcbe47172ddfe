// A relay's upstream leg over HTTP (keepStrings): a long JSON reply is read as bytes, and its long result
// literal stays those bytes, over node:http and over fetch.
import { serveLifecycle } from '@mcp-inflight/core';
import { KeptString, keepStrings } from '@mcp-inflight/core/adapter';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningHttpServer, serveHttp } from '../src/index.js';
import { BOTH_CLIENTS } from './fixtures/clients.js';

const TEXT = 'é😀a"\\'.repeat(20_000); // 100,000 UTF-16 units, escapes and multi-byte characters in it
let server: RunningHttpServer;

beforeAll(async () => {
  server = await serveHttp(
    (endpoint) => {
      serveLifecycle(endpoint, { serverInfo: { name: 'long', version: '1' }, capabilities: { tools: {} } });
      endpoint.setRequestHandler('tools/call', async () => ({
        content: [
          { type: 'text', text: TEXT },
          { type: 'text', text: 'short' },
        ],
      }));
    },
    { port: 0 },
  );
});
afterAll(() => server.close());

// Raw requests, as a relay sends them: callTool would check the content, which a kept string is not.
describe.each(BOTH_CLIENTS)('HttpClient over %s with keepStrings', (_via, HttpClient) => {
  it('keeps a long result literal as the bytes read; the rest parses as JSON.parse makes it', async () => {
    const client = new HttpClient({ url: server.url, keepStrings: keepStrings(1024), listen: false });
    await client.connect({ revision: '2025-11-25' });
    const result = (await client.request('tools/call', { name: 'long', arguments: {} })) as {
      content: Array<{ text: unknown }>;
    };
    const kept = result.content[0]!.text as KeptString;
    expect(kept).toBeInstanceOf(KeptString);
    expect(kept.literal).toBeInstanceOf(Uint8Array);
    expect(Buffer.from(kept.literal as Uint8Array).toString('utf8') === JSON.stringify(TEXT)).toBe(true);
    expect(String(kept) === TEXT).toBe(true);
    expect(result.content[1]!.text).toBe('short');
    await client.close();
  });
});
