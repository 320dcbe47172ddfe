import { describe, expect, it } from 'vitest';
import { ManualClock } from '../clock/manual-clock.js';
import { DeadlineController } from '../deadline/deadline-controller.js';
import type { InflightError } from '../errors/inflight-error.js';
import { ProgressRelay } from '../relay/progress-relay.js';
import type { ProgressParams } from '../schemas/types.js';
import { Endpoint } from './endpoint.js';
import type { JsonRpcMessage } from './messages.js';

/** A client whose requests are only recorded: the test plays the server by hand. */
function client(): { clock: ManualClock; endpoint: Endpoint; sent: JsonRpcMessage[] } {
  const clock = new ManualClock();
  const sent: JsonRpcMessage[] = [];
  const endpoint = new Endpoint({
    role: 'client',
    transport: 'stdio',
    clock,
    progressRelay: new ProgressRelay({ clock, minIntervalMs: 0 }),
    revision: '2025-06-18',
    channel: { write: (m) => void sent.push(m as JsonRpcMessage) },
  });
  return { clock, endpoint, sent };
}

const tokenOf = (m: JsonRpcMessage | undefined): unknown =>
  (m?.params as { _meta?: { progressToken?: unknown } } | undefined)?._meta?.progressToken;

describe("an outbound call: its progress token is minted in the endpoint's TokenRegistry, matched exactly", () => {
  it('sends a minted token, routes progress by that exact value, and not by a string that looks like it', async () => {
    const { endpoint, sent } = client();
    const seen: ProgressParams[] = [];
    const first = endpoint.request('tools/call', { name: 'a' }, { onprogress: (p) => seen.push(p) });
    const second = endpoint.request('tools/call', { name: 'b' });
    expect(sent.map((m) => [m.id, tokenOf(m)])).toEqual([
      [0, 0],
      [1, 1],
    ]);
    endpoint.receive({
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken: '0', progress: 1 },
    });
    endpoint.receive({
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken: 0, progress: 2, total: 4 },
    });
    expect(seen).toEqual([{ progressToken: 0, progress: 2, total: 4 }]);
    expect(endpoint.stats.outboundTokens).toBe(2);
    endpoint.receive({ jsonrpc: '2.0', id: 0, result: { content: [] } });
    endpoint.receive({ jsonrpc: '2.0', id: 1, result: { content: [] } });
    await Promise.all([first, second]);
    // Settled: the id no longer routes anything, and nothing is held.
    endpoint.receive({
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken: 0, progress: 3 },
    });
    expect(seen).toHaveLength(1);
    expect(endpoint.stats).toMatchObject({ outboundInFlight: 0, outboundTokens: 0 });
  });

  it('mints tokens apart from ids: a call sent without a token takes an id but no token', async () => {
    const { endpoint, sent } = client();
    const quiet = endpoint.request('tools/call', { name: 'a' }, { progress: false });
    const seen: number[] = [];
    const loud = endpoint.request('tools/call', { name: 'b' }, { onprogress: (p) => seen.push(p.progress) });
    expect(sent.map((m) => [m.id, tokenOf(m)])).toEqual([
      [0, undefined],
      [1, 0],
    ]);
    endpoint.receive({
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken: 0, progress: 1 },
    });
    expect(seen).toEqual([1]);
    expect(endpoint.stats.outboundTokens).toBe(1);
    endpoint.receive({ jsonrpc: '2.0', id: 0, result: { content: [] } });
    endpoint.receive({ jsonrpc: '2.0', id: 1, result: { content: [] } });
    await Promise.all([quiet, loud]);
    expect(endpoint.stats.outboundTokens).toBe(0);
  });

  it("sends a caller's own token, routes by it, and refuses a duplicate active one with DuplicateTokenError [PG4]", async () => {
    const { endpoint, sent } = client();
    const seen: number[] = [];
    const first = endpoint.request(
      'tools/call',
      { name: 'a' },
      { progressToken: 'job-1', onprogress: (p) => seen.push(p.progress) },
    );
    await expect(
      endpoint.request('tools/call', { name: 'b' }, { progressToken: 'job-1' }),
    ).rejects.toMatchObject({
      name: 'DuplicateTokenError',
      token: 'job-1',
    });
    expect(sent.map((m) => tokenOf(m))).toEqual(['job-1']); // the refused call wrote nothing
    endpoint.receive({
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken: 'job-1', progress: 3 },
    });
    expect(seen).toEqual([3]);
    endpoint.receive({ jsonrpc: '2.0', id: 0, result: { content: [] } });
    await first;
    // Released with its call: the token can be used again.
    const again = endpoint.request('tools/call', { name: 'c' }, { progressToken: 'job-1' });
    expect(tokenOf(sent.at(-1))).toBe('job-1');
    endpoint.receive({ jsonrpc: '2.0', id: 2, result: { content: [] } });
    await again;
    expect(endpoint.stats).toMatchObject({ outboundInFlight: 0, outboundTokens: 0 });
  });

  it('a bad limit rejects the call instead of throwing from request()', async () => {
    const { endpoint, sent } = client();
    const call = endpoint.request('tools/call', { name: 'a' }, { idleMs: 0 });
    await expect(call).rejects.toThrow(RangeError);
    expect(sent).toHaveLength(0);
  });

  it('a call whose parent deadline has already ended fails at once with its reason and sends nothing', async () => {
    const { clock, endpoint, sent } = client();
    const parent = new DeadlineController({ clock, ceilingMs: 5 });
    clock.advance(5);
    await expect(endpoint.request('tools/call', { name: 'a' }, { parent })).rejects.toMatchObject({
      code: 'CEILING',
    });
    expect(sent).toHaveLength(0);
    expect(endpoint.stats.outboundInFlight).toBe(0);
  });
});

describe('DeadlineOptions.onAbort', () => {
  it('gets the reason and the deadline, so one function can serve many deadlines', () => {
    const clock = new ManualClock();
    const ended: [string, DeadlineController][] = [];
    const onAbort = (reason: unknown, deadline: DeadlineController): void => {
      ended.push([(reason as InflightError).code, deadline]);
    };
    const a = new DeadlineController({ clock, idleMs: 10, onAbort });
    const b = new DeadlineController({ clock, ceilingMs: 20, onAbort });
    clock.advance(20);
    expect(ended).toEqual([
      ['IDLE_TIMEOUT', a],
      ['CEILING', b],
    ]);
  });
});
