// The SDK's own Protocol, driven by a scripted transport that delivers a progress notification and the
// response in one go (as one stdio chunk or SSE batch does): deterministic, no I/O, no timers.

import { Client as ClientV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { describe, expect, it } from 'vitest';
import { callWithDeadline, keepProgressOrder, type Progress } from '../src/index.js';

interface Message {
  jsonrpc: '2.0';
  id?: number | string;
  method?: string;
  params?: { _meta?: { progressToken?: number | string } } & Record<string, unknown>;
}

/** Answers initialize, and answers tools/call with progress 1 and 2 followed at once by the result. */
function scriptedTransport() {
  const transport = {
    onmessage: undefined as ((message: unknown, extra?: unknown) => void) | undefined,
    onclose: undefined as (() => void) | undefined,
    onerror: undefined as ((error: Error) => void) | undefined,
    async start() {},
    async close() {
      transport.onclose?.();
    },
    async send(message: Message) {
      if (message.id === undefined) return;
      const deliver = (m: unknown) => transport.onmessage?.(m);
      if (message.method === 'initialize') {
        queueMicrotask(() =>
          deliver({
            jsonrpc: '2.0',
            id: message.id,
            result: {
              protocolVersion: '2025-06-18',
              capabilities: { tools: {} },
              serverInfo: { name: 's', version: '1' },
            },
          }),
        );
        return;
      }
      const progressToken = message.params?._meta?.progressToken;
      queueMicrotask(() => {
        // One read, three messages, handed over synchronously: this is what the transports do with a chunk.
        deliver({
          jsonrpc: '2.0',
          method: 'notifications/progress',
          params: { progressToken, progress: 1, total: 2 },
        });
        deliver({
          jsonrpc: '2.0',
          method: 'notifications/progress',
          params: { progressToken, progress: 2, total: 2 },
        });
        deliver({ jsonrpc: '2.0', id: message.id, result: { content: [] } });
      });
    },
  };
  return transport;
}

const call = { name: 'work', arguments: {} };

/** Calls a tool with onprogress through the SDK alone (v1 takes a result schema second, v2 options). */
function plainCall(client: ClientV1 | ClientV2, onprogress: (p: unknown) => void): Promise<unknown> {
  return client instanceof ClientV1
    ? client.callTool(call, undefined, { onprogress })
    : client.callTool(call, { onprogress });
}

describe.each([
  ['v1', () => new ClientV1({ name: 'h', version: '1' })],
  ['v2', () => new ClientV2({ name: 'h', version: '2' })],
] as const)('SDK %s client', (_major, makeClient) => {
  it('on its own, drops the progress that arrived together with the response (the fault)', async () => {
    const client = makeClient();
    const errors: string[] = [];
    client.onerror = (e) => errors.push(e.message);
    await client.connect(scriptedTransport() as never);
    const seen: unknown[] = [];
    await plainCall(client, (p) => seen.push(p));
    await Promise.resolve();
    expect(seen).toEqual([]);
    expect(errors.filter((e) => e.includes('unknown token'))).toHaveLength(2);
  });

  it('with keepProgressOrder, delivers that progress before the response', async () => {
    const client = makeClient();
    await client.connect(scriptedTransport() as never);
    expect(keepProgressOrder(client)).toBe(true);
    expect(keepProgressOrder(client)).toBe(true); // idempotent: not wrapped twice
    const seen: unknown[] = [];
    await plainCall(client, (p) => seen.push(p));
    expect(seen).toEqual([
      { progress: 1, total: 2 },
      { progress: 2, total: 2 },
    ]);
  });

  it('callWithDeadline applies it, so a callback sees the last value', async () => {
    const client = makeClient();
    await client.connect(scriptedTransport() as never);
    const seen: Progress[] = [];
    await callWithDeadline(
      client,
      { method: 'tools/call', params: call },
      { onprogress: (p) => seen.push(p) },
    );
    expect(seen.map((p) => p.progress)).toEqual([1, 2]);
  });
});

describe('keepProgressOrder', () => {
  it('does nothing before connect', () => {
    expect(keepProgressOrder(new ClientV1({ name: 'h', version: '1' }))).toBe(false);
    expect(keepProgressOrder({})).toBe(false);
  });
});
