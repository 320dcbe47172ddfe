// Custom headers from tool parameters through the proxy (2026-07-28, SEP-2243). Facing hosts, the proxy
// refuses a 2026-07-28 call whose Mcp-Param-* headers disagree with its body (400, -32020) for the
// upstream tools it lists, before anything is relayed; facing a 2026-07-28 HTTP upstream, its calls carry
// the headers the upstream's schemas name, whatever the host's revision. Real loopback sockets: an
// mcp-inflight upstream that validates the headers itself, and the proxy in process.
import { serveLifecycle } from '@mcp-inflight/core';
import { HttpClient, type RunningHttpServer, serveHttp } from '@mcp-inflight/http';
import { defineTool, serveTools } from '@mcp-inflight/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { createProxy, type Listener, type McpProxy } from '../src/index.js';

let upstream: RunningHttpServer;
let proxy: McpProxy;
let listener: Listener;
/** What the proxy's upstream leg sent: each tools/call's Mcp-Param-Region. */
const upstreamCalls: Array<string | null> = [];

beforeAll(async () => {
  const route = defineTool({
    name: 'route',
    input: z.object({ region: z.string().meta({ 'x-mcp-header': 'Region' }), query: z.string().optional() }),
    run: ({ region }) => `routed to ${region}`,
  });
  upstream = await serveHttp(
    (endpoint) => {
      serveLifecycle(endpoint, {
        serverInfo: { name: 'upstream', version: '1.0.0' },
        capabilities: { tools: {} },
      });
      serveTools(endpoint, [route]);
    },
    { port: 0 },
  );
  const recording: typeof fetch = async (input, init) => {
    const headers = new Headers(init?.headers);
    if (headers.get('mcp-method') === 'tools/call') upstreamCalls.push(headers.get('mcp-param-region'));
    return fetch(input, init);
  };
  proxy = createProxy({ upstream: upstream.url, upstreamOptions: { fetch: recording } });
  await proxy.connect();
  listener = await proxy.serveHttp({ port: 0 });
});
afterAll(async () => {
  await listener?.close();
  await proxy?.close();
  await upstream?.close();
});

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};
let nextId = 1;
async function post(method: string, params: Record<string, unknown>, headers: Record<string, string> = {}) {
  const response = await fetch(listener.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...(typeof params.name === 'string' ? { 'mcp-name': params.name } : {}),
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params: { ...params, _meta: META } }),
  });
  const text = await response.text();
  const body = text.startsWith('{')
    ? JSON.parse(text)
    : JSON.parse(/data: (.*)\n\n$/.exec(text)?.[1] ?? '{}');
  return { status: response.status, body };
}

describe('the proxy facing 2026-07-28 hosts', () => {
  it('lists the upstream tool with its annotation, then validates Mcp-Param-* before relaying', async () => {
    const listed = await post('tools/list', {});
    expect(listed.body.result.tools[0].inputSchema.properties.region['x-mcp-header']).toBe('Region');
    const before = upstreamCalls.length;
    const mismatched = await post(
      'tools/call',
      { name: 'route', arguments: { region: 'us' } },
      { 'mcp-param-region': 'eu' },
    );
    expect(mismatched).toMatchObject({ status: 400, body: { error: { code: -32020 } } });
    const missing = await post('tools/call', { name: 'route', arguments: { region: 'us' } });
    expect(missing).toMatchObject({ status: 400, body: { error: { code: -32020 } } });
    const malformed = await post(
      'tools/call',
      { name: 'route', arguments: { region: 'Hello' } },
      { 'mcp-param-region': '=?base64?SGVsbG8?=' },
    );
    expect(malformed).toMatchObject({ status: 400, body: { error: { code: -32020 } } });
    expect(upstreamCalls.length).toBe(before); // nothing was relayed
    const matching = await post(
      'tools/call',
      { name: 'route', arguments: { region: 'us' } },
      { 'mcp-param-region': 'us' },
    );
    expect(matching).toMatchObject({
      status: 200,
      body: { result: { content: [{ text: 'routed to us' }] } },
    });
    expect(upstreamCalls.at(-1)).toBe('us');
  });
});

describe('the proxy as a client of a 2026-07-28 HTTP upstream', () => {
  it.each(['2025-11-25', '2025-03-26', '2026-07-28'] as const)(
    'mirrors the upstream schema into its upstream calls for a %s host',
    async (revision) => {
      const host = new HttpClient({ url: listener.url, revision });
      try {
        await host.connect();
        await host.request('tools/list');
        const result = await host.callTool('route', { region: 'Grüße' });
        expect(result.content).toEqual([{ type: 'text', text: 'routed to Grüße' }]);
        expect(upstreamCalls.at(-1)).toBe('=?base64?R3LDvMOfZQ==?=');
      } finally {
        await host.close();
      }
    },
  );
});

describe('an upstream tool with an invalid x-mcp-header annotation', () => {
  it('is left out of the list hosts see, and reported to upstreamOptions.onWarning', async () => {
    const bad = await serveHttp(
      (endpoint) => {
        serveLifecycle(endpoint, {
          serverInfo: { name: 'bad', version: '1.0.0' },
          capabilities: { tools: {} },
        });
        endpoint.setRequestHandler('tools/list', () => ({
          tools: [
            { name: 'fine', inputSchema: { type: 'object', properties: {} } },
            {
              name: 'broken',
              inputSchema: { type: 'object', properties: { v: { type: 'number', 'x-mcp-header': 'Score' } } },
            },
          ],
        }));
      },
      { port: 0 },
    );
    const warned: string[] = [];
    const other = createProxy({
      upstream: bad.url,
      upstreamOptions: { onWarning: (w) => warned.push(w.tool) },
    });
    const front = await other.serveHttp({ port: 0 });
    const host = new HttpClient({ url: front.url, revision: '2025-11-25' });
    try {
      const listed = await host.request<{ tools: { name: string }[] }>('tools/list');
      expect(listed.tools.map((t) => t.name)).toEqual(['fine']);
      expect(warned).toEqual(['broken']);
    } finally {
      await host.close();
      await front.close();
      await other.close();
      await bad.close();
    }
  });
});
