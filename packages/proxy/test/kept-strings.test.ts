// Long result strings through the built proxy, read on the host's wire: the literal arrives exactly as
// the upstream wrote it (escapes JSON.stringify would rewrite included), so the proxy neither decoded nor
// re-serialized it; the value is the same string; a long progress message too.
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { HttpClient } from '@mcp-inflight/http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs fixture, shared with the upstream
import { longLiteral } from './fixtures/long-literal.mjs';
import { commandLine, PROXY, type RunningProxy, startHttpServer, startProxy } from './procs.js';

const UPSTREAM = fileURLToPath(new URL('./fixtures/kept-upstream.mjs', import.meta.url));
const CHARS = 300_000;
const LITERAL = (longLiteral as (chars: number) => string)(CHARS);
const TEXT = JSON.parse(LITERAL) as string;

let http: { url: string; stop(): Promise<void> } | undefined;
beforeAll(async () => {
  http = await startHttpServer(UPSTREAM);
});
afterAll(() => http?.stop());

const upstreams = {
  stdio: () => ['--upstream-stdio', commandLine(process.execPath, UPSTREAM)],
  http: () => ['--upstream-http', http!.url],
};

let running: Array<ChildProcess | RunningProxy> = [];
afterEach(async () => {
  for (const p of running) void p.kill();
  running = [];
});

/** The proxy on stdio, spoken to line by line: each raw line kept beside what it parses to. */
function stdioProxy(upstreamArgs: string[]) {
  const child = spawn(process.execPath, [PROXY, ...upstreamArgs, '--log', 'quiet'], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  running.push(child);
  const lines: string[] = [];
  const waiters: Array<() => void> = [];
  createInterface({ input: child.stdout! }).on('line', (line) => {
    lines.push(line);
    for (const wake of waiters.splice(0)) wake();
  });
  const send = (value: unknown) => child.stdin!.write(`${JSON.stringify(value)}\n`);
  const next = async (id: string): Promise<string> => {
    for (;;) {
      const found = lines.find((line) => (JSON.parse(line) as { id?: unknown }).id === id);
      if (found) return found;
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  };
  return { lines, send, next };
}

describe.each(['stdio', 'http'] as const)('a long result string from a %s upstream', (upstream) => {
  it('reaches a stdio host as the literal the upstream wrote, and so does a long progress message', async () => {
    const w = stdioProxy(upstreams[upstream]());
    w.send({
      jsonrpc: '2.0',
      id: 'init',
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
    });
    await w.next('init');
    w.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    w.send({
      jsonrpc: '2.0',
      id: 'big',
      method: 'tools/call',
      params: { name: 'text', arguments: { chars: CHARS } },
    });
    const line = await w.next('big');
    expect(line).toContain(LITERAL); // \u00e9 and \/ as written: JSON.stringify would have made é and /
    expect(JSON.parse(line)).toEqual({
      jsonrpc: '2.0',
      id: 'big',
      result: {
        content: [
          { type: 'text', text: TEXT },
          { type: 'text', text: 'short' },
        ],
      },
    });
    w.send({
      jsonrpc: '2.0',
      id: 'p',
      method: 'tools/call',
      params: { name: 'progress', arguments: { chars: CHARS }, _meta: { progressToken: 'tok' } },
    });
    await w.next('p');
    expect(w.lines.filter((l) => l.includes('notifications/progress') && l.includes(LITERAL))).toHaveLength(
      1,
    );
    const progress = w.lines
      .map(
        (l) => JSON.parse(l) as { method?: string; params?: { message?: string; progressToken?: unknown } },
      )
      .filter((m) => m.method === 'notifications/progress');
    expect(progress.map((m) => m.params?.progressToken)).toEqual(['tok']);
    expect(progress[0]?.params?.message).toBe(TEXT);
  });

  it.each(['2025-11-25', '2026-07-28'] as const)(
    'reaches an HTTP host on %s as that literal too, in the body the host reads',
    async (revision) => {
      const proxy = await startProxy(upstreams[upstream]());
      running.push(proxy);
      const bodies: Array<Promise<string>> = [];
      const client = new HttpClient({
        url: proxy.url,
        listen: false,
        fetch: async (input, init) => {
          const response = await fetch(input, init);
          bodies.push(response.clone().text());
          return response;
        },
      });
      try {
        await client.connect({ revision });
        const result = (await client.callTool('text', { chars: CHARS })) as {
          content: Array<{ text: string }>;
        };
        expect(result.content.map((c) => c.text)).toEqual([TEXT, 'short']);
        expect((await Promise.all(bodies)).filter((body) => body.includes(LITERAL))).toHaveLength(1);
        let message: string | undefined;
        await client.callTool('progress', { chars: CHARS }, { onprogress: (p) => (message = p.message) });
        expect(message).toBe(TEXT);
        // The progress message too went on as the upstream wrote it, in the SSE body the host read.
        expect((await Promise.all(bodies)).filter((body) => body.includes(LITERAL))).toHaveLength(2);
      } finally {
        await client.close();
      }
    },
  );
});
