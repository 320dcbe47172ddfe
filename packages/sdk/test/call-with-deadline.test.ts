import { ManualClock } from '@mcp-inflight/core/testing';
import { describe, expect, it } from 'vitest';
import { callWithDeadline, passthroughSchema, type SdkRequestOptions } from '../src/index.js';

interface Recorded {
  via: string;
  args: unknown[];
}

function fakeClient(major: 1 | 2) {
  const calls: Recorded[] = [];
  const client = {
    onerror: undefined as ((error: Error) => void) | undefined,
    request: (...args: unknown[]) => {
      calls.push({ via: 'request', args });
      return Promise.resolve({ ok: true });
    },
    callTool: (...args: unknown[]) => {
      calls.push({ via: 'callTool', args });
      return Promise.resolve({ content: [] });
    },
    ...(major === 2 ? { getProtocolEra: () => 'legacy' } : {}),
  };
  return { client, calls };
}

const tool = { method: 'tools/call' as const, params: { name: 'work', arguments: { steps: 1 } } };

describe('callWithDeadline picks the SDK entry point', () => {
  it('v1 tools/call: callTool(params, undefined, options), so the SDK validates as usual', async () => {
    const { client, calls } = fakeClient(1);
    await callWithDeadline(client, tool, { clock: new ManualClock() });
    expect(calls).toHaveLength(1);
    expect(calls[0]?.via).toBe('callTool');
    expect(calls[0]?.args[0]).toBe(tool.params);
    expect(calls[0]?.args[1]).toBeUndefined();
    expect(typeof (calls[0]!.args[2] as SdkRequestOptions).onprogress).toBe('function');
  });

  it('v2 tools/call: callTool(params, options)', async () => {
    const { client, calls } = fakeClient(2);
    await callWithDeadline(client, tool, { clock: new ManualClock() });
    expect(calls[0]?.via).toBe('callTool');
    expect((calls[0]!.args[1] as SdkRequestOptions).signal).toBeInstanceOf(AbortSignal);
  });

  it('v1 other methods: request(request, schema) with a passthrough schema unless one is given', async () => {
    const { client, calls } = fakeClient(1);
    const request = { method: 'resources/read', params: { uri: 'file:///x' } };
    await callWithDeadline(client, request, { clock: new ManualClock() });
    expect(calls[0]?.args[1]).toBe(passthroughSchema);
    const schema = { safeParse: (d: unknown) => ({ success: true, data: d }) };
    await callWithDeadline(client, request, { clock: new ManualClock(), resultSchema: schema });
    expect(calls[1]?.args[1]).toBe(schema);
  });

  it('v2 other methods: request(request, options), or (request, schema, options)', async () => {
    const { client, calls } = fakeClient(2);
    const request = { method: 'prompts/get', params: { name: 'p' } };
    await callWithDeadline(client, request, { clock: new ManualClock() });
    expect((calls[0]!.args[1] as SdkRequestOptions).timeout).toBe(2 ** 31 - 1);
    await callWithDeadline(
      client,
      { method: 'x/custom' },
      { clock: new ManualClock(), resultSchema: passthroughSchema },
    );
    expect(calls[1]?.args[1]).toBe(passthroughSchema);
  });

  it('installs the late-message filter on the client unless told not to', async () => {
    const { client } = fakeClient(1);
    await callWithDeadline(client, tool, { clock: new ManualClock(), absorbLate: false });
    expect(Object.getOwnPropertyDescriptor(client, 'onerror')?.get).toBeUndefined();
    await callWithDeadline(client, tool, { clock: new ManualClock() });
    expect(Object.getOwnPropertyDescriptor(client, 'onerror')?.get).toBeTypeOf('function');
  });

  it('the passthrough schema passes any value in both schema dialects', () => {
    expect(passthroughSchema.safeParse({ a: 1 })).toEqual({ success: true, data: { a: 1 } });
    expect(passthroughSchema['~standard'].validate(null)).toEqual({ value: null });
  });
});
