// What a closed response stream means, per era, on real sockets: the cancel on 2026-07-28 [CN24]; under
// legacy revisions nothing [H13] (the handler runs on, a notifications/cancelled POST stops it), and the
// result waits for a Last-Event-ID resume [H22] for resumeWindowMs, then is dropped.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type RunningHttpServer, serveHttp } from '../src/index.js';
import { EventReader, modernHeaders, modernRequest, RawHttp, workCall } from './fixtures/raw-http.js';
import { observe, workServer } from './fixtures/work-server.js';

const observed = observe();
let server: RunningHttpServer;
let raw: RawHttp;
const RESUME_WINDOW_MS = 300;

beforeAll(async () => {
  server = await serveHttp(workServer(observed), { port: 0, resumeWindowMs: RESUME_WINDOW_MS });
  raw = new RawHttp(server.url);
});
afterAll(() => server.close());

/**
 * Starts a call, reads its first progress event, then drops the connection. Calls run on for a few hundred
 * ms after that, so the server has seen the drop before the result is written (a result written into a
 * connection whose drop is not yet noticed counts as delivered).
 */
async function startThenDrop(body: unknown, headers: Record<string, string>): Promise<EventReader> {
  const abort = new AbortController();
  const response = await raw.post(body, headers, abort.signal);
  const reader = new EventReader(response.body!);
  expect((await reader.next())!.message!.method).toBe('notifications/progress');
  abort.abort();
  await reader.done;
  return reader;
}

describe('2026-07-28: closing the stream is the cancel', () => {
  it('aborts the handler with DISCONNECTED and writes nothing more for it', async () => {
    const before = { ...server.handler.stats, completed: observed.completed };
    const aborted = observed.nextAbort();
    const call = modernRequest(
      1,
      'tools/call',
      { name: 'work', arguments: { steps: 50, intervalMs: 30 } },
      { progressToken: 'm1' },
    );
    await startThenDrop(call, modernHeaders('tools/call', 'work'));
    const reason = await aborted;
    expect(reason.code).toBe('DISCONNECTED');
    expect(reason.details).toMatchObject({ requestId: 1, method: 'tools/call' });
    const stats = server.handler.stats;
    expect(stats.disconnectCancels).toBe(before.disconnectCancels + 1);
    expect(stats.statelessInFlight).toBe(0);
    expect(stats.droppedMessages).toBe(before.droppedMessages); // no progress or error was even attempted
    expect(observed.completed).toBe(before.completed);
  });

  it('a client that goes away before any reply also cancels (JSON pending)', async () => {
    const aborted = observed.nextAbort();
    const abort = new AbortController();
    const started = observed.started;
    const call = modernRequest(2, 'tools/call', { name: 'work', arguments: { steps: 50, intervalMs: 30 } }); // no token
    const pending = raw.post(call, modernHeaders('tools/call', 'work'), abort.signal).catch(() => undefined);
    await vi.waitFor(() => expect(observed.started).toBe(started + 1), { interval: 5 }); // running, no reply yet
    abort.abort();
    await pending;
    expect((await aborted).code).toBe('DISCONNECTED');
  });
});

describe('legacy: a disconnect is not a cancel', () => {
  it('the handler runs on to its end when the stream drops', async () => {
    const session = await raw.initialize('2025-06-18');
    const before = {
      completed: observed.completed,
      aborted: observed.aborted.length,
      drops: server.handler.stats.legacyDisconnects,
    };
    await startThenDrop(workCall(1, 4, 40), raw.legacy(session, '2025-06-18'));
    await vi.waitFor(() => expect(observed.completed).toBe(before.completed + 1), { timeout: 20_000 });
    expect(observed.aborted.length).toBe(before.aborted);
    expect(server.handler.stats.legacyDisconnects).toBe(before.drops + 1);
  });

  it('notifications/cancelled on the same session stops it, and its stream ends with no response', async () => {
    const session = await raw.initialize();
    const response = await raw.post(workCall(9, 50, 30), raw.legacy(session));
    const reader = new EventReader(response.body!);
    await reader.next();
    const aborted = observed.nextAbort();
    const cancel = await raw.post(
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 9, reason: 'user' } },
      raw.legacy(session),
    );
    expect(cancel.status).toBe(202);
    const reason = await aborted;
    expect(reason.code).toBe('CANCELLED');
    expect(reason.message).toContain('user');
    const rest = await reader.rest(); // ends: the server closed the stream
    expect(rest.every((e) => e.message!.id === undefined)).toBe(true);
  });

  it('a cancel from another session does not reach it (rule 9)', async () => {
    const owner = await raw.initialize();
    const stranger = await raw.initialize();
    const before = observed.aborted.length;
    const reader = new EventReader((await raw.post(workCall(4, 3, 40), raw.legacy(owner))).body!);
    await reader.next();
    await raw.post(
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 4 } },
      raw.legacy(stranger),
    );
    expect((await reader.rest()).at(-1)!.message).toMatchObject({ id: 4, result: {} });
    expect(observed.aborted.length).toBe(before);
  });
});

describe('legacy: the result of a dropped stream', () => {
  it('is resumable with Last-Event-ID: missed events, then the result, then the end', async () => {
    const session = await raw.initialize('2025-11-25');
    const dropped = await startThenDrop(workCall(5, 4, 60), raw.legacy(session));
    const lastSeen = dropped.lastEventId;
    expect(lastSeen).toMatch(/^\d+-1$/);
    const resumed = await fetch(server.url, {
      headers: { ...raw.legacy(session), accept: 'text/event-stream', 'last-event-id': lastSeen },
    });
    expect(resumed.status).toBe(200);
    const events = await new EventReader(resumed.body!).rest();
    expect(
      events.map((e) =>
        e.message!.params ? (e.message!.params as { progress: number }).progress : 'result',
      ),
    ).toEqual([2, 3, 4, 'result']);
    expect(events.at(-1)!.message).toMatchObject({ id: 5, result: { content: [{ text: 'done 4' }] } });
    const key = lastSeen.split('-')[0];
    expect(events.map((e) => e.id)).toEqual([`${key}-2`, `${key}-3`, `${key}-4`, `${key}-5`]);
    expect(server.handler.stats.resumedStreams).toBeGreaterThan(0);
  });

  it('is resumable after it finished, within resumeWindowMs', async () => {
    const session = await raw.initialize('2025-11-25');
    const before = observed.completed;
    const dropped = await startThenDrop(workCall(6, 3, 100), raw.legacy(session));
    await vi.waitFor(() => expect(observed.completed).toBe(before + 1));
    const resumed = await fetch(server.url, {
      headers: { ...raw.legacy(session), accept: 'text/event-stream', 'last-event-id': dropped.lastEventId },
    });
    expect((await new EventReader(resumed.body!).rest()).at(-1)!.message).toMatchObject({
      id: 6,
      result: {},
    });
  });

  it('is dropped once resumeWindowMs passes with nobody resuming', async () => {
    const session = await raw.initialize('2025-11-25');
    const before = server.handler.stats.droppedResults;
    const dropped = await startThenDrop(workCall(7, 3, 100), raw.legacy(session));
    await vi.waitFor(() => expect(server.handler.stats.droppedResults).toBe(before + 1), {
      timeout: RESUME_WINDOW_MS + 2_000,
    });
    const late = await fetch(server.url, {
      headers: { ...raw.legacy(session), accept: 'text/event-stream', 'last-event-id': dropped.lastEventId },
    });
    expect(late.status).toBe(400);
  });

  it('is dropped at once when the client never saw an event id (its reply was still pending)', async () => {
    const session = await raw.initialize('2025-06-18');
    const before = { dropped: server.handler.stats.droppedResults, completed: observed.completed };
    const abort = new AbortController();
    const call = {
      jsonrpc: '2.0',
      id: 8,
      method: 'tools/call',
      params: { name: 'work', arguments: { steps: 2, intervalMs: 40 } },
    };
    const started = observed.started;
    const pending = raw.post(call, raw.legacy(session, '2025-06-18'), abort.signal).catch(() => undefined);
    await vi.waitFor(() => expect(observed.started).toBe(started + 1), { interval: 5 });
    abort.abort();
    await pending;
    await vi.waitFor(() => expect(observed.completed).toBe(before.completed + 1));
    await vi.waitFor(() => expect(server.handler.stats.droppedResults).toBe(before.dropped + 1));
  });
});
