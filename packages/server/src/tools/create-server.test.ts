import type { Revision } from '@mcp-inflight/core';
import { Endpoint, InflightError } from '@mcp-inflight/core';
import { ManualClock } from '@mcp-inflight/core/testing';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { inputRequired } from '../input/serve-input.js';
import { ListenStreams } from '../listen/listen-streams.js';
import { createServer } from './create-server.js';
import { defineResource, defineResourceTemplate } from './define-resource.js';
import { defineTool } from './define-tool.js';
import { definePrompt, PromptList } from './prompts.js';
import { ResourceList } from './resource-list.js';
import { ToolList } from './tool-list.js';

type Server = ReturnType<typeof createServer>;

/** A client and a server endpoint joined in memory through JSON text; `revision` is the session's. */
function connect(server: Server, revision: Revision, options: { handlerIdleMs?: number } = {}) {
  const clock = new ManualClock();
  const notifications: Array<{
    method: string;
    params?: Record<string, unknown>;
  }> = [];
  let client!: Endpoint;
  const session = revision === '2026-07-28' ? undefined : revision;
  const endpoint = new Endpoint({
    role: 'server',
    transport: 'stdio',
    clock,
    revision: session,
    ...options,
    channel: {
      write: (m) => {
        const message = m as {
          method?: string;
          id?: unknown;
          params?: Record<string, unknown>;
        };
        if (message.method && message.id === undefined)
          notifications.push({
            method: message.method,
            params: message.params,
          });
        client.receiveText(JSON.stringify(m));
      },
    },
  });
  client = new Endpoint({
    role: 'client',
    transport: 'stdio',
    clock,
    revision: session,
    channel: { write: (m) => endpoint.receiveText(JSON.stringify(m)) },
  });
  server.serve(endpoint);
  const request = (
    method: string,
    params: Record<string, unknown> = {},
    extra: Record<string, unknown> = {},
  ) => client.request(method, params, { revision, ...extra }) as Promise<Record<string, unknown>>;
  const failure = (method: string, params: Record<string, unknown> = {}) =>
    request(method, params).then(
      () => expect.unreachable(`${method} succeeded`),
      (error: { code?: number; message: string; data?: unknown }) => error,
    );
  return { clock, endpoint, client, request, failure, notifications };
}

const add = defineTool({
  name: 'add',
  input: z.object({ a: z.number(), b: z.number() }),
  run: ({ a, b }) => String(a + b),
});
const greet = definePrompt({
  name: 'greet',
  title: 'Greeting',
  description: 'Greets someone.',
  arguments: z.object({
    name: z.string().describe('Who to greet'),
    style: z.string().optional(),
  }),
  complete: {
    style: (typed) => ['formal', 'friendly', 'fancy'].filter((s) => s.startsWith(typed)),
  },
  get: ({ name, style = 'friendly' }) => `Greet ${name} in a ${style} way.`,
});
const notes = defineResource({
  uri: 'notes://today',
  name: 'today',
  mimeType: 'text/plain',
  read: () => 'Buy milk.',
});
const users = defineResourceTemplate({
  uriTemplate: 'users://{id}/profile',
  name: 'profile',
  mimeType: 'application/json',
  read: (uri, { id }) => [{ uri, mimeType: 'application/json', text: JSON.stringify({ id }) }],
});

describe('createServer', () => {
  it('declares capabilities from what it was given, and serves nothing it did not declare', async () => {
    expect(createServer({ name: 's', version: '1' }).capabilities).toEqual({});
    const fixed = createServer({
      name: 's',
      version: '1',
      tools: [add],
      prompts: [greet],
      resources: [notes],
    });
    expect(fixed.capabilities).toEqual({
      tools: {},
      prompts: {},
      resources: {},
      completions: {},
    });
    const changing = createServer({
      name: 's',
      version: '1',
      tools: new ToolList([add]),
      prompts: new PromptList(),
      resources: new ResourceList([notes]),
      capabilities: { logging: {} },
    });
    expect(changing.capabilities).toEqual({
      tools: { listChanged: true },
      prompts: { listChanged: true },
      resources: { listChanged: true, subscribe: true },
      logging: {},
    });

    const { request, failure } = connect(
      createServer({ name: 'only-prompts', version: '2', prompts: [greet] }),
      '2025-11-25',
    );
    const init = await request('initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'c', version: '1' },
    });
    expect(init).toMatchObject({
      protocolVersion: '2025-11-25',
      serverInfo: { name: 'only-prompts', version: '2' },
      capabilities: { prompts: {}, completions: {} },
    });
    expect((await failure('tools/list')).code).toBe(-32601);
    expect((await failure('resources/list')).code).toBe(-32601);
    expect(() => createServer({ version: '1' } as never)).toThrow(/name: string, version: string/);
  });

  it('serves tools, prompts and resources on 2026-07-28 with the cache hints on lists and reads', async () => {
    const cache = { ttlMs: 60_000, cacheScope: 'public' } as const;
    const server = createServer({
      name: 's',
      version: '1',
      tools: [add],
      prompts: [greet],
      resources: [notes, users],
      cache,
    });
    const { request } = connect(server, '2026-07-28');
    expect(await request('tools/list')).toMatchObject({
      tools: [{ name: 'add' }],
      ...cache,
    });
    expect(await request('prompts/list')).toMatchObject({
      prompts: [
        {
          name: 'greet',
          title: 'Greeting',
          description: 'Greets someone.',
          arguments: [
            { name: 'name', description: 'Who to greet', required: true },
            { name: 'style', required: false },
          ],
        },
      ],
      ...cache,
    });
    expect(await request('resources/list')).toMatchObject({
      resources: [{ uri: 'notes://today', name: 'today', mimeType: 'text/plain' }],
      ...cache,
    });
    expect(await request('resources/templates/list')).toMatchObject({
      resourceTemplates: [
        {
          uriTemplate: 'users://{id}/profile',
          name: 'profile',
          mimeType: 'application/json',
        },
      ],
      ...cache,
    });
    expect(await request('resources/read', { uri: 'notes://today' })).toMatchObject({
      contents: [{ uri: 'notes://today', mimeType: 'text/plain', text: 'Buy milk.' }],
      ...cache,
    });
    expect(await request('resources/read', { uri: 'users://a%20b/profile' })).toMatchObject({
      contents: [{ uri: 'users://a%20b/profile', text: '{"id":"a b"}' }],
      ...cache,
    });
    const prompt = await request('prompts/get', {
      name: 'greet',
      arguments: { name: 'Ada' },
    });
    expect(prompt.messages).toEqual([
      {
        role: 'user',
        content: { type: 'text', text: 'Greet Ada in a friendly way.' },
      },
    ]);
    expect(prompt).not.toHaveProperty('ttlMs'); // not a cacheable result
  });

  it('leaves the cache hints off legacy results', async () => {
    const { request } = connect(
      createServer({
        name: 's',
        version: '1',
        prompts: [greet],
        resources: [notes],
      }),
      '2025-06-18',
    );
    for (const method of ['prompts/list', 'resources/list', 'resources/templates/list']) {
      const result = await request(method);
      expect(result, method).not.toHaveProperty('ttlMs');
      expect(result, method).not.toHaveProperty('cacheScope');
    }
    expect(await request('resources/read', { uri: 'notes://today' })).not.toHaveProperty('ttlMs');
  });

  it('answers an unknown resource -32602 on 2026-07-28 and -32002 before, with data.uri', async () => {
    const server = createServer({
      name: 's',
      version: '1',
      resources: [notes, users],
    });
    const uri = 'test://nowhere';
    const modern = await connect(server, '2026-07-28').failure('resources/read', { uri });
    expect(modern).toMatchObject({ code: -32602, data: { uri } });
    const legacy = await connect(server, '2025-11-25').failure('resources/read', { uri });
    expect(legacy).toMatchObject({ code: -32002, data: { uri } });
    // A template matches whole path segments only.
    const partial = await connect(server, '2026-07-28').failure('resources/read', {
      uri: 'users://a/b/profile',
    });
    expect(partial.code).toBe(-32602);
    expect((await connect(server, '2026-07-28').failure('resources/read', {})).code).toBe(-32602);
  });

  it('refuses bad prompt arguments and an unknown prompt with -32602, and an empty read with -32603', async () => {
    const empty = defineResource({
      uri: 'x://empty',
      name: 'empty',
      read: () => [],
    });
    const { failure } = connect(
      createServer({
        name: 's',
        version: '1',
        prompts: [greet],
        resources: [empty],
      }),
      '2025-11-25',
    );
    const bad = await failure('prompts/get', {
      name: 'greet',
      arguments: { style: 'formal' },
    });
    expect(bad.code).toBe(-32602);
    expect(bad.message).toMatch(/Invalid arguments for greet.*name/s);
    expect((await failure('prompts/get', { name: 'nope' })).message).toBe('Unknown prompt: nope');
    const read = await failure('resources/read', { uri: 'x://empty' });
    expect(read).toMatchObject({
      code: -32603,
      message: 'read(x://empty) returned no contents',
    });
    expect(() =>
      defineResourceTemplate({
        uriTemplate: 'x://{+path}',
        name: 'p',
        read: () => '',
      }),
    ).toThrow(/not a level-1 expression/);
  });

  it('gives prompt and resource handlers the request ctx: progress, the cancel, the limits', async () => {
    let aborted: unknown;
    const slow = defineResource({
      uri: 'slow://report',
      name: 'report',
      read: (_uri, ctx) =>
        new Promise((_resolve, reject) => {
          ctx.progress(1, 2, 'half');
          ctx.signal.addEventListener('abort', () => {
            aborted = ctx.signal.reason;
            reject(ctx.signal.reason);
          });
        }),
    });
    const idle = definePrompt({
      name: 'idle',
      get: (_args, ctx) => new Promise(() => ctx.progress(1)),
    });
    const server = createServer({
      name: 's',
      version: '1',
      prompts: [idle],
      resources: [slow],
    });
    const { request, clock } = connect(server, '2025-11-25', {
      handlerIdleMs: 1_000,
    });
    const progress: unknown[] = [];
    const user = new AbortController();
    const read = request(
      'resources/read',
      { uri: 'slow://report' },
      { onprogress: (p: unknown) => progress.push(p), signal: user.signal },
    );
    await Promise.resolve();
    await Promise.resolve();
    expect(progress).toEqual([expect.objectContaining({ progress: 1, total: 2, message: 'half' })]);
    user.abort();
    await expect(read).rejects.toMatchObject({ code: 'CANCELLED' });
    expect(InflightError.from(aborted)?.code).toBe('CANCELLED');

    // The endpoint's idle window bounds a prompt that stops reporting.
    const stuck = request('prompts/get', { name: 'idle' }, { idleMs: Number.POSITIVE_INFINITY });
    const outcome = stuck.then(
      () => 'resolved',
      (error: { code?: unknown; data?: { cause?: unknown } }) => error,
    );
    await clock.advance(1_001);
    expect(await outcome).toMatchObject({ code: 'IDLE_TIMEOUT' });
  });

  it('publishes list changes for all three lists and resource updates to legacy subscribers', async () => {
    const published: string[] = [];
    const listenStreams = {
      notify: (method: string) => void published.push(method),
    };
    const tools = new ToolList([], { listenStreams });
    const prompts = new PromptList([], { listenStreams });
    const resources = new ResourceList([notes], { listenStreams });
    const server = createServer({
      name: 's',
      version: '1',
      tools,
      prompts,
      resources,
    });
    const legacy = connect(server, '2025-11-25');
    expect(await legacy.request('prompts/list')).toEqual({ prompts: [] });

    tools.add(add);
    prompts.add(greet);
    resources.add(users);
    expect(published).toEqual([
      'notifications/tools/list_changed',
      'notifications/prompts/list_changed',
      'notifications/resources/list_changed',
    ]);
    expect(await legacy.request('prompts/list')).toMatchObject({
      prompts: [{ name: 'greet' }],
    });
    expect(await legacy.request('resources/templates/list')).toMatchObject({
      resourceTemplates: [{ name: 'profile' }],
    });

    expect(await legacy.request('resources/subscribe', { uri: 'notes://today' })).toEqual({});
    expect(resources.updated('notes://today')).toBe(1);
    expect(legacy.notifications).toContainEqual({
      method: 'notifications/resources/updated',
      params: { uri: 'notes://today' },
    });
    await legacy.request('resources/unsubscribe', { uri: 'notes://today' });
    expect(resources.updated('notes://today')).toBe(0);

    // A closed endpoint is dropped rather than written to.
    await legacy.request('resources/subscribe', { uri: 'notes://today' });
    legacy.endpoint.close();
    expect(resources.updated('notes://today')).toBe(0);

    // 2026-07-28 subscribes on a listen stream: the legacy methods are gone there.
    const modern = connect(server, '2026-07-28');
    expect((await modern.failure('resources/subscribe', { uri: 'notes://today' })).code).toBe(-32601);
    expect(resources.remove('users://{id}/profile')).toBe(true);
    expect(await modern.request('resources/templates/list')).toMatchObject({
      resourceTemplates: [],
    });
  });

  it('passes a prompt input_required result on 2026-07-28 and refuses it on a legacy revision', async () => {
    const asks = definePrompt({
      name: 'asks',
      get: (_args, ctx) =>
        ctx.params?.inputResponses
          ? 'thanks'
          : inputRequired({ inputRequests: { who: { method: 'roots/list', params: {} } } }),
    });
    const server = createServer({ name: 's', version: '1', prompts: [asks] });
    expect(await connect(server, '2026-07-28').request('prompts/get', { name: 'asks' })).toMatchObject({
      resultType: 'input_required',
      inputRequests: { who: { method: 'roots/list' } },
    });
    const legacy = await connect(server, '2025-11-25').failure('prompts/get', { name: 'asks' });
    expect(legacy).toMatchObject({ code: -32603, message: expect.stringMatching(/only on 2026-07-28/) });
  });

  it('sends a resource update and list changes to a 2026-07-28 listen stream whose filter asks for them', async () => {
    const listenStreams = new ListenStreams();
    const resources = new ResourceList([notes], { listenStreams });
    const prompts = new PromptList([], { listenStreams });
    const server = createServer({ name: 's', version: '1', prompts, resources });
    const modern = connect(server, '2026-07-28');
    listenStreams.serve(modern.endpoint);
    const listening = modern.request('subscriptions/listen', {
      notifications: { promptsListChanged: true, resourceSubscriptions: ['notes://today'] },
    });
    void listening.catch(() => {}); // ends with the endpoint
    await Promise.resolve();
    expect(resources.updated('notes://other')).toBe(0); // not in the filter
    expect(resources.updated('notes://today')).toBe(1);
    prompts.add(greet);
    resources.add(users); // resources list changes were not asked for
    const methods = modern.notifications.map((n) => n.method);
    expect(methods).toEqual([
      'notifications/subscriptions/acknowledged',
      'notifications/resources/updated',
      'notifications/prompts/list_changed',
    ]);
  });

  it('completes prompt arguments and template variables', async () => {
    const files = defineResourceTemplate({
      uriTemplate: 'files://{name}',
      name: 'file',
      complete: {
        name: (typed, { arguments: given }) => [`${typed}.md`, `${given.dir ?? ''}${typed}.txt`],
      },
      read: () => 'x',
    });
    const { request, failure } = connect(
      createServer({
        name: 's',
        version: '1',
        prompts: [greet],
        resources: [files],
      }),
      '2025-11-25',
    );
    expect(
      await request('completion/complete', {
        ref: { type: 'ref/prompt', name: 'greet' },
        argument: { name: 'style', value: 'f' },
      }),
    ).toEqual({
      completion: {
        values: ['formal', 'friendly', 'fancy'],
        total: 3,
        hasMore: false,
      },
    });
    expect(
      await request('completion/complete', {
        ref: { type: 'ref/prompt', name: 'greet' },
        argument: { name: 'name', value: '' },
      }),
    ).toEqual({ completion: { values: [], total: 0, hasMore: false } });
    expect(
      await request('completion/complete', {
        ref: { type: 'ref/resource', uri: 'files://{name}' },
        argument: { name: 'name', value: 'a' },
        context: { arguments: { dir: 'docs/' } },
      }),
    ).toMatchObject({ completion: { values: ['a.md', 'docs/a.txt'] } });
    // Declared by the caller with no completer yet: served, and a PromptList's later prompt completes.
    const later = new PromptList();
    const declared = connect(
      createServer({ name: 's', version: '1', prompts: later, capabilities: { completions: {} } }),
      '2025-11-25',
    );
    later.add(greet);
    expect(
      await declared.request('completion/complete', {
        ref: { type: 'ref/prompt', name: 'greet' },
        argument: { name: 'style', value: 'fo' },
      }),
    ).toMatchObject({ completion: { values: ['formal'] } });
    const unknown = await failure('completion/complete', {
      ref: { type: 'ref/prompt', name: 'x' },
      argument: { name: 'a', value: '' },
    });
    expect(unknown).toMatchObject({
      code: -32602,
      message: 'Unknown prompt: x',
    });
    expect(
      (
        await failure('completion/complete', {
          ref: { type: 'ref/tool' },
          argument: { name: 'a', value: '' },
        })
      ).code,
    ).toBe(-32602);
  });
});
