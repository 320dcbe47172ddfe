// SIGTERM and SIGINT drain: no new calls, calls in flight finish within --drain-timeout or are cancelled
// upstream with SHUTDOWN (each host told so), then exit 0; a second signal cancels at once. The upstream here is the SDK v1 fixture over HTTP (legacy sessions), so
// it outlives the proxy and can be asked what it saw.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  eventually,
  PROXY,
  type SeenRecord,
  startHttpServer,
  startProxy,
  textOf,
  V1_FIXTURE,
} from './procs.js';

let upstream: Awaited<ReturnType<typeof startHttpServer>>;
let inspector: Client;

beforeAll(async () => {
  upstream = await startHttpServer(V1_FIXTURE);
  inspector = new Client({ name: 'inspector', version: '1.0.0' });
  await inspector.connect(new StreamableHTTPClientTransport(new URL(upstream.url)));
});
afterAll(async () => {
  await inspector?.close();
  await upstream?.stop();
});

const seenBy = async (tags: string[]): Promise<SeenRecord[]> =>
  eventually(async () => {
    const all = JSON.parse(textOf(await inspector.callTool({ name: 'seen', arguments: {} }))) as SeenRecord[];
    const mine = all.filter((r) => tags.includes(r.tag));
    expect(mine.map((r) => r.end)).toEqual(tags.map(() => 'aborted'));
    return mine;
  });

const work = (tag: string) => ({ name: 'work', arguments: { steps: 100, intervalMs: 50, tag } });

async function expectShutdown(
  settled: Promise<PromiseSettledResult<unknown>[]>,
  signal: string,
): Promise<void> {
  for (const outcome of await settled) {
    expect(outcome.status).toBe('rejected');
    const error = (outcome as PromiseRejectedResult).reason as {
      code: number;
      data?: Record<string, unknown>;
      message: string;
    };
    expect(error.data).toMatchObject({ cause: 'SHUTDOWN' });
    expect(error.message).toContain(`proxy received ${signal}`);
  }
}

describe('shutdown on a signal', () => {
  it('SIGTERM drains: a short call finishes, a new call is refused, a long one is cancelled with SHUTDOWN at --drain-timeout, exit 0', async () => {
    const proxy = await startProxy(['--upstream-http', upstream.url, '--drain-timeout', '1500']);
    const host = new Client({ name: 'host', version: '1.0.0' });
    await host.connect(new StreamableHTTPClientTransport(new URL(proxy.url)));
    let progressed = 0;
    const long = host.callTool(work('term-1'), undefined, { onprogress: () => void progressed++ });
    const short = host.callTool(
      { name: 'work', arguments: { steps: 6, intervalMs: 100, tag: 'term-short' } },
      undefined,
      { onprogress: () => void progressed++ },
    );
    const settled = Promise.allSettled([long]);
    while (progressed < 2) await new Promise((r) => setTimeout(r, 20));
    proxy.child.kill('SIGTERM');
    await eventually(() => expect(proxy.events.some((e) => e.type === 'draining')).toBe(true));
    // Draining: no new calls.
    await expect(host.callTool(work('term-new'))).rejects.toMatchObject({ data: { cause: 'SHUTDOWN' } });
    await expect(short).resolves.toMatchObject({ content: [{ type: 'text' }] });
    await expectShutdown(settled, 'SIGTERM');
    const { code, signal } = await proxy.exited;
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    const records = await seenBy(['term-1']);
    expect(records[0]?.reason).toBe('SHUTDOWN: proxy received SIGTERM');
    expect(proxy.events.at(-1)).toMatchObject({
      type: 'stats',
      stats: { completed: 1, cancelled: { SHUTDOWN: 1 } },
    });
    await host.close().catch(() => undefined);
  });

  it('a second signal cancels at once, however long the drain', async () => {
    const proxy = await startProxy(['--upstream-http', upstream.url, '--drain-timeout', '600000']);
    const host = new Client({ name: 'host', version: '1.0.0' });
    await host.connect(new StreamableHTTPClientTransport(new URL(proxy.url)));
    let progressed = 0;
    const settled = Promise.allSettled([
      host.callTool(work('twice-1'), undefined, { onprogress: () => void progressed++ }),
    ]);
    while (progressed < 1) await new Promise((r) => setTimeout(r, 20));
    proxy.child.kill('SIGTERM');
    await eventually(() => expect(proxy.events.some((e) => e.type === 'draining')).toBe(true));
    proxy.child.kill('SIGTERM');
    await expectShutdown(settled, 'SIGTERM');
    expect(await proxy.exited).toEqual({ code: 0, signal: null });
    const records = await seenBy(['twice-1']);
    expect(records[0]?.reason).toBe('SHUTDOWN: proxy received SIGTERM (second signal)');
    await host.close().catch(() => undefined);
  });

  it('SIGINT with a stdio host and --drain-timeout 0: cancelled at once, and the proxy exits 0', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [PROXY, '--upstream-http', upstream.url, '--log', 'quiet', '--drain-timeout', '0'],
      stderr: 'pipe',
    });
    const host = new Client({ name: 'stdio-host', version: '1.0.0' });
    await host.connect(transport);
    // The SDK keeps the child to itself; its exit status is what this test is about.
    const child = (transport as unknown as { _process: import('node:child_process').ChildProcess })._process;
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    let progressed = 0;
    const settled = Promise.allSettled([
      host.callTool(work('int-1'), undefined, { onprogress: () => void progressed++ }),
    ]);
    while (progressed < 1) await new Promise((r) => setTimeout(r, 20));
    process.kill(transport.pid as number, 'SIGINT');
    await expectShutdown(settled, 'SIGINT');
    expect(await exited).toBe(0);
    const records = await seenBy(['int-1']);
    expect(records[0]?.reason).toBe('SHUTDOWN: proxy received SIGINT');
  });
});
