// The host helper against real SDK clients and servers, v1 and v2, stdio and HTTP, both eras.

import type { Client as ClientV2 } from '@modelcontextprotocol/client';
import type { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, describe, expect, it } from 'vitest';
import { absorbLateMessages, callWithDeadline, InflightError, type Progress } from '../src/index.js';
import { createV1Server, newState as newV1State } from './fixtures/v1-server.mjs';
import { createV2Factory, newState as newV2State } from './fixtures/v2-server.mjs';
import {
  closeAll,
  eventually,
  type FixtureState,
  status,
  v1Http,
  v1HttpServer,
  v1Stdio,
  v2Http,
  v2HttpServer,
  v2Stdio,
} from './support/e2e.js';

interface Link {
  name: string;
  connect(): Promise<{ client: ClientV1 | ClientV2; state(): Promise<FixtureState> }>;
  /** Whether the cancel's reason reaches the tool: not on 2026-07-28 HTTP, where closing the stream is the cancel [CN24]. */
  reasonTravels: boolean;
}

const inProcess = (state: FixtureState) => async () => state;
const viaTool = (client: ClientV1 | ClientV2) => () => status(client);

const links: Link[] = [
  {
    name: 'stdio, v1 → v1',
    reasonTravels: true,
    connect: async () => {
      const client = await v1Stdio();
      return { client, state: viaTool(client) };
    },
  },
  {
    name: 'HTTP, v1 → v1',
    reasonTravels: true,
    connect: async () => {
      const state = newV1State();
      const client = await v1Http(await v1HttpServer(() => createV1Server(state)));
      return { client, state: inProcess(state) };
    },
  },
  {
    name: 'stdio, v2 → v2, legacy era',
    reasonTravels: true,
    connect: async () => {
      const client = await v2Stdio();
      return { client, state: viaTool(client) };
    },
  },
  {
    name: 'stdio, v2 pinned 2026-07-28 → v2',
    reasonTravels: true,
    connect: async () => {
      const client = await v2Stdio(undefined, { pin: true });
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      return { client, state: viaTool(client) };
    },
  },
  {
    name: 'HTTP, v2 pinned 2026-07-28 → v2',
    reasonTravels: false,
    connect: async () => {
      const state = newV2State();
      const client = await v2Http(await v2HttpServer(createV2Factory(state)), { pin: true });
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      return { client, state: inProcess(state) };
    },
  },
];

const work = (args: Record<string, unknown>) => ({
  method: 'tools/call' as const,
  params: { name: 'work', arguments: args },
});

async function rejection(promise: Promise<unknown>): Promise<InflightError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(InflightError);
  return error as InflightError;
}

// Core computes a ceiling's limit as (ceilingAt - startedAt) on a float clock, so the text can read
// "300.0000000000009 ms" (reported as a core bug); match the cause and the limit, not the float noise.
const CEILING_300 = /^CEILING: hard ceiling of (299\.9\d*|300(\.\d+)?) ms reached/;

afterEach(closeAll);

/**
 * Connects, then makes one untimed call of the tool under test: a first call pays for one-off work (with a
 * pin, v2 probes on a sibling process and spawns the session child only as connect() returns, ~300 ms here;
 * schemas compile on first use) that would otherwise eat into a 200 ms limit on a busy machine.
 */
async function connectWarm(link: Link) {
  const connection = await link.connect();
  await callWithDeadline(connection.client, work({ steps: 1, intervalMs: 0 }));
  return connection;
}

describe.each(links)('callWithDeadline: $name', (link) => {
  it('fires the ceiling with no progress ever sent, and cancels the tool upstream (SDK #2695)', async () => {
    const { client, state } = await connectWarm(link);
    const started = Date.now();
    const error = await rejection(
      callWithDeadline(client, work({ steps: 100, intervalMs: 50, progress: false }), {
        idleMs: 10_000,
        ceilingMs: 300,
      }),
    );
    const elapsedMs = Date.now() - started;
    // The ceiling's own timer ended it: not the idle window (10 s, which would read IDLE_TIMEOUT) and not
    // the tool's end (5 s of steps, which would be a result), and never before the 300 ms.
    expect(error.code).toBe('CEILING');
    expect(error.message).toMatch(/hard ceiling of (299\.9\d*|300(\.\d+)?) ms/);
    expect(elapsedMs).toBeGreaterThanOrEqual(290);
    const seen = await eventually(async () => {
      const s = await state();
      return s.cancelled === 1 ? s : undefined;
    });
    expect(seen.aborts).toHaveLength(1);
    if (link.reasonTravels) expect(seen.aborts[0]).toMatch(CEILING_300);
  });

  it("surfaces a user's abort as CANCELLED, not as a timeout (SDK #2165)", async () => {
    const { client, state } = await connectWarm(link);
    const stop = new AbortController();
    setTimeout(() => stop.abort('user pressed stop'), 150);
    const error = await rejection(
      callWithDeadline(client, work({ steps: 100, intervalMs: 50 }), { signal: stop.signal }),
    );
    expect(error.code).toBe('CANCELLED');
    expect(error.isTimeout).toBe(false);
    expect(error.cause).toBe('user pressed stop');
    const seen = await eventually(async () => {
      const s = await state();
      return s.cancelled === 1 ? s : undefined;
    });
    if (link.reasonTravels)
      expect(seen.aborts[0]).toBe('CANCELLED: cancelled by the caller: user pressed stop');
  });

  it('lets progress reset the idle limit with no progress callback (SDK #2076)', async () => {
    const { client } = await connectWarm(link);
    // 15 steps of 100 ms = 1.5 s of work, past the 1 s idle limit, each step reporting progress: a step
    // would have to stall ten times over for load to fire the idle limit.
    const result = await callWithDeadline(client, work({ steps: 15, intervalMs: 100 }), {
      idleMs: 1_000,
      ceilingMs: 30_000,
    });
    expect(result.content).toEqual([{ type: 'text', text: 'done' }]);
    // Control: the same work without progress is ended by the idle limit.
    const error = await rejection(
      callWithDeadline(client, work({ steps: 15, intervalMs: 100, progress: false }), {
        idleMs: 1_000,
        ceilingMs: 30_000,
      }),
    );
    expect(error.code).toBe('IDLE_TIMEOUT');
  });

  it('passes strictly increasing progress with total and message to a callback', async () => {
    const { client } = await connectWarm(link);
    const seen: Progress[] = [];
    await callWithDeadline(client, work({ steps: 4, intervalMs: 20 }), { onprogress: (p) => seen.push(p) });
    expect(seen).toEqual([1, 2, 3, 4].map((i) => ({ progress: i, total: 4, message: `step ${i}` })));
  });
});

describe('late traffic stays off onerror', () => {
  it('v1 stdio: progress a stubborn server keeps sending after our cancel is absorbed and counted', async () => {
    const client = await v1Stdio();
    const userErrors: Error[] = [];
    client.onerror = (e) => userErrors.push(e);
    const late = absorbLateMessages(client);
    const stop = new AbortController();
    setTimeout(() => stop.abort('stop'), 120);
    const error = await rejection(
      callWithDeadline(client, work({ steps: 6, intervalMs: 50, ignoreCancel: true }), {
        signal: stop.signal,
      }),
    );
    expect(error.code).toBe('CANCELLED');
    await eventually(() => (late.lateProgress >= 3 ? true : undefined));
    expect(userErrors).toEqual([]);
  });

  it('v2 legacy stateless HTTP: the cancel never reaches the handler (SDK behaviour), so its progress and response come late', async () => {
    const state = newV2State();
    const client = await v2Http(await v2HttpServer(createV2Factory(state)));
    const userErrors: Error[] = [];
    client.onerror = (e) => userErrors.push(e);
    const late = absorbLateMessages(client);
    const stop = new AbortController();
    setTimeout(() => stop.abort('stop'), 100);
    const error = await rejection(
      callWithDeadline(client, work({ steps: 6, intervalMs: 50 }), { signal: stop.signal }),
    );
    expect(error.code).toBe('CANCELLED');
    await eventually(() => (late.lateResponses === 1 ? true : undefined));
    expect(late.lateProgress).toBeGreaterThanOrEqual(2);
    expect(userErrors).toEqual([]);
    expect(state.completed).toBe(1);
  });
});

describe('connection loss', () => {
  it.each([
    ['v1', () => v1Stdio()],
    ['v2', () => v2Stdio()],
  ] as const)(
    '%s stdio: a server that dies mid-call rejects as DISCONNECTED, not as a timeout',
    async (_major, connect) => {
      const client = await connect();
      const pid = (client.transport as { pid?: number | null } | undefined)?.pid;
      expect(pid).toBeTypeOf('number');
      const killOnFirstProgress = (p: Progress): void => {
        if (p.progress === 1) process.kill(pid!, 'SIGKILL');
      };
      const error = await rejection(
        callWithDeadline(client, work({ steps: 100, intervalMs: 20 }), { onprogress: killOnFirstProgress }),
      );
      expect(error.code).toBe('DISCONNECTED');
    },
  );
});
