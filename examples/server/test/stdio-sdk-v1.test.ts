import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';

// The official SDK v1 Client over stdio against `node examples/server/dist/index.js` (run `pnpm build`).

const SERVER = fileURLToPath(new URL('../dist/index.js', import.meta.url));

interface Session {
  client: Client;
  /** Every message the client wrote and read, as they crossed the pipe. */
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
  const client = new Client({ name: 'sdk-v1-test', version: '1.0.0' });
  const session: Session = { client, sent: [], received: [] };
  const send = transport.send.bind(transport);
  transport.send = async (message) => {
    session.sent.push(message);
    return send(message);
  };
  await client.connect(transport);
  const deliver = transport.onmessage!;
  transport.onmessage = (message) => {
    session.received.push(message);
    deliver(message);
  };
  sessions.push(session);
  return session;
}

async function status(client: Client): Promise<{ running: number; completed: number; cancelled: number }> {
  const result = await client.callTool({ name: 'status', arguments: {} }, CallToolResultSchema);
  return JSON.parse((result.content as { text: string }[])[0]!.text);
}

const work = (steps: number, intervalMs: number) => ({ name: 'work', arguments: { steps, intervalMs } });

describe('examples/server over stdio with the SDK v1 Client', () => {
  it("delivers progress under the SDK's own token, strictly increasing, before the result", async () => {
    const { client, sent, received } = await connect();
    expect(client.getServerVersion()).toMatchObject({ name: 'mcp-inflight-example-server' });
    const progress: number[] = [];
    let resultIn = false;
    let afterResult = 0;
    const result = await client.callTool(work(6, 30), CallToolResultSchema, {
      onprogress: (p) => {
        if (resultIn) afterResult++;
        progress.push(p.progress);
        expect(p.total).toBe(6);
      },
    });
    resultIn = true;
    expect((result.content as { text: string }[])[0]!.text).toBe('done 6 steps');
    expect(progress.length).toBeGreaterThan(1);
    for (let i = 1; i < progress.length; i++) expect(progress[i]).toBeGreaterThan(progress[i - 1]!);
    expect(afterResult).toBe(0);

    // On the wire: the SDK's token (its message id) comes back on every update, strictly increasing, the
    // last one (6 of 6) flushed before the result.
    const call = sent.find((m) => 'method' in m && m.method === 'tools/call') as {
      id: number;
      params: { _meta: { progressToken: unknown } };
    };
    const token = call.params._meta.progressToken;
    expect(token).toBe(call.id);
    const updates = received.filter(
      (m) => 'method' in m && m.method === 'notifications/progress',
    ) as unknown as {
      params: { progressToken: unknown; progress: number; message?: string };
    }[];
    for (const u of updates) expect(u.params.progressToken).toBe(token);
    const wire = updates.map((u) => u.params.progress);
    for (let i = 1; i < wire.length; i++) expect(wire[i]).toBeGreaterThan(wire[i - 1]!);
    expect(updates.at(-1)!.params).toMatchObject({ progress: 6, message: 'step 6 of 6' });
    const resultAt = received.findIndex((m) => 'id' in m && m.id === call.id);
    expect(received.indexOf(updates.at(-1) as never)).toBeLessThan(resultAt);
    // SDK v1 runs progress callbacks a microtask late and drops the ones that share a read with the
    // result (its own known failure), so the callback sees a prefix of what was sent, never more.
    expect(wire.slice(0, progress.length)).toEqual(progress);
  });

  it('stops the work when an AbortSignal cancels the call: status shows it cancelled and not running', async () => {
    const { client, sent } = await connect();
    const controller = new AbortController();
    const call = client.callTool(work(200, 20), CallToolResultSchema, {
      signal: controller.signal,
      onprogress: (p) => {
        if (p.progress >= 2) controller.abort('user stop');
      },
    });
    await expect(call).rejects.toThrow(/user stop/);
    await expect.poll(() => status(client)).toEqual({ running: 0, completed: 0, cancelled: 1, stopped: 0 });
    const cancel = sent.find((m) => 'method' in m && m.method === 'notifications/cancelled');
    expect(cancel).toMatchObject({ params: { reason: 'user stop' } });
  });

  it('stops the work when the SDK timeout fires: status shows it cancelled and not running', async () => {
    const { client } = await connect();
    const started = performance.now();
    const call = client.callTool(work(50, 400), CallToolResultSchema, { timeout: 200 });
    await expect(call).rejects.toMatchObject({ code: -32001 });
    // REQUEST_TIMEOUT is the SDK's 200 ms timeout (the work takes 20 s); never before it.
    expect(performance.now() - started).toBeGreaterThanOrEqual(195);
    await expect.poll(() => status(client)).toEqual({ running: 0, completed: 0, cancelled: 1, stopped: 0 });
  });
});
