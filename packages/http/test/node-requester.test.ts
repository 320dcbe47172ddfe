// The Node client's requester (node:http) against a scripted server on a real loopback socket: what it
// must keep that fetch gave for free (an abort before and after the headers closes the connection, a
// broken body fails its reader), and what it adds (a short discarded body keeps its connection).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeRequester } from '../src/node/node-requester.js';
import { type ScriptedServer, scriptedServer } from './fixtures/scripted-server.js';

let server: ScriptedServer | undefined;
afterEach(() => server?.close());

/**
 * A server whose `handle` sees each request: `closes` holds the remote port of each connection that
 * closed, `closed()` resolves at the first, `received()` once a request has been read.
 */
async function serve(handle: (request: IncomingMessage, response: ServerResponse) => void) {
  const closes: number[] = [];
  let onClose: (() => void) | undefined;
  let onRequest: (() => void) | undefined;
  let requests = 0;
  server = await scriptedServer((request, _message, response) => {
    const port = request.socket.remotePort ?? 0;
    request.socket.once('close', () => {
      closes.push(port);
      onClose?.();
    });
    requests++;
    onRequest?.();
    handle(request, response);
  });
  const closed = (): Promise<void> =>
    closes.length > 0 ? Promise.resolve() : new Promise((resolve) => (onClose = resolve));
  const received = (): Promise<void> =>
    requests > 0 ? Promise.resolve() : new Promise((resolve) => (onRequest = resolve));
  return { url: server.url, closes, closed, received };
}

const post = (signal?: AbortSignal) => ({
  method: 'POST' as const,
  headers: { 'content-type': 'application/json' },
  body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
  ...(signal ? { signal } : {}),
});

describe('nodeRequester', () => {
  it('sends the body with its length and reads a JSON answer, header names lower-case', async () => {
    const seen: { length?: string; body?: string } = {};
    const { url } = await serve((request, response) => {
      seen.length = request.headers['content-length'];
      response.writeHead(200, { 'Content-Type': 'application/json', 'X-Two': ['a', 'b'] });
      response.end('{"ok":"é"}');
    });
    const response = await nodeRequester()(url, post());
    expect(response.status).toBe(200);
    expect(response.header('content-type')).toBe('application/json');
    expect(response.header('x-two')).toBe('a, b');
    expect(response.header('absent')).toBeNull();
    expect(JSON.parse(await response.text())).toEqual({ ok: 'é' });
    expect(seen.length).toBe(String(Buffer.byteLength(post().body)));
  });

  it('an abort before the headers rejects with its reason and closes the connection', async () => {
    const { url, closed, received } = await serve(() => {}); // never answers
    const controller = new AbortController();
    const pending = nodeRequester()(url, post(controller.signal));
    await received();
    controller.abort(new Error('cancelled by the user'));
    await expect(pending).rejects.toThrow('cancelled by the user');
    await closed();
  });

  it('an already aborted signal sends nothing', async () => {
    let requests = 0;
    const { url } = await serve(() => requests++);
    const signal = AbortSignal.abort(new Error('too late'));
    await expect(nodeRequester()(url, post(signal))).rejects.toThrow('too late');
    expect(requests).toBe(0);
  });

  it('an abort while the body streams fails its reader and closes the connection', async () => {
    const { url, closed } = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: 1\n\n');
    });
    const controller = new AbortController();
    const response = await nodeRequester()(url, post(controller.signal));
    const read = (async () => {
      for await (const chunk of response.chunks()) {
        expect(Buffer.from(chunk).toString()).toBe('data: 1\n\n');
        controller.abort(new Error('stream closed by the client'));
      }
    })();
    await expect(read).rejects.toThrow();
    await closed();
  });

  it('a body the server breaks off fails text()', async () => {
    const { url } = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      response.write('{"partial":');
      setImmediate(() => response.socket?.destroy());
    });
    const response = await nodeRequester()(url, post());
    await expect(response.text()).rejects.toThrow();
  });

  it('discarding a short answer (202) keeps its connection for the next request', async () => {
    const ports: number[] = [];
    const { url, closes } = await serve((request, response) => {
      ports.push(request.socket.remotePort ?? 0);
      response.writeHead(202, { 'content-length': '0' }).end();
    });
    const request = nodeRequester();
    await (await request(url, post())).discard();
    await (await request(url, post())).discard();
    expect(ports).toHaveLength(2);
    expect(ports[1]).toBe(ports[0]);
    expect(closes).toEqual([]);
  });

  it('an abort once the body is complete but unread leaves its connection alone, and the body reads', async () => {
    // Headers and body go out in one write, so the response arrives complete. Destroying the request
    // then raced node:http's own hand-back of the socket to the agent: an 'error' with no listener.
    const { url, closes } = await serve((_request, response) =>
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': '2' }).end('{}'),
    );
    const request = nodeRequester();
    const first = new AbortController();
    const unread = await request(url, post(first.signal));
    first.abort(new Error('the client closed'));
    expect(await unread.text()).toBe('{}');
    expect(await (await request(url, post())).text()).toBe('{}');
    expect(closes).toEqual([]);
  });

  it('discarding an endless stream closes its connection', async () => {
    const { url, closed } = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(': open\n\n');
    });
    const response = await nodeRequester()(url, post());
    await response.discard();
    await closed();
  });

  it('an invalid header value rejects, naming it, instead of throwing', async () => {
    const { url } = await serve((_request, response) => response.end());
    const bad = { ...post(), headers: { authorization: 'Bearer a\nb' } };
    await expect(nodeRequester()(url, bad)).rejects.toThrow(/authorization/i);
  });
});
