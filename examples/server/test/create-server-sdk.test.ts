// One createServer call (fixtures/create-server.mjs) answering the official SDK clients, v1 (legacy,
// 2025-11-25) and v2 pinned to 2026-07-28, over stdio and over real loopback HTTP: tools, prompts and
// resources, with the capabilities it declared from what it was given.
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioV2 } from '@modelcontextprotocol/client/stdio';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const FIXTURE = fileURLToPath(new URL('./fixtures/create-server.mjs', import.meta.url));

/** What both SDK clients offer, typed loosely: each SDK has its own result types. */
interface SdkClient {
  getServerCapabilities(): Record<string, unknown> | undefined;
  getServerVersion(): { name: string; version: string } | undefined;
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  listPrompts(): Promise<{ prompts: unknown[] }>;
  getPrompt(params: { name: string; arguments?: Record<string, string> }): Promise<{ messages: unknown[] }>;
  listResources(): Promise<{ resources: unknown[] }>;
  listResourceTemplates(): Promise<{ resourceTemplates: unknown[] }>;
  readResource(params: { uri: string }): Promise<{ contents: unknown[] }>;
  close(): Promise<void>;
}

let http: { url: string; child: ChildProcess };

beforeAll(async () => {
  const child = spawn(process.execPath, [FIXTURE, '--http'], { stdio: ['ignore', 'ignore', 'pipe'] });
  const url = await new Promise<string>((resolve, reject) => {
    let stderr = '';
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => {
      stderr += chunk;
      const match = /listening on (\S+)/.exec(stderr);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`the fixture exited (${code}): ${stderr}`)));
  });
  http = { url, child };
});

afterAll(async () => {
  if (!http || http.child.exitCode !== null) return;
  await new Promise((resolve) => {
    http.child.once('exit', resolve);
    http.child.kill('SIGTERM');
  });
});

const CLIENTS: Record<string, () => Promise<SdkClient>> = {
  'SDK v1 over stdio': async () => {
    const client = new ClientV1({ name: 'v1', version: '1.0.0' });
    await client.connect(new StdioV1({ command: process.execPath, args: [FIXTURE] }));
    return client as unknown as SdkClient;
  },
  'SDK v1 over HTTP': async () => {
    const client = new ClientV1({ name: 'v1', version: '1.0.0' });
    await client.connect(new HttpV1(new URL(http.url)));
    return client as unknown as SdkClient;
  },
  'SDK v2 (2026-07-28) over stdio': async () => {
    const client = new ClientV2(
      { name: 'v2', version: '2.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(new StdioV2({ command: process.execPath, args: [FIXTURE] }));
    return client as unknown as SdkClient;
  },
  'SDK v2 (2026-07-28) over HTTP': async () => {
    const client = new ClientV2(
      { name: 'v2', version: '2.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(new HttpV2(new URL(http.url)));
    return client as unknown as SdkClient;
  },
};

for (const [name, connect] of Object.entries(CLIENTS)) {
  describe(`createServer answers the ${name}`, () => {
    let client: SdkClient;
    beforeAll(async () => {
      client = await connect();
    }, 60_000);
    afterAll(async () => {
      await client?.close();
    });

    it('with the identity and the capabilities it declared from what it was given', () => {
      expect(client.getServerVersion()).toMatchObject({ name: 'create-server-fixture', version: '1.2.3' });
      const capabilities = client.getServerCapabilities() ?? {};
      expect(capabilities).toMatchObject({ tools: {}, prompts: {}, resources: {} });
      expect(capabilities).not.toHaveProperty('completions'); // no completers given
    });

    it('tools', async () => {
      expect(await client.callTool({ name: 'add', arguments: { a: 2, b: 40 } })).toMatchObject({
        content: [{ type: 'text', text: '42' }],
      });
    });

    it('prompts', async () => {
      const { prompts } = await client.listPrompts();
      expect(prompts).toEqual([
        {
          name: 'greet',
          description: 'Greets someone.',
          arguments: [{ name: 'name', description: 'Who', required: true }],
        },
        { name: 'pair' },
      ]);
      expect((await client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } })).messages).toEqual([
        { role: 'user', content: { type: 'text', text: 'Say hello to Ada.' } },
      ]);
      expect((await client.getPrompt({ name: 'pair' })).messages).toHaveLength(2);
      await expect(client.getPrompt({ name: 'greet', arguments: {} })).rejects.toMatchObject({
        code: -32602,
      });
    });

    it('resources and templates', async () => {
      expect((await client.listResources()).resources).toEqual([
        { uri: 'notes://today', name: 'today', mimeType: 'text/plain' },
      ]);
      expect((await client.listResourceTemplates()).resourceTemplates).toEqual([
        { uriTemplate: 'users://{id}/profile', name: 'profile', mimeType: 'application/json' },
      ]);
      expect((await client.readResource({ uri: 'notes://today' })).contents).toEqual([
        { uri: 'notes://today', mimeType: 'text/plain', text: 'Buy milk.' },
      ]);
      expect((await client.readResource({ uri: 'users://7/profile' })).contents).toEqual([
        { uri: 'users://7/profile', mimeType: 'application/json', text: '{"id":"7"}' },
      ]);
      const modern = name.includes('2026-07-28');
      await expect(client.readResource({ uri: 'notes://nowhere' })).rejects.toMatchObject({
        code: modern ? -32602 : -32002,
      });
    });
  });
}
