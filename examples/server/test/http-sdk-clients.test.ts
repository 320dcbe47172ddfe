// The official SDK clients against the example server over real loopback HTTP: v1 (legacy, 2025-11-25) and
// v2 pinned to 2026-07-28. Each era's cancel must stop the work; a legacy disconnect must not.
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  exchangeOf,
  postedMethods,
  recordingFetch,
} from '../../../packages/http/test/fixtures/recording-fetch.js';
import { type SpawnedServer, spawnExampleServer } from './fixtures/spawn-example.js';

interface Counts {
  running: number;
  completed: number;
  cancelled: number;
}

let server: SpawnedServer;
let observer: ClientV1;

/** The example's `status` tool, read through a separate client so the one under test is not involved. */
async function status(): Promise<Counts> {
  const result = (await observer.callTool({ name: 'status', arguments: {} })) as {
    content: { text: string }[];
  };
  return JSON.parse(result.content[0]!.text) as Counts;
}

async function waitFor(check: (counts: Counts) => boolean, timeoutMs = 20_000): Promise<Counts> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const counts = await status();
    if (check(counts)) return counts;
    if (Date.now() > until) throw new Error(`status never matched; last ${JSON.stringify(counts)}`);
    await new Promise((resolve) => setTimeout(resolve, 40));
  }
}

async function v1Client(fetchFn: typeof fetch): Promise<ClientV1> {
  const client = new ClientV1({ name: 'sdk-v1-test', version: '1.0.0' });
  await client.connect(new TransportV1(new URL(server.url), { fetch: fetchFn }));
  return client;
}

beforeAll(async () => {
  server = await spawnExampleServer();
  observer = await v1Client(globalThis.fetch);
});

afterAll(async () => {
  await observer?.close();
  await server?.stop();
});

describe('official SDK v1 client (legacy 2025-11-25) against examples/server', () => {
  it('gets progress on the tool call’s own SSE stream', async () => {
    const { fetch, wire } = recordingFetch();
    const client = await v1Client(fetch);
    const seen: { progress: number; total?: number; message?: string }[] = [];
    const result = await client.callTool(
      { name: 'work', arguments: { steps: 3, intervalMs: 60 } },
      undefined,
      {
        onprogress: (p) => seen.push(p),
      },
    );
    expect(result.content).toEqual([{ type: 'text', text: 'done 3 steps' }]);
    expect(seen.map((p) => [p.progress, p.total, p.message])).toEqual([
      [1, 3, 'step 1 of 3'],
      [2, 3, 'step 2 of 3'],
      [3, 3, 'step 3 of 3'],
    ]);
    const call = exchangeOf(wire, 'tools/call')!;
    await call.finished;
    expect(call.contentType).toBe('text/event-stream');
    const onStream = call.received.map((m) => (m as { method?: string }).method ?? 'response');
    expect(onStream).toEqual([
      'notifications/progress',
      'notifications/progress',
      'notifications/progress',
      'response',
    ]);
    await client.close();
  });

  it('cancels with an AbortSignal: notifications/cancelled goes out and the work stops', async () => {
    const before = await status();
    const { fetch, wire } = recordingFetch();
    const client = await v1Client(fetch);
    const abort = new AbortController();
    let updates = 0;
    const call = client.callTool({ name: 'work', arguments: { steps: 100, intervalMs: 40 } }, undefined, {
      signal: abort.signal,
      onprogress: () => {
        if (++updates === 2) abort.abort('user stop');
      },
    });
    await expect(call).rejects.toThrow();
    const after = await waitFor((c) => c.cancelled === before.cancelled + 1 && c.running === 0);
    expect(after.completed).toBe(before.completed);
    const callId = (exchangeOf(wire, 'tools/call')!.body as { id: number }).id;
    const cancel = exchangeOf(wire, 'notifications/cancelled')!;
    expect((cancel.body as { params: { requestId: number } }).params.requestId).toBe(callId);
    // The server counts the cancel before its 202 reaches the client: wait for the answer to be recorded.
    await expect.poll(() => exchangeOf(wire, 'notifications/cancelled')?.status).toBe(202);
    await client.close();
  });

  it('a dropped connection is not a cancel: the work runs to the end', async () => {
    const before = await status();
    const { fetch, wire } = recordingFetch();
    const client = await v1Client(fetch);
    let updates = 0;
    let dropped!: () => void;
    const droppedOnce = new Promise<void>((resolve) => {
      dropped = resolve;
    });
    const call = client.callTool({ name: 'work', arguments: { steps: 12, intervalMs: 60 } }, undefined, {
      onprogress: () => {
        if (++updates === 2) dropped();
      },
    });
    call.catch(() => {}); // it fails on the client side when the transport closes
    await droppedOnce;
    await client.close(); // aborts every fetch: the connection goes, no cancel is sent
    const during = await status();
    expect(during.running).toBe(before.running + 1);
    const after = await waitFor((c) => c.completed === before.completed + 1 && c.running === 0);
    expect(after.cancelled).toBe(before.cancelled);
    expect(postedMethods(wire)).not.toContain('notifications/cancelled');
    expect(exchangeOf(wire, 'tools/call')!.aborted).toBe(true);
  });
});

describe('official SDK v2 client pinned to 2026-07-28 against examples/server', () => {
  async function v2Client(fetchFn: typeof fetch): Promise<ClientV2> {
    const client = new ClientV2(
      { name: 'sdk-v2-test', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(new TransportV2(new URL(server.url), { fetch: fetchFn }));
    return client;
  }

  it('gets progress on the request’s stream, with no session', async () => {
    const { fetch, wire } = recordingFetch();
    const client = await v2Client(fetch);
    const seen: number[] = [];
    const result = await client.callTool(
      { name: 'work', arguments: { steps: 3, intervalMs: 60 } },
      { onprogress: (p) => seen.push(p.progress) },
    );
    expect(result.content).toEqual([{ type: 'text', text: 'done 3 steps' }]);
    expect(seen).toEqual([1, 2, 3]);
    const call = exchangeOf(wire, 'tools/call')!;
    expect(call.headers['mcp-protocol-version']).toBe('2026-07-28');
    expect(call.contentType).toBe('text/event-stream');
    expect(wire.every((e) => e.headers['mcp-session-id'] === undefined)).toBe(true);
    await client.close();
  });

  it('an abort closes the stream, sends no notification, and stops the work', async () => {
    const before = await status();
    const { fetch, wire } = recordingFetch();
    const client = await v2Client(fetch);
    const abort = new AbortController();
    let updates = 0;
    const call = client.callTool(
      { name: 'work', arguments: { steps: 100, intervalMs: 40 } },
      {
        signal: abort.signal,
        onprogress: () => {
          if (++updates === 2) abort.abort('user stop');
        },
      },
    );
    await expect(call).rejects.toThrow();
    const after = await waitFor((c) => c.cancelled === before.cancelled + 1 && c.running === 0);
    expect(after.completed).toBe(before.completed);
    expect(exchangeOf(wire, 'tools/call')!.aborted).toBe(true);
    expect(postedMethods(wire)).toEqual(['server/discover', 'tools/call']);
    await client.close();
  });
});
