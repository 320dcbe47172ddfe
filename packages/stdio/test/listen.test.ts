// serveStdio with a ListenStreams hub, on in-memory streams: a listen line is acknowledged, a published list
// change comes tagged with the listen's id, a client's notifications/cancelled ends the stream (the hub's
// table back to 0, no response), and close() ends the other stream gracefully: its listen response, then
// notifications/cancelled, before the output ends.
import { PassThrough } from 'node:stream';
import { serveLifecycle } from '@mcp-inflight/core';
import { ListenStreams } from '@mcp-inflight/server/listen';
import { expect, it } from 'vitest';
import { serveStdio } from '../src/index.js';

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};

it('serves listen streams on the pipe: ack, tagged changes, the client cancel, and a graceful end on close()', async () => {
  const input = new PassThrough();
  const output = new PassThrough();
  let text = '';
  output.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
  });
  const lines = (): Record<string, unknown>[] =>
    text
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  const listenStreams = new ListenStreams();
  const server = serveStdio(
    (endpoint) =>
      serveLifecycle(endpoint, {
        serverInfo: { name: 'stdio-listen', version: '1.0.0' },
        capabilities: { tools: { listChanged: true } },
      }),
    { input, output, listenStreams, handlerIdleMs: 20, handlerCeilingMs: 20 },
  );
  const listen = (id: string) =>
    input.write(
      `${JSON.stringify({ jsonrpc: '2.0', id, method: 'subscriptions/listen', params: { _meta: META, notifications: { toolsListChanged: true } } })}\n`,
    );
  listen('a');
  listen('b');
  await expect.poll(() => lines().length).toBe(2);
  expect(lines().map((m) => (m.params as { _meta: Record<string, unknown> })._meta)).toEqual([
    { 'io.modelcontextprotocol/subscriptionId': 'a' },
    { 'io.modelcontextprotocol/subscriptionId': 'b' },
  ]);
  await new Promise((resolve) => setTimeout(resolve, 100)); // past both handler limits
  expect(listenStreams.notify('notifications/tools/list_changed')).toBe(2);
  // The client ends stream `a` the stdio way [CN27].
  input.write(
    `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'a' } })}\n`,
  );
  await expect.poll(() => listenStreams.stats.streams).toBe(1);
  const before = lines().length;
  await server.close('going away');
  const after = lines().slice(before);
  expect(after).toEqual([
    {
      jsonrpc: '2.0',
      id: 'b',
      result: { resultType: 'complete', _meta: { 'io.modelcontextprotocol/subscriptionId': 'b' } },
    },
    { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'b', reason: 'going away' } },
  ]);
  expect(lines().filter((m) => m.id === 'a')).toEqual([]); // a cancelled stream gets no response
  expect(listenStreams.stats).toMatchObject({ streams: 0, cancelled: 1, ended: 1, delivered: 2 });
  expect(server.endpoint.stats).toMatchObject({ inboundInFlight: 0, lateResults: 0 });
});
