import { connectLifecycle } from '@mcp-inflight/client';
import { Endpoint, JsonRpcError, serveLifecycle } from '@mcp-inflight/core';
import { ManualClock } from '@mcp-inflight/core/testing';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { defineTool } from './define-tool.js';
import { serveTools } from './serve-tools.js';
import { ToolList } from './tool-list.js';

const INFO = { name: 'test-server', version: '1.0.0' };
const echo = defineTool({ name: 'echo', input: z.object({}), run: () => 'hi' });

/** A client and a server joined in memory through JSON text. */
function pair() {
  const clock = new ManualClock();
  let client!: Endpoint;
  const server: Endpoint = new Endpoint({
    role: 'server',
    transport: 'stdio',
    clock,
    channel: { write: (m) => client.receiveText(JSON.stringify(m)) },
  });
  client = new Endpoint({
    role: 'client',
    transport: 'stdio',
    clock,
    channel: { write: (m) => server.receiveText(JSON.stringify(m)) },
  });
  return { client, server };
}

const server = () => new Endpoint({ role: 'server', transport: 'stdio', channel: { write: () => {} } });

describe('an endpoint that serves no lifecycle', () => {
  it.each(['initialize', 'server/discover'])(
    'answers %s with -32601 naming serveLifecycle',
    async (method) => {
      const { client, server } = pair();
      const params = method === 'initialize' ? { protocolVersion: '2025-11-25', capabilities: {} } : {};
      const error = await client.request(method, params, { revision: '2025-11-25' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(JsonRpcError);
      expect(error).toMatchObject({
        code: -32601,
        message: `Method not found: ${method} (this endpoint serves no lifecycle: call serveLifecycle)`,
      });
      // It keeps serving.
      await expect(client.request('ping', {}, { revision: '2025-11-25' })).resolves.toEqual({});
      void server;
    },
  );

  it('another unknown method keeps the plain message', async () => {
    const { client } = pair();
    await expect(client.request('tools/frobnicate', {}, { revision: '2025-11-25' })).rejects.toMatchObject({
      code: -32601,
      message: 'Method not found: tools/frobnicate',
    });
  });

  it("a client's connect (auto: discover, then initialize) fails with the server's message", async () => {
    const { client } = pair();
    const identity = { clientInfo: { name: 'host', version: '1.0.0' }, capabilities: {} };
    await expect(connectLifecycle(client, identity)).rejects.toThrow(
      /serves no lifecycle: call serveLifecycle/,
    );
  });
});

describe('serveTools without the tools capability', () => {
  const fix =
    'serveTools needs capabilities: { tools: {} } in serveLifecycle: no client asks for undeclared tools';

  it('throws in serveTools when the lifecycle came first', () => {
    const endpoint = server();
    serveLifecycle(endpoint, { serverInfo: INFO, capabilities: {} });
    expect(() => serveTools(endpoint, [echo])).toThrow(TypeError);
    expect(() => serveTools(endpoint, [echo])).toThrow(fix);
  });

  it('throws in serveLifecycle when the tools came first', () => {
    const endpoint = server();
    serveTools(endpoint, [echo]);
    expect(() => serveLifecycle(endpoint, { serverInfo: INFO, capabilities: { prompts: {} } })).toThrow(fix);
  });

  it('passes with tools declared, in either order, and on an endpoint with no lifecycle at all', () => {
    const first = server();
    serveLifecycle(first, { serverInfo: INFO, capabilities: { tools: {} } });
    serveTools(first, [echo]);
    const second = server();
    serveTools(second, new ToolList([echo]));
    serveLifecycle(second, { serverInfo: INFO, capabilities: { tools: { listChanged: true } } });
    serveTools(server(), [echo]); // composing by hand: the lifecycle may live elsewhere
  });
});

describe('argument mistakes at set-up', () => {
  it('serveTools with one tool, or a bare definition, names the accepted forms', () => {
    const serve = (tools: unknown) => () => serveTools(server(), tools as Parameters<typeof serveTools>[1]);
    expect(serve(echo)).toThrow('serveTools takes an array of defineTool(...) results or a ToolList');
    expect(serve([echo, { name: 'raw', input: z.object({}), run: () => 'x' }])).toThrow(
      'serveTools takes an array of defineTool(...) results or a ToolList: tools[1] is not one (wrap it in defineTool)',
    );
    expect(serve(undefined)).toThrow(TypeError);
  });
});
