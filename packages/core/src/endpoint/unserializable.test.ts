import { describe, expect, it } from 'vitest';
import { ManualClock } from '../clock/manual-clock.js';
import { JSONRPC_CODE_BY_CAUSE } from '../errors/causes.js';
import { InflightError } from '../errors/inflight-error.js';
import type { SendIntent } from './channel.js';
import { Endpoint } from './endpoint.js';
import type { JsonRpcMessage } from './messages.js';

function client(): { endpoint: Endpoint; sent: [unknown, SendIntent | undefined][] } {
  const sent: [unknown, SendIntent | undefined][] = [];
  const endpoint = new Endpoint({
    role: 'client',
    transport: 'stdio',
    clock: new ManualClock(),
    revision: '2025-06-18',
    channel: { write: (message, _related, intent) => void sent.push([message, intent]) },
  });
  return { endpoint, sent };
}

function nested(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = {};
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

/** Whether this runtime's JSON.stringify throws on `value` (V8 before Node 26 overflows its stack on deep nesting; Node 26 and Deno do not). */
function stringifyThrows(value: unknown): boolean {
  try {
    JSON.stringify(value);
    return false;
  } catch {
    return true;
  }
}

const cycle = (): Record<string, unknown> => {
  const value: Record<string, unknown> = {};
  value.self = value;
  return value;
};

describe('a request that cannot be serialized', () => {
  it.each([
    ['a BigInt', () => ({ n: 1n })],
    ['a cycle', cycle],
    // A throwing toJSON fails on every runtime; how deep a value may nest is the runtime's call (below).
    [
      'a toJSON that throws',
      () => ({
        v: {
          toJSON: () => {
            throw new RangeError('not serializable');
          },
        },
      }),
    ],
  ])(
    'with %s rejects its caller at once with UNSERIALIZABLE, writes nothing and keeps no entry',
    async (_, params) => {
      const { endpoint, sent } = client();
      const error = await endpoint.request('tools/call', { name: 'x', arguments: params() }).catch((e) => e);
      expect(InflightError.is(error)).toBe(true);
      expect(error.code).toBe('UNSERIALIZABLE');
      expect(error.message).toMatch(/could not be serialized/);
      expect(error.toJsonRpc()).toMatchObject({
        code: JSONRPC_CODE_BY_CAUSE.UNSERIALIZABLE,
        data: { cause: 'UNSERIALIZABLE', method: 'tools/call' },
      });
      expect(sent).toEqual([]);
      expect(endpoint.stats).toMatchObject({ outboundInFlight: 0, outboundTokens: 0 });
      // The endpoint still serves: the next request goes out, serialized once by core.
      void endpoint.request('ping').catch(() => {});
      const [message, intent] = sent[0] ?? [];
      expect(intent).toMatchObject({ kind: 'request', method: 'ping', id: (message as JsonRpcMessage).id });
      expect(JSON.parse((intent as { text: string }).text)).toEqual(message);
    },
  );

  it('nesting 200,000 deep: UNSERIALIZABLE where the runtime cannot stringify it, else written as is', async () => {
    const { endpoint, sent } = client();
    const deep = nested(200_000);
    const call = endpoint.request('tools/call', { name: 'x', arguments: deep });
    if (stringifyThrows(deep)) {
      const error = await call.catch((e) => e);
      expect(error).toMatchObject({ code: 'UNSERIALIZABLE' });
      expect(sent).toEqual([]);
      expect(endpoint.stats).toMatchObject({ outboundInFlight: 0, outboundTokens: 0 });
    } else {
      call.catch(() => {});
      // Serialized once by core, and only because the runtime could.
      expect(sent).toHaveLength(1);
      expect((sent[0]![1] as { text: string }).text.length).toBeGreaterThan(200_000 * 5);
      expect(endpoint.stats).toMatchObject({ outboundInFlight: 1 });
    }
  });

  it('reads back as the same cause when a peer (a proxy) answers with it', async () => {
    const { endpoint, sent } = client();
    const call = endpoint.request('tools/call', { name: 'x' });
    const id = (sent[0]![0] as JsonRpcMessage).id;
    const wire = new InflightError('UNSERIALIZABLE').toJsonRpc();
    endpoint.receive({ jsonrpc: '2.0', id, error: wire });
    const error = await call.catch((e) => e);
    expect(error).toMatchObject({ code: 'UNSERIALIZABLE', origin: 'remote' });
  });
});
