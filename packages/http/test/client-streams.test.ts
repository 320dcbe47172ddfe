// HttpClient against scripted servers on real loopback sockets: a 2025-11-25 server that polls (closes the
// connection after every event [H16 H17 H18]), one whose resumes bring nothing, and one that sends an SSE
// event larger than the client accepts.
import { InflightError } from '@mcp-inflight/core';
import { describe, expect, it } from 'vitest';
import { BOTH_CLIENTS } from './fixtures/clients.js';
import { answerHandshake, type Message, scriptedServer } from './fixtures/scripted-server.js';

const RETRY_MS = 5;

/**
 * A polling server: the POST gets only a priming event; each GET with `Last-Event-ID` gets the next event
 * of the call (six progress events, then the result) and the connection closes. With `stuck`, the GETs
 * bring nothing.
 */
async function pollingServer(stuck = false) {
  let events: { id: string; data: unknown }[] = [];
  let gets = 0;
  const server = await scriptedServer((request, message: Message, response) => {
    if (answerHandshake(message, response)) return;
    if (request.method === 'POST' && message?.method === 'tools/call') {
      const token = (message.params?._meta as { progressToken?: unknown } | undefined)?.progressToken;
      events = [1, 2, 3, 4, 5, 6].map((progress) => ({
        id: `e${progress}`,
        data: {
          jsonrpc: '2.0',
          method: 'notifications/progress',
          params: { progressToken: token, progress, total: 6 },
        },
      }));
      events.push({ id: 'e7', data: { jsonrpc: '2.0', id: message.id, result: { content: [] } } });
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      return response.end(`id: e0\nretry: ${RETRY_MS}\ndata:\n\n`); // the connection, not the stream
    }
    if (request.method === 'GET') {
      gets++;
      const last = request.headers['last-event-id'];
      const next = stuck ? undefined : events[events.findIndex((e) => e.id === last) + 1];
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      return response.end(next ? `id: ${next.id}\ndata: ${JSON.stringify(next.data)}\n\n` : '');
    }
    response.writeHead(200).end();
  });
  return { server, gets: () => gets };
}

describe.each(BOTH_CLIENTS)('HttpClient over %s', (_via, HttpClient) => {
  describe('legacy resumption', () => {
    it('follows a polling server to the result: a resume that brought events is not a failed attempt', async () => {
      const { server, gets } = await pollingServer();
      // No GET stream for unrelated messages: the GETs counted here are the resumes alone.
      const client = new HttpClient({
        url: server.url,
        revision: '2025-11-25',
        resumeAttempts: 2,
        listen: false,
      });
      const seen: number[] = [];
      const result = await client.request(
        'tools/call',
        { name: 'work' },
        { onprogress: (p) => seen.push(p.progress) },
      );
      expect(result).toEqual({ content: [] });
      expect(seen.at(-1)).toBe(6);
      expect(gets()).toBe(7);
      await client.close();
      await server.close();
    });

    it('still gives up after resumeAttempts resumes in a row that bring nothing', async () => {
      const { server, gets } = await pollingServer(true);
      // No GET stream for unrelated messages: the GETs counted here are the resumes alone.
      const client = new HttpClient({
        url: server.url,
        revision: '2025-11-25',
        resumeAttempts: 2,
        listen: false,
      });
      const call = client.request('tools/call', { name: 'work' }, { onprogress: () => {} });
      await expect(call).rejects.toMatchObject({ code: 'UPSTREAM_CLOSED' });
      expect(gets()).toBe(2);
      await client.close();
      await server.close();
    });
  });

  describe('an SSE event over maxEventChars', () => {
    it('fails the call with a clear error and lets the connection go, without buffering the rest', async () => {
      let closed!: () => void;
      const connectionClosed = new Promise<void>((resolve) => {
        closed = resolve;
      });
      const server = await scriptedServer((request, message, response) => {
        if (answerHandshake(message, response)) return;
        if (request.method !== 'POST') return void response.writeHead(405).end();
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.write(`data: ${'x'.repeat(5_000)}`); // an event that never ends, bigger than the limit
        response.on('close', closed);
      });
      const client = new HttpClient({ url: server.url, revision: '2025-11-25', maxEventChars: 1_024 });
      const call = client.request('tools/call', { name: 'work' });
      await expect(call).rejects.toBeInstanceOf(InflightError);
      await expect(call).rejects.toMatchObject({
        code: 'UPSTREAM_CLOSED',
        message: expect.stringContaining('maxEventChars (1024)'),
      });
      await connectionClosed;
      await client.close();
      await server.close();
    });
  });
});
