/**
 * zod is a peer of server (`^4.0.0`): the tool layer runs on the app's zod, whichever 4.x it is. Each case
 * is a fresh app folder holding the built core and server and one zod (the lowest of the range, 4.0.0; the
 * catalog's; zod 3.25 as a zod 3 app has it), so server's `import 'zod'` can only reach the app's copy. A real node
 * child defines tools with that zod, lists them and calls them.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../../core/test/support/ensure-built.js';

const serverDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const coreDir = join(serverDir, '../core');
const clientDir = join(serverDir, '../client');
const apps: string[] = [];

/** A folder with node_modules/@mcp-inflight/{core,client,server} (copies of the built packages), core's dependencies and `zod`. */
function appWithZod(zodFolder: string): string {
  const app = mkdtempSync(join(tmpdir(), 'inflight-zod-'));
  apps.push(app);
  for (const [name, dir] of [
    ['core', coreDir],
    ['client', clientDir],
    ['server', serverDir],
  ] as const) {
    const target = join(app, 'node_modules/@mcp-inflight', name);
    mkdirSync(target, { recursive: true });
    cpSync(join(dir, 'dist'), join(target, 'dist'), { recursive: true, filter: (f) => !f.endsWith('.map') });
    cpSync(join(dir, 'package.json'), join(target, 'package.json'));
  }
  for (const [name, dir, folder] of [
    ['eventemitter3', coreDir, 'eventemitter3'],
    ['p-timeout', coreDir, 'p-timeout'],
    ['zod', serverDir, zodFolder],
  ] as const) {
    symlinkSync(realpathSync(join(dir, 'node_modules', folder)), join(app, 'node_modules', name), 'dir');
  }
  return app;
}

// Runs in the app: tools defined with the app's zod, served on an Endpoint, driven by a client Endpoint
// joined to it in memory through JSON text.
const SCRIPT = `
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as z from 'zod';
import { Endpoint } from '@mcp-inflight/core';
import { defineTool, serveTools } from '@mcp-inflight/server';
const zodVersion = JSON.parse(readFileSync(createRequire(import.meta.url).resolve('zod').replace(/(node_modules[\\\\/]zod)[\\\\/].*$/, '$1/package.json'), 'utf8')).version;
let tools;
try {
  tools = [
    defineTool({ name: 'add', input: z.object({ a: z.number(), b: z.number() }), run: ({ a, b }) => String(a + b) }),
    defineTool({
      name: 'stats',
      input: z.object({}),
      output: z.object({ count: z.number() }),
      run: () => ({ content: [], structuredContent: { count: 'many' } }),
    }),
  ];
} catch (error) {
  console.log(JSON.stringify({ zodVersion, defineError: { name: error.name, message: error.message } }));
  process.exit(0);
}
let client;
const server = new Endpoint({ role: 'server', transport: 'stdio', revision: '2025-11-25',
  channel: { write: (m) => client.receiveText(JSON.stringify(m)) } });
client = new Endpoint({ role: 'client', transport: 'stdio', revision: '2025-11-25',
  channel: { write: (m) => server.receiveText(JSON.stringify(m)) } });
serveTools(server, tools);
const list = await client.request('tools/list', {});
const sum = await client.request('tools/call', { name: 'add', arguments: { a: 1, b: 2 } });
const bad = await client.request('tools/call', { name: 'add', arguments: { a: 'one', b: 2 } });
const refused = await client.request('tools/call', { name: 'stats', arguments: {} });
console.log(JSON.stringify({ zodVersion, list, sum, bad, refused }));
`;

function run(app: string): Record<string, unknown> {
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', SCRIPT], {
    cwd: app,
    encoding: 'utf8',
    timeout: 20_000,
  });
  if (child.status !== 0) throw new Error(`node exited ${child.status}:\n${child.stderr}`);
  return JSON.parse(child.stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, unknown>;
}

const catalog = (
  JSON.parse(readFileSync(join(serverDir, 'node_modules/zod/package.json'), 'utf8')) as {
    version: string;
  }
).version;

describe('the tool layer on the app’s zod', () => {
  beforeAll(() => ensureBuilt(), 120_000);
  afterAll(() => {
    for (const app of apps) rmSync(app, { recursive: true, force: true });
  });

  it.each([
    ['4.0.0', 'zod-4.0.0'],
    [catalog, 'zod'],
  ])('zod %s: lists JSON Schema, validates arguments and structuredContent', (version, folder) => {
    const out = run(appWithZod(folder)) as {
      zodVersion: string;
      list: { tools: Array<{ name: string; inputSchema: unknown; outputSchema?: unknown }> };
      sum: unknown;
      bad: { isError: boolean; content: Array<{ text: string }> };
      refused: { isError: boolean; content: Array<{ text: string }> };
    };
    expect(out.zodVersion).toBe(version);
    expect(out.list.tools.map((t) => t.name)).toEqual(['add', 'stats']);
    expect(out.list.tools[0]?.inputSchema).toMatchObject({
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
    });
    expect(out.list.tools[1]?.outputSchema).toMatchObject({
      type: 'object',
      properties: { count: { type: 'number' } },
    });
    expect(out.sum).toEqual({ content: [{ type: 'text', text: '3' }] });
    expect(out.bad.isError).toBe(true);
    expect(out.bad.content[0]?.text).toMatch(/^Invalid arguments for add: .*\n.*at a/s);
    expect(out.refused.isError).toBe(true);
    expect(out.refused.content[0]?.text).toContain('count');
  });

  it('zod 3 (3.25, its root entry): defineTool throws a TypeError naming zod 4, at definition', () => {
    const out = run(appWithZod('zod-3.25')) as {
      zodVersion: string;
      defineError: { name: string; message: string };
    };
    expect(out.zodVersion).toBe('3.25.76');
    expect(out.defineError.name).toBe('TypeError');
    expect(out.defineError.message).toBe(
      "defineTool('add'): input must be a zod 4 schema, not zod 3 (install zod@^4)",
    );
  });
});
