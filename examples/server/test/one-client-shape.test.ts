// The same host code, written once against the library's client interface (McpClient), driven over stdio
// and over Streamable HTTP, on a legacy revision and on 2026-07-28, against examples/server with a handler
// ceiling of its own. One `catch` reads a local limit, a user's cancel and the server's limit alike.
import type { McpClient } from '@mcp-inflight/client';
import { type CallToolResult, InflightError, type Revision } from '@mcp-inflight/core';
import { HttpClient } from '@mcp-inflight/http';
import { spawnStdio } from '@mcp-inflight/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_SERVER, type SpawnedServer, spawnExampleServer } from './fixtures/spawn-example.js';

/** The server cancels any handler still running after this long: the "remote limit". */
const SERVER_CEILING_MS = 1_500;
const SERVER_ARGS = ['--handler-ceiling', String(SERVER_CEILING_MS)];

/** How a call ended, as a host would read it through the one interface. */
type Ending =
  | { kind: 'result'; result: CallToolResult; updates: number; last: number | undefined }
  | { kind: 'limit'; code: string; origin: 'local' | 'remote'; updates: number; message: string };

/** Host code, the same for every transport: a tool call with progress, read through one catch. */
async function run(
  client: McpClient,
  args: Record<string, unknown>,
  options: { ceilingMs?: number; stopAfterUpdates?: number } = {},
): Promise<Ending> {
  const stop = new AbortController();
  let updates = 0;
  let last: number | undefined;
  try {
    const result = await client.callTool('work', args, {
      signal: stop.signal,
      idleMs: 10_000,
      ceilingMs: options.ceilingMs ?? 30_000,
      onprogress: (p) => {
        updates++;
        last = p.progress;
        if (updates === options.stopAfterUpdates) stop.abort('the user pressed stop');
      },
    });
    return { kind: 'result', result, updates, last };
  } catch (error) {
    if (!InflightError.is(error)) throw error;
    return { kind: 'limit', code: error.code, origin: error.origin, updates, message: error.message };
  }
}

async function status(client: McpClient): Promise<{ running: number; cancelled: number; stopped: number }> {
  const result = await client.callTool('status');
  return JSON.parse(String(result.content[0]?.text)) as {
    running: number;
    cancelled: number;
    stopped: number;
  };
}

let http: SpawnedServer;

beforeAll(async () => {
  http = await spawnExampleServer(SERVER_ARGS);
});

afterAll(async () => {
  await http?.stop();
});

const TRANSPORTS = {
  stdio: (): McpClient => spawnStdio([process.execPath, EXAMPLE_SERVER, ...SERVER_ARGS].map(quote).join(' ')),
  http: (): McpClient => new HttpClient({ url: http.url }),
};

function quote(word: string): string {
  return `'${word.replaceAll("'", "'\\''")}'`;
}

describe.each(['stdio', 'http'] as const)('one client shape over %s', (transport) => {
  describe.each(['2025-11-25', '2026-07-28'] as const)('%s', (revision: Revision) => {
    let client: McpClient;

    beforeAll(async () => {
      client = TRANSPORTS[transport]();
      const server = await client.connect({ revision });
      expect(server).toMatchObject({
        revision,
        era: revision === '2026-07-28' ? 'modern' : 'legacy',
        serverInfo: { name: 'mcp-inflight-example-server' },
      });
      expect(client.revision).toBe(revision);
    });

    afterAll(async () => {
      await client?.close();
    });

    it('calls a tool with progress and a typed result', async () => {
      const ending = await run(client, { steps: 3, intervalMs: 5, tag: transport });
      // Bursts are coalesced (at most one update per 50 ms), but the last value always arrives.
      expect(ending).toMatchObject({ kind: 'result', last: 3 });
      expect(ending.kind === 'result' && ending.result.content[0]?.text).toBe(`${transport}: done 3 steps`);
    });

    it("a user's stop is a cancel, never a timeout, and the server stops the work", async () => {
      const before = await status(client);
      const ending = await run(client, { steps: 1_000, intervalMs: 10 }, { stopAfterUpdates: 2 });
      expect(ending).toMatchObject({ kind: 'limit', code: 'CANCELLED', origin: 'local', updates: 2 });
      await expect.poll(async () => (await status(client)).cancelled).toBe(before.cancelled + 1);
      expect((await status(client)).running).toBe(0);
    });

    it('a local ceiling names itself, and the server stops the work', async () => {
      const before = await status(client);
      const ending = await run(client, { steps: 1_000, intervalMs: 10 }, { ceilingMs: 300 });
      expect(ending).toMatchObject({ kind: 'limit', code: 'CEILING', origin: 'local' });
      expect(ending.kind === 'limit' && ending.message).toMatch(/hard ceiling of 300 ms/);
      await expect.poll(async () => (await status(client)).cancelled).toBe(before.cancelled + 1);
    });

    it("the server's own ceiling reaches the same catch as an InflightError, origin remote", async () => {
      const before = await status(client);
      const ending = await run(client, { steps: 1_000, intervalMs: 20 });
      expect(ending).toMatchObject({ kind: 'limit', code: 'CEILING', origin: 'remote' });
      expect(ending.kind === 'limit' && ending.message).toMatch(`hard ceiling of ${SERVER_CEILING_MS} ms`);
      expect(ending.updates).toBeGreaterThan(0);
      // Nobody asked it to stop: the server counts it stopped, not cancelled (isCancel).
      await expect.poll(async () => (await status(client)).stopped).toBe(before.stopped + 1);
      expect((await status(client)).cancelled).toBe(before.cancelled);
    });

    it('invalid arguments are a tool error the model can read (from 2025-11-25)', async () => {
      const ending = await run(client, { steps: 'many' });
      expect(ending).toMatchObject({ kind: 'result', result: { isError: true } });
    });
  });
});
