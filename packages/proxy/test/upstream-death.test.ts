// An upstream killed mid-call: every in-flight host call fails at once with the upstream-closed cause,
// whichever host and revision made it, and the next call gets a fresh upstream.
import {
  Client as V2Client,
  StreamableHTTPClientTransport as V2HttpTransport,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { commandLine, type RunningProxy, startProxy, textOf, V1_FIXTURE } from './procs.js';

let proxy: RunningProxy;
let legacy: Client;
let modern: V2Client;

beforeAll(async () => {
  proxy = await startProxy(['--upstream-stdio', commandLine(process.execPath, V1_FIXTURE)]);
  legacy = new Client({ name: 'legacy-host', version: '1.0.0' });
  await legacy.connect(new StreamableHTTPClientTransport(new URL(proxy.url)));
  modern = new V2Client(
    { name: 'modern-host', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await modern.connect(new V2HttpTransport(new URL(proxy.url)));
});
afterAll(async () => {
  await legacy?.close();
  await modern?.close();
  await proxy?.kill();
});

const work = (tag: string) => ({ name: 'work', arguments: { steps: 100, intervalMs: 50, tag } });
const pidOf = async () => Number(textOf(await legacy.callTool({ name: 'pid', arguments: {} })));

it('fails every in-flight call at once with UPSTREAM_CLOSED, and the next call gets a fresh upstream', async () => {
  const firstPid = await pidOf();
  const progressed: string[] = [];
  const calls = [
    legacy.callTool(work('l1'), undefined, { onprogress: () => void progressed.push('l1') }),
    legacy.callTool(work('l2')),
    modern.callTool(work('m1'), { onprogress: () => void progressed.push('m1') }),
  ];
  const outcomes = Promise.allSettled(calls);
  while (!(progressed.includes('l1') && progressed.includes('m1')))
    await new Promise((r) => setTimeout(r, 20));

  const killedAt = Date.now();
  process.kill(firstPid, 'SIGKILL');
  const settled = await outcomes;
  // Each call is rejected (below) with the upstream's death, not left to its own limits; how soon is
  // load's business, so it is printed, not bounded.
  console.info(`calls settled ${Date.now() - killedAt} ms after the kill`);
  for (const outcome of settled) {
    expect(outcome.status).toBe('rejected');
    const error = (outcome as PromiseRejectedResult).reason as {
      code: number;
      data?: Record<string, unknown>;
      message: string;
    };
    expect(error.code).toBe(-32000);
    expect(error.data).toMatchObject({ cause: 'UPSTREAM_CLOSED' });
    expect(error.message).toMatch(/killed by SIGKILL/);
  }

  const secondPid = await pidOf();
  expect(secondPid).not.toBe(firstPid);
  expect(
    textOf(await modern.callTool({ name: 'work', arguments: { steps: 2, intervalMs: 10, tag: 'after' } })),
  ).toBe('after: done 2 steps');
  const starts = proxy.events.filter((e) => e.type === 'upstream-started').map((e) => e.start);
  expect(starts).toEqual([1, 2]);
  const failed = proxy.events.filter((e) => e.type === 'call' && e.outcome === 'upstream-closed');
  expect(failed).toHaveLength(3);
});
