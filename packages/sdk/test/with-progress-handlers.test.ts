// withProgress on prompt and resource handlers, inside a real SDK v1 McpServer, observed by a real SDK v1
// Client over the SDK's in-memory transport pair.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Variables } from '@modelcontextprotocol/sdk/shared/uriTemplate.js';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type Progress, type ProgressReporter, type V1HandlerExtra, withProgress } from '../src/index.js';

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.allSettled(open.splice(0).map((c) => c.close()));
});

async function connected(): Promise<Client> {
  const server = new McpServer({ name: 'handlers', version: '1.0.0' });
  server.registerPrompt(
    'summary',
    { argsSchema: { topic: z.string() } },
    withProgress(async ({ topic }, _extra, progress) => {
      progress.report(1, 2, 'gathered');
      progress.report(2, 2, 'written');
      return { messages: [{ role: 'user', content: { type: 'text', text: `Summarise ${topic}` } }] };
    }),
  );
  server.registerResource(
    'log',
    new ResourceTemplate('log://{day}', { list: undefined }),
    {},
    withProgress(async (uri: URL, { day }: Variables, _extra: V1HandlerExtra, progress: ProgressReporter) => {
      progress.report(1, 1, `read ${String(day)}`);
      return { contents: [{ uri: uri.href, text: `log of ${String(day)}` }] };
    }),
  );
  server.registerResource(
    'motd',
    'motd://today',
    {},
    withProgress(async (uri, _extra, progress) => {
      progress.report(1, 1);
      return { contents: [{ uri: uri.href, text: 'hello' }] };
    }),
  );
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'host', version: '1.0.0' });
  await server.connect(serverSide);
  await client.connect(clientSide);
  open.push(client, server);
  return client;
}

describe('withProgress on prompts and resources (SDK v1)', () => {
  it('a prompt handler reports progress; the last value arrives before the result', async () => {
    const client = await connected();
    const seen: Progress[] = [];
    const result = await client.getPrompt(
      { name: 'summary', arguments: { topic: 'tides' } },
      { onprogress: (p) => void seen.push(p) },
    );
    expect(result.messages[0]?.content).toEqual({ type: 'text', text: 'Summarise tides' });
    expect(seen.at(-1)).toMatchObject({ progress: 2, total: 2 });
  });

  it("a resource template's (uri, variables, extra) handler and a plain resource's (uri, extra) both report", async () => {
    const client = await connected();
    const seen: Progress[] = [];
    const log = await client.readResource({ uri: 'log://monday' }, { onprogress: (p) => void seen.push(p) });
    expect(log.contents).toEqual([{ uri: 'log://monday', text: 'log of monday' }]);
    expect(seen).toEqual([{ progress: 1, total: 1, message: 'read monday' }]);
    const motd = await client.readResource({ uri: 'motd://today' }, { onprogress: (p) => void seen.push(p) });
    expect(motd.contents).toEqual([{ uri: 'motd://today', text: 'hello' }]);
    expect(seen).toHaveLength(2);
  });
});
