// The server-side reporter (withProgress) inside real SDK servers, v1 and v2, stdio and HTTP, observed by
// plain SDK clients: what these clients receive is exactly what the server sent.

import type { Client as ClientV2 } from '@modelcontextprotocol/client';
import type { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import * as helpers from '../src/index.js';
import {
  absorbLateMessages,
  callWithDeadline,
  InflightError,
  keepProgressOrder,
  type Progress,
} from '../src/index.js';
import { createV1Server, newState as newV1State } from './fixtures/v1-server.mjs';
import { createV2Factory, newState as newV2State } from './fixtures/v2-server.mjs';
import {
  bundleHelpers,
  closeAll,
  eventually,
  plainCall,
  removeBundle,
  V1_FIXTURE,
  V2_FIXTURE,
  v1Http,
  v1HttpServer,
  v1Stdio,
  v2Http,
  v2HttpServer,
  v2Stdio,
} from './support/e2e.js';

let entry = '';
beforeAll(async () => {
  entry = await bundleHelpers();
});
afterAll(() => removeBundle(entry));
afterEach(closeAll);

const connections: { name: string; connect(): Promise<ClientV1 | ClientV2> }[] = [
  { name: 'v1 server, stdio child', connect: () => v1Stdio(V1_FIXTURE, entry) },
  {
    name: 'v1 server, Streamable HTTP',
    connect: async () => v1Http(await v1HttpServer(() => createV1Server(newV1State(), helpers))),
  },
  {
    name: 'v2 server, stdio child (legacy era)',
    connect: () => v2Stdio(V2_FIXTURE, { helpersEntry: entry }),
  },
  {
    name: 'v2 server, Streamable HTTP, 2026-07-28 (pinned v2 client)',
    connect: async () => v2Http(await v2HttpServer(createV2Factory(newV2State(), helpers)), { pin: true }),
  },
];

// A plain SDK client drops progress that arrives in the same read as the response (progress-order.test.ts
// shows it deterministically); the flushed final value always does, so the observing client gets the fix.
const links = connections.map(({ name, connect }) => ({
  name,
  connect: async () => {
    const client = await connect();
    keepProgressOrder(client);
    return client;
  },
}));

function expectStrictlyIncreasing(seen: Progress[]): void {
  for (let i = 1; i < seen.length; i++) expect(seen[i]!.progress).toBeGreaterThan(seen[i - 1]!.progress);
}

describe.each(links)('withProgress in a $name', (link) => {
  it('coalesces a burst of 1000 updates and still delivers the last one before the result', async () => {
    const client = await link.connect();
    const seen: Progress[] = [];
    const result = await plainCall(client, 'reported', { burst: 1000, steps: 0, intervalMs: 0 }, (p) =>
      seen.push(p),
    );
    expect(result).toMatchObject({ content: [{ type: 'text' }] });
    expectStrictlyIncreasing(seen);
    expect(seen.length).toBeLessThanOrEqual(3);
    expect(seen.at(-1)).toEqual({ progress: 1000, total: 1000, message: 'burst 1000' });
  });

  it('passes step progress in order, ending on the final value', async () => {
    const client = await link.connect();
    const seen: Progress[] = [];
    await plainCall(client, 'reported', { steps: 6, intervalMs: 20 }, (p) => seen.push(p));
    expectStrictlyIncreasing(seen);
    expect(seen.at(-1)).toEqual({ progress: 6, total: 6, message: 'step 6' });
  });

  it('sends nothing when the host asked for no progress', async () => {
    const client = await link.connect();
    const errors: Error[] = [];
    client.onerror = (e) => errors.push(e);
    const late = absorbLateMessages(client);
    await plainCall(client, 'reported', { burst: 50, steps: 3, intervalMs: 10 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(late.lateProgress).toBe(0);
    expect(errors).toEqual([]);
  });

  it('goes quiet once the request is cancelled, even if the tool keeps reporting', async () => {
    const client = await link.connect();
    const late = absorbLateMessages(client);
    const stop = new AbortController();
    const seen: Progress[] = [];
    const onprogress = (p: Progress): void => {
      seen.push(p);
      if (seen.length === 2) stop.abort('stop'); // cancel mid-flight, once progress is known to flow
    };
    const error = await callWithDeadline(
      client,
      {
        method: 'tools/call',
        params: { name: 'reported', arguments: { steps: 15, intervalMs: 30, ignoreCancel: true } },
      },
      { signal: stop.signal, onprogress },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InflightError);
    expect((error as InflightError).code).toBe('CANCELLED');
    expect(seen).toHaveLength(2);
    // A notification already on the wire when the cancel left may still cross it [CN14]; after that the
    // tool runs on for ~400 ms reporting every 30 ms, and none of it may reach the host.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const crossed = late.lateProgress;
    expect(crossed).toBeLessThanOrEqual(2);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(late.lateProgress).toBe(crossed);
  });
});

describe('withProgress when the transport is gone', () => {
  it('never throws into the tool when a send fails', async () => {
    const state = newV1State();
    const client = await v1Http(await v1HttpServer(() => createV1Server(state, helpers)));
    await eventually(async () => ((await plainCall(client, 'status', {})) ? true : undefined));
    const call = plainCall(client, 'reported', { steps: 20, intervalMs: 20 }, () => {}).catch(() => 'closed');
    setTimeout(() => void client.close(), 100);
    expect(await call).toBe('closed');
    // The tool kept running with nothing to send to, and finished without an exception.
    await eventually(() => (state.running === 0 ? true : undefined), 2_000);
    expect(state.completed + state.cancelled).toBe(1);
  });
});
