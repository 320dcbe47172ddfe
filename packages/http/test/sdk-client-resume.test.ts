// The official SDK v1 client resumes a legacy stream that broke, with Last-Event-ID, against our server:
// the work was not cancelled by the drop, and the result still reaches the caller.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type RunningHttpServer, serveHttp } from '../src/index.js';
import { breakingFetch } from './fixtures/breaking-fetch.js';
import { recordingFetch } from './fixtures/recording-fetch.js';
import { observe, workServer } from './fixtures/work-server.js';

const observed = observe();
let server: RunningHttpServer;

beforeAll(async () => {
  server = await serveHttp(workServer(observed), { port: 0, retryMs: 50 });
});
afterAll(() => server.close());

it('SDK v1 client: a broken stream is resumed with Last-Event-ID and the result arrives', async () => {
  const { fetch, wire } = recordingFetch(breakingFetch(3)); // priming event, progress 1, progress 2, then a reset
  const client = new Client({ name: 'sdk-v1-resume', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { fetch }));
  const seen: number[] = [];
  const result = await client.callTool({ name: 'work', arguments: { steps: 5, intervalMs: 60 } }, undefined, {
    onprogress: (p) => seen.push(p.progress),
  });
  expect(result.content).toEqual([{ type: 'text', text: 'done 5' }]);
  expect(seen).toEqual([1, 2, 3, 4, 5]);
  const resume = wire.find((e) => e.method === 'GET' && e.headers['last-event-id']);
  expect(resume?.headers['last-event-id']).toMatch(/^\d+-2$/);
  expect(server.handler.stats.resumedStreams).toBe(1);
  expect(observed.aborted.length).toBe(0);
  await client.close();
});
