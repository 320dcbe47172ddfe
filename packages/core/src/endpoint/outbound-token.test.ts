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
    relay: new ProgressRelay({ clock, minIntervalMs: 0 }),
    revision: '2025-06-18',
    channel: { write: (m) => void sent.push(m as JsonRpcMessage) },
  });
  return { clock, endpoint, sent };
}

const tokenOf = (m: JsonRpcMessage | undefined): unknown =>
  (m?.params as { _meta?: { progressToken?: unknown } } | undefined)?._meta?.progressToken;

describe('an outbound call: its progress token is its id, matched exactly', () => {
  it('sends its id as its token, routes progress by that exact value, and not by a string that looks like it', async () => {
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
