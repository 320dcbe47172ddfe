// withInflight: an SDK v1 and a v2 Client wrapped once, against real SDK servers over stdio; every call
// below is a plain SDK call site (`callTool`, `request`), unchanged. Real time, small limits.
import type { Client as ClientV2 } from '@modelcontextprotocol/client';
import type { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, describe, expect, it } from 'vitest';
import { InflightError, withInflight } from '../src/index.js';
import { closeAll, eventually, status, v1Stdio, v2Stdio } from './support/e2e.js';

afterEach(closeAll);

const clients: Array<{ name: string; connect: () => Promise<ClientV1 | ClientV2> }> = [
  { name: 'SDK v1 Client', connect: () => v1Stdio() },
  { name: 'SDK v2 Client', connect: () => v2Stdio() },
];

/** A plain SDK `callTool`, as an app already writes it (v1 takes a result schema second). */
function callTool(client: ClientV1 | ClientV2, args: Record<string, unknown>, options?: object) {
  const params = { name: 'work', arguments: args };
  return 'getProtocolEra' in client
    ? (client as ClientV2).callTool(params, options)
    : (client as ClientV1).callTool(params, undefined, options);
}

async function rejection(promise: Promise<unknown>): Promise<InflightError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(InflightError);
  return error as InflightError;
}

describe.each(clients)('withInflight: $name wrapped once', ({ connect }) => {
  it('a long call survives on progress past its idle window', async () => {
    const client = withInflight(await connect(), { idleMs: 1_500 });
    // 7 steps of 250 ms (1.75 s): past the 1.5 s window in all, each step's progress resetting it, with a margin
    // of 1.25 s per step that a loaded machine's scheduling does not eat.
    const result = (await callTool(client, { steps: 7, intervalMs: 250 })) as { content: unknown[] };
    expect(result.content).toEqual([{ type: 'text', text: 'done' }]);
  });

  it('a silent call ends at its idle limit, and the server is told (cancel on the wire)', async () => {
    const client = withInflight(await connect(), { idleMs: 300 });
    const error = await rejection(callTool(client, { steps: 1, intervalMs: 5_000, progress: false }));
    expect(error.code).toBe('IDLE_TIMEOUT');
    expect(error.message).toMatch(/idle limit of 300 ms/);
    const state = await eventually(async () => {
      const s = await status(client);
      return s.cancelled === 1 && s.running === 0 ? s : undefined;
    });
    expect(state.aborts[0]).toMatch(/^IDLE_TIMEOUT: /);
  });

  it("a user's abort is CANCELLED, never a timeout; the per-call timeout overrides the default", async () => {
    const client = withInflight(await connect(), { idleMs: 60_000 });
    const stop = new AbortController();
    // The user stops at the first progress update, passed to the call's own onprogress.
    const onprogress = () => stop.abort('user pressed stop');
    const call = callTool(client, { steps: 100, intervalMs: 50 }, { signal: stop.signal, onprogress });
    const error = await rejection(call);
    expect(error.code).toBe('CANCELLED');
    expect(error.isTimeout).toBe(false);
    // `timeout` in the SDK options the call already passes is its idle window.
    const silent = callTool(client, { steps: 1, intervalMs: 5_000, progress: false }, { timeout: 200 });
    expect((await rejection(silent)).code).toBe('IDLE_TIMEOUT');
    await eventually(async () => {
      const s = await status(client);
      return s.cancelled === 2 && s.running === 0 ? s : undefined;
    });
  });

  it('request() is wrapped too: a ceiling fires by itself while progress keeps coming', async () => {
    const client = withInflight(await connect(), { ceilingMs: 400 });
    const request = {
      method: 'tools/call',
      params: { name: 'work', arguments: { steps: 100, intervalMs: 20 } },
    };
    const pending =
      'getProtocolEra' in client
        ? (client as ClientV2).request(request as never)
        : (client as ClientV1).request(
            request as never,
            { safeParse: (data: unknown) => ({ success: true, data }) } as never,
          );
    expect((await rejection(pending)).code).toBe('CEILING');
  });
});
