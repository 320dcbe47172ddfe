import { InflightError } from '@mcp-inflight/core';
import type { ProgressParams } from '@mcp-inflight/core/schemas';
import { afterEach, describe, expect, it } from 'vitest';
import type { StdioClient } from '../src/index.js';
import { since, spawnFixture, textOf } from './helpers.js';

/**
 * The auto connect's server/discover probe waits 5 s by default before it reads silence as a legacy
 * server; a child process starting beside other suites can take that long to answer its first request.
 */
const SLOW_START = { probeTimeoutMs: 60_000 };

// Our stdio client against a real server built on the official SDK v1 McpServer (a child process).
// The fixture records what reached it; tool `received` reports that record.

interface Received {
  methods: string[];
  cancelled: { requestId: number | string; reason?: string }[];
  aborts: { requestId: number | string; reason: string }[];
  progressTokens: (number | string | null)[];
}

const open: StdioClient[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((client) => client.close()));
});

function start(env: Record<string, string> = {}): StdioClient {
  const client = spawnFixture('sdk-v1-server.mjs', env);
  open.push(client);
  return client;
}

async function received(client: StdioClient): Promise<Received> {
  return JSON.parse(
    textOf(await client.request('tools/call', { name: 'received', arguments: {} })),
  ) as Received;
}

/** The record once the server has seen `n` aborts: its handlers unwind asynchronously after a cancel. */
async function receivedAfterAborts(client: StdioClient, n = 1): Promise<Received> {
  let record!: Received;
  await expect
    .poll(
      async () => {
        record = await received(client);
        return record.aborts.length;
      },
      { timeout: 20_000, interval: 20 },
    )
    .toBe(n);
  return record;
}

const slow = (args: { steps: number; intervalMs: number; progress?: boolean }) => ({
  name: 'slow',
  arguments: args,
});

describe('stdio client against the SDK v1 McpServer', () => {
  it('delivers progress under the token we minted, strictly increasing, all before the result', async () => {
    const client = start();
    const handshake = await client.connect(SLOW_START);
    expect(handshake).toMatchObject({
      era: 'legacy',
      revision: '2025-11-25',
      serverInfo: { name: 'sdk-v1-fixture' },
    });
    const seen: ProgressParams[] = [];
    let resultArrived = false;
    let progressAfterResult = 0;
    const result = await client.request('tools/call', slow({ steps: 6, intervalMs: 15 }), {
      onprogress: (p) => {
        if (resultArrived) progressAfterResult++;
        seen.push(p);
      },
    });
    resultArrived = true;
    expect(textOf(result)).toBe('done 6');
    expect(seen.length).toBeGreaterThan(0);
    const values = seen.map((p) => p.progress);
    for (let i = 1; i < values.length; i++) expect(values[i]).toBeGreaterThan(values[i - 1]!);
    expect(seen.at(-1)).toMatchObject({ progress: 6, total: 6, message: 'step 6' });
    const record = await received(client);
    expect(record.progressTokens[0]).toBe(seen[0]!.progressToken); // the token on the wire is ours
    expect(progressAfterResult).toBe(0);
  });

  it("sends a cancel that reaches the tool's extra.signal, with the caller's reason, and gets no response", async () => {
    const client = start();
    await client.connect(SLOW_START);
    const controller = new AbortController();
    const call = client.request('tools/call', slow({ steps: 50, intervalMs: 20 }), {
      signal: controller.signal,
      onprogress: () => controller.abort('user pressed stop'),
    });
    const error = await call.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InflightError);
    expect((error as InflightError).code).toBe('CANCELLED');
    const record = await receivedAfterAborts(client);
    expect(record.cancelled).toHaveLength(1);
    expect(record.cancelled[0]!.reason).toMatch(/^CANCELLED: .*user pressed stop/);
    expect(record.aborts).toEqual([
      { requestId: record.cancelled[0]!.requestId, reason: record.cancelled[0]!.reason },
    ]);
    expect(client.endpoint.stats.outboundInFlight).toBe(0);
    expect(client.endpoint.stats.lateResponses).toBe(0); // the cancelled call was never answered
  });

  it('on idle expiry sends notifications/cancelled whose reason names the idle limit', async () => {
    const client = start();
    await client.connect(SLOW_START);
    // The work takes 10 s with no progress: only the idle limit can end it first.
    const error = await client
      .request('tools/call', slow({ steps: 100, intervalMs: 100, progress: false }), { idleMs: 150 })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'InflightError', code: 'IDLE_TIMEOUT' });
    const record = await receivedAfterAborts(client);
    expect(record.cancelled).toHaveLength(1);
    expect(record.cancelled[0]!.reason).toMatch(/^IDLE_TIMEOUT: idle limit of 150 ms/);
    expect(record.aborts[0]!.reason).toMatch(/IDLE_TIMEOUT/);
  });

  it('on ceiling expiry sends a cancel naming the ceiling, even while progress keeps the idle window open', async () => {
    const client = start();
    await client.connect(SLOW_START);
    let updates = 0;
    const error = await client
      .request('tools/call', slow({ steps: 100, intervalMs: 25 }), {
        idleMs: 1_000,
        ceilingMs: 300,
        onprogress: () => updates++,
      })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'InflightError', code: 'CEILING' });
    expect(updates).toBeGreaterThan(2);
    const record = await receivedAfterAborts(client);
    expect(record.cancelled[0]!.reason).toMatch(/^CEILING: hard ceiling of 300 ms/);
    expect(record.aborts[0]!.reason).toMatch(/CEILING/);
  });

  it('never cancels initialize when the connect is aborted; the late answer is absorbed', async () => {
    const client = start({ INIT_DELAY_MS: '1500' });
    const controller = new AbortController();
    const connecting = client
      .connect({ revision: '2025-11-25', signal: controller.signal })
      .catch((e: unknown) => e);
    // Abort once the server has the request: it answers 1.5 s after that.
    await expect.poll(() => client.stderrText()).toMatch(/RECV .*"method":"initialize"/);
    controller.abort('gave up');
    const error = await connecting;
    expect(error).toMatchObject({ name: 'InflightError', code: 'CANCELLED' });
    expect(client.endpoint.stats.lateResponses).toBe(0); // it stopped waiting before the answer came
    await expect.poll(() => client.endpoint.stats.lateResponses, { timeout: 20_000 }).toBe(1);
    const record = await received(client);
    // The next request connects afresh (request() connects when nobody has); nothing was ever cancelled.
    expect(record.methods[0]).toBe('initialize');
    expect(record.methods).toContain('tools/call');
    expect(record.cancelled).toEqual([]);
    expect(client.stderrText()).not.toMatch(/notifications\/cancelled/);
  });

  it('connect (auto) probes server/discover and falls back to initialize for a legacy server', async () => {
    const client = start();
    const handshake = await client.connect(SLOW_START);
    expect(handshake).toMatchObject({ era: 'legacy', revision: '2025-11-25' });
    const record = await received(client);
    expect(record.methods.slice(0, 3)).toEqual([
      'server/discover',
      'initialize',
      'notifications/initialized',
    ]);
    expect(record.cancelled).toEqual([]); // the probe was answered (-32601), so nothing to cancel
  });

  it('fails every pending call at once with UPSTREAM_CLOSED naming the exit code when the child exits', async () => {
    const client = start({ EXIT_AFTER_MS: '150' });
    await client.connect(SLOW_START);
    const calls = [1, 2, 3].map(() =>
      client
        .request('tools/call', slow({ steps: 100, intervalMs: 50 }))
        .catch((e: unknown) => e as InflightError),
    );
    const exit = await client.exited;
    const exitedAt = performance.now();
    const errors = (await Promise.all(calls)) as InflightError[];
    // The calls had 5 s of work left: each ends with UPSTREAM_CLOSED naming the exit (below), not a result;
    // how soon after the exit is load's business, so it is printed, not bounded.
    console.info(`pending calls failed ${Math.round(since(exitedAt))} ms after the exit`);
    expect(exit.code).toBe(3);
    for (const error of errors) {
      expect(error).toBeInstanceOf(InflightError);
      expect(error.code).toBe('UPSTREAM_CLOSED');
      expect(error.message).toMatch(/exited with code 3/);
    }
    await expect(client.request('ping')).rejects.toMatchObject({ code: 'UPSTREAM_CLOSED' });
    expect(client.endpoint.stats.outboundInFlight).toBe(0);
  });
});
