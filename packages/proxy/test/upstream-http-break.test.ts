// One broken HTTP exchange with a 2026-07-28 upstream fails that call alone: HTTP has no connection to
// lose, so the other calls in flight on the same upstream finish, and the upstream is never replaced.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpClient } from '@mcp-inflight/http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type RunningProxy, startProxy } from './procs.js';

let upstream: Server;
let proxy: RunningProxy;
/** Tool calls whose stream the upstream saw closed before it answered (a cancel, on 2026-07-28). */
const closedEarly: string[] = [];

// A hand-written 2026-07-28 upstream: `slow` streams progress for 1 s then answers; `break` opens its
// stream and then drops the socket, as a crashed worker or a flaky network would.
function flakyUpstream(): Promise<string> {
  upstream = createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    const m = JSON.parse(body || '{}');
    if (m.method === 'server/discover') {
      res.writeHead(200, { 'content-type': 'application/json' });
      const info = { name: 'flaky', version: '1' };
      return res.end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: m.id,
          result: {
            resultType: 'complete',
            supportedVersions: ['2026-07-28'],
            capabilities: { tools: {} },
            serverInfo: info,
          },
        }),
      );
    }
    if (m.method !== 'tools/call') {
      res.writeHead(404, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'nope' } }));
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const send = (o: unknown) => res.write(`data: ${JSON.stringify(o)}\n\n`);
    let answered = false;
    let timer: NodeJS.Timeout | undefined;
    res.on('close', () => {
      clearInterval(timer);
      if (!answered) closedEarly.push(m.params.name);
    });
    if (m.params.name === 'break') return void setTimeout(() => res.socket?.destroy(), 200);
    const token = m.params._meta?.progressToken;
    let step = 0;
    timer = setInterval(() => {
      step++;
      send({
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: token, progress: step, total: 10 },
      });
      if (step < 10) return;
      clearInterval(timer);
      answered = true;
      send({
        jsonrpc: '2.0',
        id: m.id,
        result: { resultType: 'complete', content: [{ type: 'text', text: 'slow done' }] },
      });
      res.end();
    }, 100);
  });
  return new Promise((resolve) =>
    upstream.listen(0, '127.0.0.1', () =>
      resolve(`http://127.0.0.1:${(upstream.address() as AddressInfo).port}/mcp`),
    ),
  );
}

beforeAll(async () => {
  proxy = await startProxy(['--upstream-http', await flakyUpstream()]);
});
afterAll(async () => {
  await proxy?.kill();
  upstream?.closeAllConnections();
  await new Promise((resolve) => upstream?.close(resolve));
});

it('a dropped socket fails only its own call; the other call in flight completes', async () => {
  const a = new HttpClient({ url: proxy.url });
  const b = new HttpClient({ url: proxy.url });
  try {
    let progress = 0;
    const slow = a.request(
      'tools/call',
      { name: 'slow', arguments: {} },
      { onprogress: () => void progress++ },
    );
    const broken = b.request('tools/call', { name: 'break', arguments: {} }, {});
    await expect(broken).rejects.toMatchObject({ code: 'UPSTREAM_CLOSED', origin: 'remote' });
    await expect(slow).resolves.toMatchObject({ content: [{ text: 'slow done' }] });
    expect(progress).toBeGreaterThan(0);
    expect(closedEarly).toEqual(['break']);
    // The next call reuses the same upstream: nothing was torn down.
    expect(proxy.events.filter((e) => e.type === 'upstream-started')).toHaveLength(1);
    expect(proxy.events.filter((e) => e.type === 'upstream-closed')).toEqual([]);
  } finally {
    await a.close();
    await b.close();
  }
});
