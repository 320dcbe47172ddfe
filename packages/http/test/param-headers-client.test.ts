// Custom headers from tool parameters, client side (2026-07-28 streamable-http "Custom Headers from Tool
// Parameters", SEP-2243): HttpClient mirrors x-mcp-header parameters of the tools it listed into
// Mcp-Param-* headers, leaves out of tools/list every tool whose annotations break a constraint (and
// reports it), and after a -32020 lists again and retries once. Real loopback sockets: our own server for
// the round trip, and a recording node:http server for what goes on the wire.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { JsonRpcError, serveLifecycle } from '@mcp-inflight/core';
import { defineTool, serveTools } from '@mcp-inflight/server';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { HttpClient, type HttpClientWarning, type RunningHttpServer, serveHttp } from '../src/index.js';

const string = (header?: string) => ({
  type: 'string',
  ...(header === undefined ? {} : { 'x-mcp-header': header }),
});
const schema = (properties: Record<string, unknown>) => ({ type: 'object', properties });

/** The tools the recording server lists: one valid, and one per broken constraint. */
const LISTED = [
  {
    name: 'valid_tool',
    inputSchema: schema({
      region: string('Region'),
      priority: { type: 'integer', 'x-mcp-header': 'Priority' },
      verbose: { type: 'boolean', 'x-mcp-header': 'Verbose' },
      where: schema({ zone: string('Zone') }),
      text: string('Text'),
      query: string(),
    }),
  },
  { name: 'plain_tool', inputSchema: schema({ query: string() }) },
  { name: 'invalid_empty', inputSchema: schema({ v: string('') }) },
  { name: 'invalid_token', inputSchema: schema({ v: string('My Region') }) },
  { name: 'invalid_duplicate', inputSchema: schema({ a: string('Region'), b: string('region') }) },
  { name: 'invalid_object', inputSchema: schema({ v: { type: 'object', 'x-mcp-header': 'Data' } }) },
  { name: 'invalid_number', inputSchema: schema({ v: { type: 'number', 'x-mcp-header': 'Score' } }) },
  {
    name: 'invalid_unreachable',
    inputSchema: schema({ v: { type: 'array', items: string('Item') } }),
  },
];

interface Seen {
  method: string;
  name?: string;
  headers: IncomingMessage['headers'];
}

/** A 2026-07-28 server that records each request and answers from `answer`. */
class Recorder {
  seen: Seen[] = [];
  mismatchAlways = false;
  #server: Server;
  url = '';

  constructor() {
    this.#server = createServer(async (req, res) => {
      let text = '';
      for await (const chunk of req) text += chunk;
      const message = JSON.parse(text);
      this.seen.push({ method: message.method, name: message.params?.name, headers: req.headers });
      const reply = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, ...body }));
      };
      if (message.method === 'server/discover')
        return reply(200, {
          result: {
            resultType: 'complete',
            supportedVersions: ['2026-07-28'],
            capabilities: { tools: {} },
            serverInfo: { name: 'recorder', version: '1.0.0' },
          },
        });
      if (message.method === 'tools/list')
        return reply(200, {
          result: { resultType: 'complete', ttlMs: 0, cacheScope: 'private', tools: LISTED },
        });
      if (this.mismatchAlways)
        return reply(400, { error: { code: -32020, message: 'Header mismatch: always' } });
      return reply(200, { result: { resultType: 'complete', content: [{ type: 'text', text: 'ok' }] } });
    });
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/mcp`;
  }

  calls(): Seen[] {
    return this.seen.filter((s) => s.method === 'tools/call');
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }
}

const paramHeaders = (seen: Seen) =>
  Object.fromEntries(Object.entries(seen.headers).filter(([key]) => key.startsWith('mcp-param-')));

describe('HttpClient against a recording server', () => {
  const recorder = new Recorder();
  const clients: HttpClient[] = [];
  const open = (warnings: HttpClientWarning[] = []) => {
    const client = new HttpClient({
      url: recorder.url,
      revision: '2026-07-28',
      onWarning: (w) => warnings.push(w),
    });
    clients.push(client);
    return client;
  };
  beforeAll(() => recorder.start());
  afterEach(async () => {
    for (const client of clients.splice(0)) await client.close();
    recorder.seen = [];
    recorder.mismatchAlways = false;
  });
  afterAll(() => recorder.stop());

  it('excludes every tool whose annotations break a constraint, however tools/list is asked for, and says why', async () => {
    const warnings: HttpClientWarning[] = [];
    const client = open(warnings);
    const listed = await client.request<{ tools: { name: string }[] }>('tools/list');
    expect(listed.tools.map((t) => t.name)).toEqual(['valid_tool', 'plain_tool']);
    const why = Object.fromEntries(warnings.map((w) => [w.tool, w.reason]));
    expect(Object.keys(why)).toEqual([
      'invalid_empty',
      'invalid_token',
      'invalid_duplicate',
      'invalid_object',
      'invalid_number',
      'invalid_unreachable',
    ]);
    expect(why.invalid_empty).toMatch(/is empty/);
    expect(why.invalid_token).toMatch(/not an HTTP token/);
    expect(why.invalid_duplicate).toMatch(/repeats/);
    expect(why.invalid_object).toMatch(/not string, integer or boolean/);
    expect(why.invalid_number).toMatch(/not string, integer or boolean/);
    expect(why.invalid_unreachable).toMatch(/not reachable through properties alone/);
    expect(warnings[0]).toMatchObject({
      kind: 'tool-excluded',
      message: expect.stringContaining('invalid_empty'),
    });
    // Through the endpoint itself, too (what a proxy's relay calls).
    const again = (await client.endpoint.request('tools/list', {})) as { tools: unknown[] };
    expect(again.tools).toHaveLength(2);
  });

  it('mirrors each annotated parameter at its path with the spec’s encoding, omitting null and absent ones', async () => {
    const client = open();
    await client.request('tools/list');
    await client.callTool('valid_tool', {
      region: 'us-west1',
      priority: 42,
      verbose: false,
      where: { zone: 'Hello, 世界' },
      text: ' padded ',
      query: 'SELECT 1',
    });
    await client.callTool('valid_tool', { region: 'eu', verbose: null });
    const [first, second] = recorder.calls();
    expect(paramHeaders(first!)).toEqual({
      'mcp-param-region': 'us-west1',
      'mcp-param-priority': '42',
      'mcp-param-verbose': 'false',
      'mcp-param-zone': '=?base64?SGVsbG8sIOS4lueVjA==?=',
      'mcp-param-text': '=?base64?IHBhZGRlZCA=?=',
    });
    expect(paramHeaders(second!)).toEqual({ 'mcp-param-region': 'eu' });
  });

  it('a call to a tool it has not listed goes out without parameter headers', async () => {
    const client = open();
    await client.connect();
    await client.callTool('valid_tool', { region: 'us-west1' });
    expect(paramHeaders(recorder.calls()[0]!)).toEqual({});
  });

  it('after -32020 it lists again and retries once; a second -32020 is the answer', async () => {
    recorder.mismatchAlways = true;
    const client = open();
    await client.connect();
    const failure = await client.callTool('valid_tool', { region: 'us' }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(JsonRpcError);
    expect((failure as JsonRpcError).code).toBe(-32020);
    expect(recorder.seen.map((s) => s.method)).toEqual([
      'server/discover',
      'tools/call',
      'tools/list',
      'tools/call',
    ]);
    const [before, after] = recorder.calls();
    expect(paramHeaders(before!)).toEqual({});
    expect(paramHeaders(after!)).toEqual({ 'mcp-param-region': 'us' });
  });
});

describe('HttpClient against an mcp-inflight server that declares a mirrored parameter', () => {
  let server: RunningHttpServer;
  beforeAll(async () => {
    const route = defineTool({
      name: 'route',
      input: z.object({
        region: z.string().meta({ 'x-mcp-header': 'Region' }),
        n: z.number().int().optional().meta({ 'x-mcp-header': 'N' }),
      }),
      run: ({ region, n }) => `${region} ${n ?? '-'}`,
    });
    server = await serveHttp(
      (endpoint) => {
        serveLifecycle(endpoint, {
          serverInfo: { name: 'route', version: '1.0.0' },
          capabilities: { tools: {} },
        });
        serveTools(endpoint, [route]);
      },
      { port: 0 },
    );
  });
  afterAll(() => server.close());

  it('a listed tool’s call passes validation', async () => {
    const client = new HttpClient({ url: server.url });
    try {
      await client.request('tools/list');
      const result = await client.callTool('route', { region: 'Grüße ', n: 7 });
      expect(result.content).toEqual([{ type: 'text', text: 'Grüße  7' }]);
    } finally {
      await client.close();
    }
  });

  it('a call made before any listing is refused with -32020, and the retry after listing succeeds', async () => {
    const client = new HttpClient({ url: server.url });
    try {
      const result = await client.callTool('route', { region: 'us-west1' });
      expect(result.content).toEqual([{ type: 'text', text: 'us-west1 -' }]);
    } finally {
      await client.close();
    }
  });
});
