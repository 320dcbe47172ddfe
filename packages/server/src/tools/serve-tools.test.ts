import type { Revision } from '@mcp-inflight/core';
import { Endpoint, InflightError, JsonRpcError } from '@mcp-inflight/core';
import { ManualClock } from '@mcp-inflight/core/testing';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { defineTool, type Tool } from './define-tool.js';
import { serveTools } from './serve-tools.js';

/** A client and a server with the tools, joined in memory through JSON text; `revision` is the session's. */
function setup(revision: Revision, tools?: Tool[]) {
  const clock = new ManualClock();
  let client!: Endpoint;
  let server!: Endpoint;
  const session = revision === '2026-07-28' ? undefined : revision;
  server = new Endpoint({
    role: 'server',
    transport: 'stdio',
    clock,
    revision: session,
    channel: { write: (m) => client.receiveText(JSON.stringify(m)) },
  });
  client = new Endpoint({
    role: 'client',
    transport: 'stdio',
    clock,
    revision: session,
    channel: { write: (m) => server.receiveText(JSON.stringify(m)) },
  });
  serveTools(
    server,
    tools ?? [
      defineTool({
        name: 'add',
        description: 'Adds two numbers.',
        input: z.object({ a: z.number(), b: z.number(), note: z.string().default('') }),
        run: ({ a, b }) => String(a + b),
      }),
      defineTool({
        name: 'fail',
        input: z.object({ how: z.enum(['limit', 'protocol', 'crash']) }),
        run: ({ how }) => {
          if (how === 'limit') throw InflightError.ceiling(1_500, { progressCount: 2 });
          if (how === 'protocol') throw new JsonRpcError(-32602, 'no such file');
          throw new Error('disk full');
        },
      }),
    ],
  );
  const call = (method: string, params: Record<string, unknown>) =>
    client.request(method, params, { revision });
  return { clock, client, server, call };
}

describe('serveTools', () => {
  it('serves an array changed in place since an earlier serveTools with what it holds now', async () => {
    const echo = defineTool({ name: 'echo', input: z.object({ text: z.string() }), run: ({ text }) => text });
    const shout = defineTool({
      name: 'shout',
      input: z.object({ text: z.string() }),
      run: ({ text }) => text.toUpperCase(),
    });
    const tools = [echo];
    // Each call on an endpoint of its own, served from the one array, as a 2026-07-28 server serves them.
    const served = (name: string) =>
      setup('2025-11-25', tools).call('tools/call', { name, arguments: { text: 'hi' } });
    expect(await served('echo')).toMatchObject({ content: [{ text: 'hi' }] });
    await expect(served('shout')).rejects.toThrow(/Unknown tool: shout/);
    tools.push(shout);
    expect(await served('shout')).toMatchObject({ content: [{ text: 'HI' }] });
    tools[0] = shout; // the same length, another tool in a place
    tools[1] = defineTool({ name: 'echo', input: z.object({ text: z.string() }), run: () => 'again' });
    expect(await served('echo')).toMatchObject({ content: [{ text: 'again' }] });
  });

  it('builds each listing once, on the first tools/list, however many endpoints serve the tool', async () => {
    let built = 0;
    const tool = defineTool({
      name: 'echo',
      input: z.object({ text: z.string() }),
      // Read once per listing built: counts the builds.
      get listing() {
        built++;
        return { annotations: { readOnlyHint: true } };
      },
      run: ({ text }) => text,
    });
    const endpoints = Array.from({ length: 3 }, () => {
      const sent: Array<{ result?: { tools?: unknown[] } }> = [];
      const endpoint = new Endpoint({
        role: 'server',
        transport: 'stdio',
        clock: new ManualClock(),
        revision: '2025-11-25',
        channel: { write: (m) => void sent.push(m as (typeof sent)[number]) },
      });
      serveTools(endpoint, [tool]); // a 2026-07-28 server does this for every request
      return { endpoint, sent };
    });
    expect(built).toBe(0);
    for (const [i, { endpoint, sent }] of endpoints.entries()) {
      endpoint.receiveText(JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/list', params: {} }));
      // The handler is dispatched off the read loop: give it a few microtask turns, no timers.
      for (let turn = 0; turn < 20 && sent.length === 0; turn++) await Promise.resolve();
      expect(sent.at(-1)?.result?.tools).toEqual([
        {
          name: 'echo',
          inputSchema: expect.objectContaining({ type: 'object' }),
          annotations: { readOnlyHint: true },
        },
      ]);
    }
    expect(built).toBe(1);
  });

  it('lists tools in the order given with JSON Schema input; no caching hints before 2026-07-28', async () => {
    const { call } = setup('2025-11-25');
    const listed = (await call('tools/list', {})) as Record<string, unknown> & { tools: unknown[] };
    expect(listed.tools).toEqual([
      {
        name: 'add',
        description: 'Adds two numbers.',
        inputSchema: {
          type: 'object',
          properties: { a: { type: 'number' }, b: { type: 'number' }, note: { type: 'string', default: '' } },
          required: ['a', 'b'],
        },
      },
      expect.objectContaining({ name: 'fail' }),
    ]);
    expect(listed).not.toHaveProperty('ttlMs');
  });

  it('2026-07-28: tools/list carries ttlMs and cacheScope [CA1]', async () => {
    const { call } = setup('2026-07-28');
    const listed = await call('tools/list', {});
    expect(listed).toMatchObject({ resultType: 'complete', ttlMs: 0, cacheScope: 'private' });
  });

  it('runs a tool with validated arguments (defaults applied)', async () => {
    const { call } = setup('2025-06-18');
    await expect(call('tools/call', { name: 'add', arguments: { a: 2, b: 3 } })).resolves.toEqual({
      content: [{ type: 'text', text: '5' }],
    });
  });

  it.each(['2025-11-25', '2026-07-28'] as const)(
    '%s: invalid arguments are an isError result naming the issue [TL1]',
    async (revision) => {
      const { call } = setup(revision);
      const result = (await call('tools/call', { name: 'add', arguments: { a: 'two' } })) as {
        isError: boolean;
        content: Array<{ text: string }>;
      };
      expect(result.isError).toBe(true);
      expect(result.content[0]?.text).toMatch(/Invalid arguments for add/);
      expect(result.content[0]?.text).toMatch(/a/);
    },
  );

  it.each(['2025-03-26', '2025-06-18'] as const)('%s: invalid arguments are -32602', async (revision) => {
    const { call } = setup(revision);
    await expect(call('tools/call', { name: 'add', arguments: {} })).rejects.toMatchObject({ code: -32602 });
  });

  it('an unknown tool is -32602', async () => {
    const { call } = setup('2025-11-25');
    await expect(call('tools/call', { name: 'nope' })).rejects.toMatchObject({ code: -32602 });
  });

  it('a limit thrown by run answers with its cause; a protocol error keeps its code; a crash is isError', async () => {
    const { call } = setup('2025-11-25');
    const limit = await call('tools/call', { name: 'fail', arguments: { how: 'limit' } }).catch((e) => e);
    expect(InflightError.is(limit) ? limit.code : limit).toBe('CEILING');
    await expect(call('tools/call', { name: 'fail', arguments: { how: 'protocol' } })).rejects.toMatchObject({
      code: -32602,
      message: 'no such file',
    });
    await expect(call('tools/call', { name: 'fail', arguments: { how: 'crash' } })).resolves.toEqual({
      content: [{ type: 'text', text: 'disk full' }],
      isError: true,
    });
  });

  describe('what a tool returns is checked before it goes on the wire', () => {
    /** Tools as plain JavaScript writes them: `run` returns whatever it likes. */
    function loose(revision: Revision) {
      const errors: string[] = [];
      const { server, call } = setup(revision);
      const circular: Record<string, unknown> = { content: [{ type: 'text', text: 'loop' }] };
      circular.self = circular;
      const returns: Record<string, unknown> = {
        number: 42,
        nothing: undefined,
        date: new Date(0),
        block: { content: [{ type: 'text', text: 7 }] },
        circular,
      };
      serveTools(
        server,
        [
          defineTool({
            name: 'js',
            input: z.object({ what: z.string() }),
            run: (({ what }: { what: string }) => returns[what]) as never,
          }),
          defineTool({
            name: 'add',
            input: z.object({ a: z.number(), b: z.number() }),
            run: ({ a, b }) => String(a + b),
          }),
        ],
        { onError: (error) => void errors.push(error.message) },
      );
      return { call, errors };
    }

    it.each([
      ['number', /js returned the number 42, not a string or a CallToolResult/],
      ['nothing', /js returned undefined, not a string or a CallToolResult/],
      ['date', /js returned a Date, not a string or a CallToolResult/],
      ['block', /js returned content\[0\] that is not a well-formed text/],
    ])('returning %s is an isError result naming the mistake, reported to onError', async (what, named) => {
      const { call, errors } = loose('2025-11-25');
      const result = (await call('tools/call', { name: 'js', arguments: { what } })) as {
        isError?: boolean;
        content: Array<{ type: string; text: string }>;
      };
      expect(result.isError).toBe(true);
      expect(result.content[0]?.text).toMatch(named);
      expect(errors).toEqual([result.content[0]?.text]);
      await expect(call('tools/call', { name: 'add', arguments: { a: 1, b: 2 } })).resolves.toEqual({
        content: [{ type: 'text', text: '3' }],
      });
    });

    it('a result that cannot be serialized (a cycle) is a -32603 error response; serving goes on', async () => {
      const { call } = loose('2025-11-25');
      await expect(call('tools/call', { name: 'js', arguments: { what: 'circular' } })).rejects.toMatchObject(
        {
          code: -32603,
        },
      );
      await expect(call('tools/call', { name: 'add', arguments: { a: 1, b: 2 } })).resolves.toEqual({
        content: [{ type: 'text', text: '3' }],
      });
    });
  });

  describe('an output schema', () => {
    function shaped(revision: Revision) {
      const errors: string[] = [];
      const { server, call } = setup(revision);
      serveTools(
        server,
        [
          defineTool({
            name: 'count',
            input: z.object({ n: z.unknown() }),
            output: z.object({ steps: z.number() }),
            run: ({ n }) => ({
              content: [{ type: 'text', text: String(n) }],
              structuredContent: { steps: n },
            }),
          }),
        ],
        { onError: (error) => void errors.push(error.message) },
      );
      return { call, errors };
    }

    it.each(['2025-06-18', '2025-11-25', '2026-07-28'] as const)(
      '%s: fills outputSchema and checks structuredContent',
      async (revision) => {
        const { call, errors } = shaped(revision);
        const listed = (await call('tools/list', {})) as { tools: Array<Record<string, unknown>> };
        expect(listed.tools[0]?.outputSchema).toMatchObject({
          type: 'object',
          properties: { steps: { type: 'number' } },
          required: ['steps'],
        });
        await expect(call('tools/call', { name: 'count', arguments: { n: 3 } })).resolves.toEqual({
          content: [{ type: 'text', text: '3' }],
          structuredContent: { steps: 3 },
          ...(revision === '2026-07-28' ? { resultType: 'complete' } : {}),
        });
        const refused = (await call('tools/call', { name: 'count', arguments: { n: 'three' } })) as {
          isError?: boolean;
          content: Array<{ text: string }>;
        };
        expect(refused.isError).toBe(true);
        expect(refused.content[0]?.text).toMatch(
          /count returned structuredContent its output schema refuses/,
        );
        expect(errors).toHaveLength(1);
      },
    );

    it.each(['2024-11-05', '2025-03-26'] as const)(
      '%s: no outputSchema in the list and no structuredContent in the result',
      async (revision) => {
        const { call } = shaped(revision);
        const listed = (await call('tools/list', {})) as { tools: Array<Record<string, unknown>> };
        expect(listed.tools[0]).not.toHaveProperty('outputSchema');
        await expect(call('tools/call', { name: 'count', arguments: { n: 'x' } })).resolves.toEqual({
          content: [{ type: 'text', text: 'x' }],
        });
      },
    );

    it('up to 2025-11-25 structuredContent must be an object; on 2026-07-28 any JSON value passes', async () => {
      const tool = defineTool({
        name: 'list',
        input: z.object({}),
        run: () => ({ content: [], structuredContent: [1, 2] }),
      });
      const legacy = setup('2025-11-25');
      serveTools(legacy.server, [tool]);
      await expect(legacy.call('tools/call', { name: 'list', arguments: {} })).resolves.toMatchObject({
        isError: true,
        content: [{ text: expect.stringMatching(/structuredContent that is an array/) }],
      });
      const modern = setup('2026-07-28');
      serveTools(modern.server, [tool]);
      await expect(modern.call('tools/call', { name: 'list', arguments: {} })).resolves.toMatchObject({
        structuredContent: [1, 2],
      });
    });
  });
});
