// Real SDK clients and servers for the end-to-end tests: stdio children spawned by the SDK's own
// StdioClientTransport, and HTTP servers on 127.0.0.1 port 0. Real time is allowed here (small limits).
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioV2 } from '@modelcontextprotocol/client/stdio';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { build } from 'tsup';

const here = (path: string): string => fileURLToPath(new URL(path, import.meta.url));
export const V1_FIXTURE = here('../fixtures/v1-server.mjs');
export const V2_FIXTURE = here('../fixtures/v2-server.mjs');
const SDK_ROOT = here('../..');

/** Fixture server state, as the `status` tool reports it. */
export interface FixtureState {
  running: number;
  completed: number;
  cancelled: number;
  aborts: string[];
}

/**
 * Bundles this package's src (core left external) for a child process, which cannot load TypeScript on
 * Node 20. One directory per call, inside node_modules so that `@mcp-inflight/core` resolves from it.
 */
export async function bundleHelpers(): Promise<string> {
  const outDir = mkdtempSync(join(SDK_ROOT, 'node_modules', '.cache-e2e-'));
  await build({
    entry: { index: join(SDK_ROOT, 'src/index.ts') },
    format: ['esm'],
    outDir,
    outExtension: () => ({ js: '.mjs' }),
    dts: false,
    silent: true,
    config: false,
    clean: false,
    platform: 'node',
    target: 'node20',
    external: ['@mcp-inflight/core'],
  });
  return join(outDir, 'index.mjs');
}

/** Removes what {@link bundleHelpers} wrote. */
export function removeBundle(entry: string): void {
  rmSync(join(entry, '..'), { recursive: true, force: true });
}

const clients: { close(): Promise<void> }[] = [];
const servers: http.Server[] = [];

/** Closes every client and server opened since the last call. */
export async function closeAll(): Promise<void> {
  await Promise.allSettled(clients.splice(0).map((c) => c.close()));
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    server.close();
  }
}

function childEnv(helpersEntry?: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
  if (helpersEntry) env.INFLIGHT_SDK_ENTRY = helpersEntry;
  return env;
}

/** A v1 Client connected to a fixture child over stdio. */
export async function v1Stdio(fixture = V1_FIXTURE, helpersEntry?: string): Promise<ClientV1> {
  const client = new ClientV1({ name: 'e2e-host-v1', version: '1.0.0' });
  await client.connect(
    new StdioV1({
      command: process.execPath,
      args: [fixture],
      env: childEnv(helpersEntry),
      stderr: 'inherit',
    }),
  );
  clients.push(client);
  return client;
}

/** A v2 Client connected to a fixture child over stdio; `pin` selects the 2026-07-28 era. */
export async function v2Stdio(
  fixture = V2_FIXTURE,
  options: { pin?: boolean; helpersEntry?: string } = {},
): Promise<ClientV2> {
  const client = new ClientV2(
    { name: 'e2e-host-v2', version: '2.0.0' },
    options.pin ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  await client.connect(
    new StdioV2({
      command: process.execPath,
      args: [fixture],
      env: childEnv(options.helpersEntry),
      stderr: 'inherit',
    }),
  );
  clients.push(client);
  return client;
}

async function listen(handler: http.RequestListener): Promise<URL> {
  const server = http.createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
}

/**
 * A stateful v1 Streamable HTTP endpoint: one transport and one fresh server (from `makeServer`) per session,
 * so each host connection has its own SDK server, as the SDK's own examples do.
 */
export function v1HttpServer(
  makeServer: () => { connect(transport: StreamableHTTPServerTransport): Promise<void> },
): Promise<URL> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  return listen(async (req, res) => {
    const id = req.headers['mcp-session-id'];
    let transport = typeof id === 'string' ? sessions.get(id) : undefined;
    if (!transport) {
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sessionId) => void sessions.set(sessionId, created),
      });
      await makeServer().connect(created);
      transport = created;
    }
    await transport.handleRequest(req, res);
  });
}

/** A v2 endpoint serving both eras per request (createMcpHandler: 2026-07-28, plus stateless legacy). */
export function v2HttpServer(factory: Parameters<typeof createMcpHandler>[0]): Promise<URL> {
  return listen(toNodeHandler(createMcpHandler(factory)) as http.RequestListener);
}

export async function v1Http(url: URL): Promise<ClientV1> {
  const client = new ClientV1({ name: 'e2e-host-v1', version: '1.0.0' });
  await client.connect(new HttpV1(url));
  clients.push(client);
  return client;
}

export async function v2Http(url: URL, options: { pin?: boolean } = {}): Promise<ClientV2> {
  const client = new ClientV2(
    { name: 'e2e-host-v2', version: '2.0.0' },
    options.pin ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  await client.connect(new HttpV2(url));
  clients.push(client);
  return client;
}

/** Reads a fixture's `status` tool through any client (v1 or v2), without our helpers in the way. */
export async function status(client: ClientV1 | ClientV2): Promise<FixtureState> {
  const result = (await (client as ClientV2).callTool({ name: 'status', arguments: {} })) as {
    content: { type: string; text?: string }[];
  };
  return JSON.parse(result.content[0]?.text ?? '{}') as FixtureState;
}

/** Polls `check` until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function eventually<T>(
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 20_000,
): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() - started > timeoutMs) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Calls a tool through the SDK alone, v1 or v2, to observe exactly what a server sent. */
export function plainCall(
  client: ClientV1 | ClientV2,
  name: string,
  args: Record<string, unknown>,
  onprogress?: (progress: { progress: number; total?: number; message?: string }) => void,
): Promise<unknown> {
  const options = onprogress ? { onprogress } : {};
  const params = { name, arguments: args };
  return client instanceof ClientV1
    ? client.callTool(params, undefined, options)
    : client.callTool(params, options);
}

/** Records the JSON-RPC ids of the tools/call requests a connected client sends. */
export function recordCallIds(client: ClientV1 | ClientV2): (string | number)[] {
  const ids: (string | number)[] = [];
  const transport = client.transport as { send(message: unknown, options?: unknown): Promise<void> };
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    const m = message as { method?: string; id?: string | number };
    if (m.method === 'tools/call' && m.id !== undefined) ids.push(m.id);
    return send(message, options);
  };
  return ids;
}
