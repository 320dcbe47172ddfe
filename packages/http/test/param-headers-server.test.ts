// Custom headers from tool parameters, server side (2026-07-28 streamable-http "Server Validation",
// SEP-2243): a tool served with an x-mcp-header annotation (zod .meta) makes the HTTP server refuse a
// tools/call whose Mcp-Param-* headers are missing, malformed or disagree with the body, with 400 and
// -32020, before the tool runs. Real loopback sockets, raw fetch.
import { serveLifecycle } from '@mcp-inflight/core';
import { defineTool, serveTools } from '@mcp-inflight/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { encodeHeaderValue, type RunningHttpServer, serveHttp } from '../src/index.js';
import { modernHeaders, modernRequest, RawHttp } from './fixtures/raw-http.js';

let runs = 0;
const route = defineTool({
  name: 'route',
  input: z.object({
    region: z.string().meta({ 'x-mcp-header': 'Region' }),
    priority: z.number().int().optional().meta({ 'x-mcp-header': 'Priority' }),
    verbose: z.boolean().nullable().optional().meta({ 'x-mcp-header': 'Verbose' }),
    where: z.object({ zone: z.string().meta({ 'x-mcp-header': 'Zone' }) }).optional(),
    query: z.string().optional(),
  }),
  run: ({ region }) => {
    runs++;
    return `routed to ${region}`;
  },
});
const plain = defineTool({ name: 'plain', input: z.object({ region: z.string() }), run: () => 'plain' });

let server: RunningHttpServer;
let raw: RawHttp;
beforeAll(async () => {
  server = await serveHttp(
    (endpoint) => {
      serveLifecycle(endpoint, {
        serverInfo: { name: 'param-headers', version: '1.0.0' },
        capabilities: { tools: {} },
      });
      serveTools(endpoint, [route, plain]);
    },
    { port: 0 },
  );
  raw = new RawHttp(server.url);
});
afterAll(() => server.close());

let nextId = 1;
async function call(args: Record<string, unknown>, params: Record<string, string>, tool = 'route') {
  const before = runs;
  const response = await raw.post(modernRequest(nextId++, 'tools/call', { name: tool, arguments: args }), {
    ...modernHeaders('tools/call', tool),
    ...Object.fromEntries(Object.entries(params).map(([k, v]) => [`mcp-param-${k}`, v])),
  });
  const text = await response.text();
  const body = text.startsWith('{') ? JSON.parse(text) : JSON.parse(/data: (.*)/.exec(text)?.[1] ?? '{}');
  return { status: response.status, body, ran: runs > before };
}

describe('Mcp-Param-* validation before the tool runs', () => {
  it('lists the annotation in the tool’s JSON Schema', async () => {
    const response = await raw.post(modernRequest(nextId++, 'tools/list'), modernHeaders('tools/list'));
    const { result } = await response.json();
    expect(result.tools[0].inputSchema.properties.region).toMatchObject({
      type: 'string',
      'x-mcp-header': 'Region',
    });
  });

  it('serves a call whose headers match, an integer compared numerically, Base64 decoded', async () => {
    const ok = await call(
      { region: 'Hello, 世界', priority: 42, verbose: false, where: { zone: 'z1' } },
      { region: encodeHeaderValue('Hello, 世界'), priority: '42.0', verbose: 'false', zone: 'z1' },
    );
    expect(ok).toMatchObject({ status: 200, ran: true });
    expect(ok.body.result.content[0].text).toBe('routed to Hello, 世界');
  });

  it('expects no header for a null or absent value', async () => {
    expect(await call({ region: 'us', verbose: null }, { region: 'us' })).toMatchObject({
      status: 200,
      ran: true,
    });
  });

  it('refuses a missing header whose value is in the body', async () => {
    const refused = await call({ region: 'us', priority: 3 }, { region: 'us' });
    expect(refused).toMatchObject({
      status: 400,
      ran: false,
      body: { id: nextId - 1, error: { code: -32020 } },
    });
    expect(refused.body.error.message).toBe(
      'Header mismatch: Mcp-Param-Priority is missing but arguments.priority is 3',
    );
  });

  it('refuses a header that does not match the body (a nested path too)', async () => {
    expect(await call({ region: 'us' }, { region: 'eu' })).toMatchObject({
      status: 400,
      ran: false,
      body: { error: { code: -32020 } },
    });
    expect(await call({ region: 'us', where: { zone: 'a' } }, { region: 'us', zone: 'b' })).toMatchObject({
      status: 400,
      ran: false,
    });
    expect(await call({ region: 'us', priority: 42 }, { region: 'us', priority: '43' })).toMatchObject({
      status: 400,
      ran: false,
    });
    expect(await call({ region: 'us', verbose: true }, { region: 'us', verbose: 'TRUE' })).toMatchObject({
      status: 400,
      ran: false,
    });
  });

  it('refuses a malformed header: Base64 without padding, outside the alphabet, or not UTF-8', async () => {
    for (const bad of ['=?base64?SGVsbG8?=', '=?base64?SGVs!!!bG8=?=', '=?base64?/w==?=']) {
      const refused = await call({ region: 'Hello' }, { region: bad });
      expect(refused, bad).toMatchObject({ status: 400, ran: false, body: { error: { code: -32020 } } });
      expect(refused.body.error.message).toMatch(/Mcp-Param-Region is malformed/);
    }
  });

  it('refuses a header sent for a value the body does not have', async () => {
    expect(await call({ region: 'us' }, { region: 'us', priority: '1' })).toMatchObject({
      status: 400,
      ran: false,
    });
  });

  it('takes a value without the whole sentinel literally', async () => {
    expect(await call({ region: '=?base64?SGVsbG8=' }, { region: '=?base64?SGVsbG8=' })).toMatchObject({
      status: 200,
      ran: true,
    });
  });

  it('ignores Mcp-Param-* headers a tool does not declare', async () => {
    const served = await call({ region: 'us' }, { region: 'eu', other: 'x' }, 'plain');
    expect(served).toMatchObject({ status: 200, body: { result: { content: [{ text: 'plain' }] } } });
  });

  it('the endpoint keeps serving after refusals, with nothing left in flight', async () => {
    expect(await call({ region: 'us' }, { region: 'us' })).toMatchObject({ status: 200, ran: true });
    expect(server.handler.stats.statelessInFlight).toBe(0);
  });
});
