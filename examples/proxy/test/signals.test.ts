// SIGTERM and SIGINT: the proxy answers every host with the shutdown cause, cancels every upstream call
// with that reason, and exits 0. The upstream here is the SDK v1 fixture over HTTP (legacy sessions), so
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
  it('SIGTERM with HTTP hosts: every host told SHUTDOWN, every upstream call cancelled with it, exit 0', async () => {
    const proxy = await startProxy(['--upstream-http', upstream.url]);
    const host = new Client({ name: 'host', version: '1.0.0' });
    await host.connect(new StreamableHTTPClientTransport(new URL(proxy.url)));
    let progressed = 0;
    const calls = [
      host.callTool(work('term-1'), undefined, { onprogress: () => void progressed++ }),
      host.callTool(work('term-2'), undefined, { onprogress: () => void progressed++ }),
    ];
    const settled = Promise.allSettled(calls);
    while (progressed < 2) await new Promise((r) => setTimeout(r, 20));
    const { code, signal } = await proxy.kill('SIGTERM');
    await expectShutdown(settled, 'SIGTERM');
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    const records = await seenBy(['term-1', 'term-2']);
    for (const r of records) expect(r.reason).toBe('SHUTDOWN: proxy received SIGTERM');
    expect(proxy.events.at(-1)).toMatchObject({ type: 'stats', stats: { cancelled: { SHUTDOWN: 2 } } });
    await host.close().catch(() => undefined);
  });

  it('SIGINT with a stdio host: the same, and the proxy exits 0', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [PROXY, '--upstream-http', upstream.url, '--log', 'quiet'],
      stderr: 'pipe',
    });
    const host = new Client({ name: 'stdio-host', version: '1.0.0' });
    await host.connect(transport);
    // The SDK keeps the child to itself; its exit status is what this test is about.
    const child = (transport as unknown as { _process: import('node:child_process').ChildProcess })._process;
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const settled = Promise.allSettled([host.callTool(work('int-1'))]);
    await new Promise((r) => setTimeout(r, 200));
    process.kill(transport.pid as number, 'SIGINT');
    await expectShutdown(settled, 'SIGINT');
    expect(await exited).toBe(0);
    const records = await seenBy(['int-1']);
    expect(records[0]?.reason).toBe('SHUTDOWN: proxy received SIGINT');
  });
});
