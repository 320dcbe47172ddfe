// Multi round-trip requests (2026-07-28) over real transports: the library's client against the example
// server's `confirm` tool (stdio child and loopback HTTP), the official SDK v2 client against it, and the
// library's client against an SDK v2 server. Deadlines here run on real time (small values).
import { fileURLToPath } from 'node:url';
import type { McpClient } from '@mcp-inflight/client';
import { callToolWithInput, type InputRequiredResult } from '@mcp-inflight/client/input';
import { InflightError, JsonRpcError } from '@mcp-inflight/core';
import { HttpClient } from '@mcp-inflight/http';
import { spawnStdio } from '@mcp-inflight/stdio';
import { Client as ClientV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type SpawnedServer, spawnExampleServer } from './fixtures/spawn-example.js';

const SERVER = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const SDK_V2_SERVER = fileURLToPath(
  new URL('../../../packages/sdk/test/fixtures/v2-mrtr-server.mjs', import.meta.url),
);
const YES = { action: 'accept', content: { confirm: true } };
const ELICITATION = { elicitation: {} };

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

function stdioClient(args: string[] = [SERVER]): McpClient {
  const client = spawnStdio(
    { command: process.execPath, args },
    { stderr: 'ignore', capabilities: ELICITATION },
  );
  open.push(client);
  // Every connect here probes server/discover, which waits 5 s by default; a child starting beside other
  // suites can take that long to answer its first request, so the probe gets a bound load cannot reach.
  const connect = client.connect.bind(client);
  client.connect = (options = {}) => connect({ probeTimeoutMs: 60_000, ...options });
  return client;
}

const textOf = (result: { content: unknown[] }): string => (result.content[0] as { text: string }).text;
const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => clearTimeout(timer), { once: true });
  });

describe('the library client and examples/server confirm, over stdio', () => {
  it('2026-07-28: two rounds in one call, answered by the onRequest handler, progress from the second', async () => {
    const client = stdioClient();
    await client.connect({ revision: '2026-07-28' });
    let asked: unknown;
    client.onRequest('elicitation/create', (params) => {
      asked = params?.message;
      return YES;
    });
    const seen: Array<[number, number]> = [];
    const result = await callToolWithInput(
      client,
      'confirm',
      { action: 'deploy', steps: 3, intervalMs: 5 },
      {
        onprogress: (p, round) => seen.push([round, p.progress]),
      },
    );
    expect(textOf(result)).toBe('confirmed: deploy');
    expect(asked).toBe('Proceed with deploy?');
    // All from round two (round one reported none), strictly increasing, ending at 3 (the server may
    // coalesce the ones between).
    expect(seen.every(([round]) => round === 2)).toBe(true);
    expect(seen.at(-1)).toEqual([2, 3]);
    const values = seen.map(([, v]) => v);
    expect(values).toEqual([...new Set(values)].sort((a, b) => a - b));
  });

  it('a legacy session: the same handler serves the real elicitation/create request, in one round', async () => {
    const client = stdioClient();
    await client.connect({ revision: '2025-06-18' });
    let calls = 0;
    client.onRequest('elicitation/create', () => {
      calls++;
      return { action: 'decline' };
    });
    const result = await callToolWithInput(client, 'confirm', { action: 'drop table' });
    expect(textOf(result)).toBe('declined: drop table');
    expect(calls).toBe(1);
  });

  it('a tampered, borrowed or made-up requestState is rejected with -32602', async () => {
    const client = stdioClient();
    await client.connect({ revision: '2026-07-28' });
    const first = (await client.request('tools/call', {
      name: 'confirm',
      arguments: { action: 'deploy' },
    })) as InputRequiredResult;
    expect(first.resultType).toBe('input_required');
    const state = first.requestState ?? '';
    const last = state.at(-2) === 'A' ? 'Q' : 'A';
    const retries = [
      ['tampered', { action: 'deploy' }, `${state.slice(0, -2)}${last}${state.slice(-1)}`],
      ['another request', { action: 'rm -rf' }, state],
      ['made up', { action: 'deploy' }, 'v1.e30.AAAA'],
    ] as const;
    for (const [why, args, requestState] of retries) {
      const error = await client
        .request('tools/call', {
          name: 'confirm',
          arguments: args,
          inputResponses: { confirm: YES },
          requestState,
        })
        .catch((e: unknown) => e);
      expect(error, why).toBeInstanceOf(JsonRpcError);
      expect((error as JsonRpcError).code, why).toBe(-32602);
    }
    // The untouched state still works.
    const ok = await client.request('tools/call', {
      name: 'confirm',
      arguments: { action: 'deploy' },
      inputResponses: { confirm: YES },
      requestState: state,
    });
    expect(textOf(ok as { content: unknown[] })).toBe('confirmed: deploy');
  });

  it('one ceiling across rounds: gathering outlasts the idle window, and the ceiling fires in round two', async () => {
    const client = stdioClient();
    await client.connect({ revision: '2026-07-28' });
    const started = performance.now();
    const rounds: number[] = [];
    const error = await callToolWithInput(
      client,
      'confirm',
      // 200 steps of 20 ms: the tool would run 4 s after the answer, past the ceiling, so only a limit ends it.
      { action: 'deploy', steps: 200, intervalMs: 20 },
      {
        // Progress every 20 ms against a 1 s idle window (a step would have to stall 50-fold for load to
        // fire it); 150 ms was reached on a busy machine.
        idleMs: 1_000,
        ceilingMs: 3_500,
        onInputRequired: async (_requests, round) => {
          await sleep(2_000, round.signal); // twice the idle window: no idle fire while the user answers
          rounds.push(round.round);
          return { confirm: YES };
        },
      },
    ).catch((e: unknown) => e);
    const elapsed = performance.now() - started;
    // The outcome, not a time: the idle window never fired (gathering is not idleness), the one round of
    // input was answered, and the call ended at its 3.5 s ceiling (never before it) while round two ran.
    expect(error).toBeInstanceOf(InflightError);
    expect((error as InflightError).code).toBe('CEILING');
    expect((error as InflightError).message).toMatch(/hard ceiling of (3499\.9\d*|3500(\.\d+)?) ms/);
    expect(rounds).toEqual([1]);
    expect(elapsed).toBeGreaterThanOrEqual(3_490);
  });

  it("a caller's abort while input is gathered ends the call and tells the handler", async () => {
    const client = stdioClient();
    await client.connect({ revision: '2026-07-28' });
    const stop = new AbortController();
    let handlerSignal: AbortSignal | undefined;
    const call = callToolWithInput(
      client,
      'confirm',
      { action: 'deploy' },
      {
        signal: stop.signal,
        onInputRequired: (_requests, round) => {
          handlerSignal = round.signal;
          setTimeout(() => stop.abort(), 20);
          return new Promise(() => {});
        },
      },
    );
    const error = (await call.catch((e: unknown) => e)) as InflightError;
    expect(error.code).toBe('CANCELLED');
    expect(handlerSignal?.aborted).toBe(true);
    expect(client.stats().outboundInFlight).toBe(0);
  });
});

describe('the library client and examples/server confirm, over loopback HTTP', () => {
  let server: SpawnedServer;
  beforeAll(async () => {
    server = await spawnExampleServer();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('2026-07-28: two rounds, and the ceiling counts from the first', async () => {
    const client = new HttpClient({ url: server.url, capabilities: ELICITATION });
    open.push(client);
    await client.connect({ revision: '2026-07-28' });
    const result = await callToolWithInput(
      client,
      'confirm',
      { action: 'ship' },
      {
        onInputRequired: () => ({ confirm: YES }),
      },
    );
    expect(textOf(result)).toBe('confirmed: ship');
    const error = await callToolWithInput(
      client,
      'confirm',
      { action: 'ship', steps: 200, intervalMs: 20 },
      {
        idleMs: 1_000, // 150 ms was reached on a busy machine, with progress every 20 ms
        ceilingMs: 3_000,
        onInputRequired: async () => {
          await sleep(1_500);
          return { confirm: YES };
        },
      },
    ).catch((e: unknown) => e);
    expect((error as InflightError).code).toBe('CEILING');
  });
});

describe('interop with the official SDK v2 (2.4.0)', () => {
  it('the SDK v2 client drives examples/server confirm through its own MRTR loop', async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [SERVER], stderr: 'pipe' });
    const client = new ClientV2(
      { name: 'sdk-v2-mrtr', version: '2.0.0' },
      { capabilities: ELICITATION, versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    client.setRequestHandler('elicitation/create', async () => YES);
    await client.connect(transport);
    open.push(client);
    const result = await client.callTool({ name: 'confirm', arguments: { action: 'sdk' } });
    expect(textOf(result as { content: unknown[] })).toBe('confirmed: sdk');
  });

  it('the library client drives an SDK v2 server that answers input_required, echoing its state', async () => {
    const client = stdioClient([SDK_V2_SERVER]);
    await client.connect({ revision: '2026-07-28' });
    let rounds = 0;
    const result = await callToolWithInput(
      client,
      'confirm',
      { steps: 2, intervalMs: 5 },
      {
        onInputRequired: (requests, round) => {
          rounds = round.round;
          expect(requests.confirm?.method).toBe('elicitation/create');
          return { confirm: { action: 'accept', content: { ok: true } } };
        },
      },
    );
    expect(rounds).toBe(1);
    expect(JSON.parse(textOf(result))).toEqual({ answer: { ok: true }, state: 'sdk-state-1' });
  });
});
