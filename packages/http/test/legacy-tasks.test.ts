// 2025-11-25 task-augmented requests on legacy HTTP, real sockets: the CreateTaskResult ends the POST's
// stream, yet the task's progress token lives on [PG14]; what follows goes to the GET stream (or waits for
// one), where clients are told to expect task messages [PT5].
import { type Endpoint, ProgressRelay, type RequestContext, serveLifecycle } from '@mcp-inflight/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningHttpServer, serveHttp } from '../src/index.js';
import { EventReader, RawHttp } from './fixtures/raw-http.js';

let server: RunningHttpServer;
let raw: RawHttp;
/** The context of the last task-augmented call, to report progress after its result went out. */
let lastTask: RequestContext | undefined;

beforeAll(async () => {
  server = await serveHttp(
    (endpoint: Endpoint) => {
      serveLifecycle(endpoint, { serverInfo: { name: 'tasks', version: '1' }, capabilities: { tools: {} } });
      endpoint.setRequestHandler('tools/call', (_params, ctx) => {
        lastTask = ctx;
        ctx.progress(1, 3, 'queued');
        return { task: { taskId: `T-${ctx.id}`, status: 'working', ttl: 60_000 } };
      });
    },
    { port: 0, keepAliveMs: 60_000, progressRelay: new ProgressRelay({ minIntervalMs: 0 }) },
  );
  raw = new RawHttp(server.url);
});
afterAll(() => server.close());

const taskCall = (id: number, token: string) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'slow', task: { ttl: 60_000 }, _meta: { progressToken: token } },
});

async function openGet(session: string): Promise<EventReader> {
  const get = await fetch(server.url, { headers: { ...raw.legacy(session), accept: 'text/event-stream' } });
  expect(get.status).toBe(200);
  return new EventReader(get.body!);
}

describe('progress after a CreateTaskResult', () => {
  it('goes to the GET stream [PT5]', async () => {
    const session = await raw.initialize('2025-11-25');
    const get = await openGet(session);
    const post = await raw.post(taskCall(1, 'tok-1'), raw.legacy(session));
    const events = await new EventReader(post.body!).rest();
    expect(events.map((e) => e.message!.method ?? 'result')).toEqual(['notifications/progress', 'result']);
    expect(lastTask!.progress(2, 3, 'working')).toBe(true);
    expect((await get.next())!.message).toMatchObject({
      method: 'notifications/progress',
      params: { progressToken: 'tok-1', progress: 2, total: 3, message: 'working' },
    });
    lastTask!.progress(3, 3, 'done');
    expect((await get.next())!.message).toMatchObject({ params: { progressToken: 'tok-1', progress: 3 } });
  });

  it('waits for a GET stream that is not open yet', async () => {
    const session = await raw.initialize('2025-11-25');
    const post = await raw.post(taskCall(2, 'tok-2'), raw.legacy(session));
    await post.text();
    lastTask!.progress(2, 3, 'working');
    const get = await openGet(session);
    expect((await get.next())!.message).toMatchObject({ params: { progressToken: 'tok-2', progress: 2 } });
  });
});
