// What a plain-JavaScript tool returns, as the official SDK v2 Client sees it: our tool layer (core's
// serveTools on an Endpoint) behind an in-memory transport, with the v2 Client as the peer. Before the
// check, `run: () => 42` went out as {"result": 42} and the v2 Client dropped the answer and never settled.

import { Endpoint, serveLifecycle } from '@mcp-inflight/core';
import { defineTool, serveTools } from '@mcp-inflight/server';
import { Client } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';

const open: Client[] = [];
afterEach(async () => {
  await Promise.allSettled(open.splice(0).map((c) => c.close()));
});

async function connected(): Promise<Client> {
  const circular: Record<string, unknown> = { content: [{ type: 'text', text: 'loop' }] };
  circular.self = circular;
  const returns: Record<string, unknown> = { number: 42, nothing: undefined, date: new Date(0), circular };
  // The transport the v2 Client talks through: messages cross as JSON text, as on a pipe.
  const transport = {
    onmessage: undefined as ((message: unknown) => void) | undefined,
    onclose: undefined as (() => void) | undefined,
    onerror: undefined as ((error: Error) => void) | undefined,
    start: async () => {},
    send: async (message: unknown) => {
      const text = JSON.stringify(message);
      queueMicrotask(() => server.receiveText(text));
    },
    close: async () => {
      server.close();
      transport.onclose?.();
    },
  };
  const server = new Endpoint({
    role: 'server',
    transport: 'stdio',
    channel: {
      write: (message) => {
        const text = JSON.stringify(message); // a cycle throws here: the endpoint answers -32603
        queueMicrotask(() => transport.onmessage?.(JSON.parse(text)));
      },
    },
  });
  serveLifecycle(server, { serverInfo: { name: 'js-tools', version: '1.0.0' }, capabilities: { tools: {} } });
  serveTools(server, [
    defineTool({
      name: 'js',
      input: z.object({ what: z.string() }),
      run: (({ what }: { what: string }) => returns[what]) as never,
    }),
  ]);
  const client = new Client({ name: 'host', version: '2.0.0' });
  await client.connect(transport as never);
  open.push(client);
  return client;
}

describe('a JavaScript tool returning what it may not, seen by the SDK v2 Client', () => {
  it.each([
    ['number', 'the number 42'],
    ['nothing', 'undefined'],
    ['date', 'a Date'],
  ])('returning %s: an isError result naming the mistake, and the server serves on', async (what, named) => {
    const client = await connected();
    const result = await client.callTool({ name: 'js', arguments: { what } });
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([
      {
        type: 'text',
        text: expect.stringContaining(`js returned ${named}, not a string or a CallToolResult`),
      },
    ]);
    await expect(client.listTools()).resolves.toMatchObject({ tools: [{ name: 'js' }] });
  });

  it('a circular result: an error response (-32603), and the server serves on', async () => {
    const client = await connected();
    await expect(client.callTool({ name: 'js', arguments: { what: 'circular' } })).rejects.toMatchObject({
      code: -32603,
    });
    await expect(client.listTools()).resolves.toMatchObject({ tools: [{ name: 'js' }] });
  });
});
