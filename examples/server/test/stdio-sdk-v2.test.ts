import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client, type JSONRPCMessage } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';

// The official SDK v2 client, pinned to 2026-07-28, over stdio against `node examples/server/dist/index.js`.

const SERVER = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';

interface Session {
  client: Client;
  /** Every message the client wrote and read on its session pipe. */
  sent: JSONRPCMessage[];
  received: JSONRPCMessage[];
}

const sessions: Session[] = [];
beforeAll(() => {
  if (!existsSync(SERVER)) throw new Error(`${SERVER} is missing: run \`pnpm build\` first`);
});
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((s) => s.client.close()));
});

async function connect(): Promise<Session> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [SERVER], stderr: 'pipe' });
  const client = new Client(
    { name: 'sdk-v2-test', version: '2.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  const session: Session = { client, sent: [], received: [] };
  const send = transport.send.bind(transport);
  transport.send = async (message: JSONRPCMessage) => {
    session.sent.push(message);
    return send(message);
  };
  await client.connect(transport);
  const deliver = transport.onmessage!;
  transport.onmessage = (message: JSONRPCMessage) => {
    session.received.push(message);
    deliver(message);
  };
  sessions.push(session);
  return session;
}

async function status(client: Client): Promise<{ running: number; completed: number; cancelled: number }> {
  const result = await client.callTool({ name: 'status', arguments: {} });
  return JSON.parse((result.content[0] as { text: string }).text);
}

const work = (steps: number, intervalMs: number) => ({ name: 'work', arguments: { steps, intervalMs } });
const isMethod = (m: JSONRPCMessage, method: string): boolean => 'method' in m && m.method === method;

describe('examples/server over stdio with the SDK v2 client pinned to 2026-07-28', () => {
  it('negotiates 2026-07-28 without initialize, and delivers progress under its token, strictly increasing, before the result', async () => {
    const { client, sent, received } = await connect();
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    expect(client.getProtocolEra()).toBe('modern');
    expect(client.getServerVersion()).toMatchObject({ name: 'mcp-inflight-example-server' });
    const progress: number[] = [];
    let resultIn = false;
    let afterResult = 0;
    const result = await client.callTool(work(6, 30), {
      onprogress: (p) => {
        if (resultIn) afterResult++;
        progress.push(p.progress);
      },
    });
    resultIn = true;
    expect((result.content[0] as { text: string }).text).toBe('done 6 steps');
    expect(progress.length).toBeGreaterThan(1);
    for (let i = 1; i < progress.length; i++) expect(progress[i]).toBeGreaterThan(progress[i - 1]!);
    expect(afterResult).toBe(0);

    expect(sent.some((m) => isMethod(m, 'initialize'))).toBe(false);
    const call = sent.find((m) => isMethod(m, 'tools/call')) as {
      id: number;
      params: { _meta: Record<string, unknown> };
    };
    expect(call.params._meta[VERSION_KEY]).toBe('2026-07-28');
    const token = call.params._meta.progressToken;
    expect(token).toBe(call.id);
    const updates = received.filter((m) => isMethod(m, 'notifications/progress')) as unknown as {
      params: { progressToken: unknown; progress: number };
    }[];
    for (const u of updates) expect(u.params.progressToken).toBe(token);
    const wire = updates.map((u) => u.params.progress);
    for (let i = 1; i < wire.length; i++) expect(wire[i]).toBeGreaterThan(wire[i - 1]!);
    expect(wire.at(-1)).toBe(6);
    const answer = received.find((m) => 'id' in m && m.id === call.id) as { result: { resultType?: string } };
    expect(answer.result.resultType).toBe('complete');
    expect(received.indexOf(updates.at(-1) as never)).toBeLessThan(received.indexOf(answer as never));
    // Like v1, v2 runs progress callbacks a microtask late and drops those that share a read with the result.
    expect(wire.slice(0, progress.length)).toEqual(progress);
  });

  it('stops the work when an AbortSignal cancels the call: status shows it cancelled and not running', async () => {
    const { client, sent } = await connect();
    const controller = new AbortController();
    const call = client.callTool(work(200, 20), {
      signal: controller.signal,
      onprogress: (p) => {
        if (p.progress >= 2) controller.abort('user stop');
      },
    });
    await expect(call).rejects.toThrow(/user stop/);
    await expect.poll(() => status(client)).toEqual({ running: 0, completed: 0, cancelled: 1, stopped: 0 });
    // On stdio the 2026-07-28 client cancels with the notification [CN25].
    expect(sent.find((m) => isMethod(m, 'notifications/cancelled'))).toMatchObject({
      params: { reason: 'user stop' },
    });
  });

  it('stops the work when the SDK timeout fires: status shows it cancelled and not running', async () => {
    const { client } = await connect();
    // The pinned client spawns its session process at connect and does not wait for it: make sure the
    // server is reading, or the call and its cancel arrive together and the cancel wins before dispatch.
    expect(await status(client)).toEqual({ running: 0, completed: 0, cancelled: 0, stopped: 0 });
    const started = performance.now();
    const call = client.callTool(work(50, 400), { timeout: 200 });
    await expect(call).rejects.toMatchObject({ code: 'REQUEST_TIMEOUT' });
    // REQUEST_TIMEOUT is the SDK's 200 ms timeout (the work takes 20 s); never before it.
    expect(performance.now() - started).toBeGreaterThanOrEqual(195);
    await expect.poll(() => status(client)).toEqual({ running: 0, completed: 0, cancelled: 1, stopped: 0 });
  });
});
