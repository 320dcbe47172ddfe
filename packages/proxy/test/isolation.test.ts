// Two hosts on one proxy (two SDK v1 HTTP sessions) use identical request ids and progress tokens, as every
// fresh SDK client does: each sees only its own progress and can cancel only its own calls.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  commandLine,
  eventually,
  type RunningProxy,
  type SeenRecord,
  startProxy,
  textOf,
  V1_FIXTURE,
} from './procs.js';

let proxy: RunningProxy;
let a: Client;
let b: Client;

/** Wire ids each client put on its requests (the v1 SDK's token is its message id). */
const idsOf = (client: Client): Array<string | number> => {
  const ids: Array<string | number> = [];
  const transport = (
    client as unknown as { transport: { send: (m: { id?: string | number }) => Promise<void> } }
  ).transport;
  const send = transport.send.bind(transport);
  transport.send = (message) => {
    if (message.id !== undefined) ids.push(message.id);
    return send(message);
  };
  return ids;
};

beforeAll(async () => {
  proxy = await startProxy(['--upstream-stdio', commandLine(process.execPath, V1_FIXTURE)]);
  a = new Client({ name: 'host-a', version: '1.0.0' });
  b = new Client({ name: 'host-b', version: '1.0.0' });
  await a.connect(new StreamableHTTPClientTransport(new URL(proxy.url)));
  await b.connect(new StreamableHTTPClientTransport(new URL(proxy.url)));
});
afterAll(async () => {
  await a?.close();
  await b?.close();
  await proxy?.kill();
});

const work = (tag: string, steps: number, intervalMs = 60) => ({
  name: 'work',
  arguments: { steps, intervalMs, tag },
});
const seen = async (): Promise<SeenRecord[]> =>
  JSON.parse(textOf(await a.callTool({ name: 'seen', arguments: {} }))) as SeenRecord[];

it('two hosts with the same ids and tokens see only their own progress and cancel only their own calls', async () => {
  const idsA = idsOf(a);
  const idsB = idsOf(b);
  const messagesA: string[] = [];
  const messagesB: string[] = [];
  // Round 1: both call at once under the same id (and so the same token).
  const [resultA, resultB] = await Promise.all([
    a.callTool(work('A1', 4), undefined, { onprogress: (p) => void messagesA.push(String(p.message)) }),
    b.callTool(work('B1', 6), undefined, { onprogress: (p) => void messagesB.push(String(p.message)) }),
  ]);
  expect(idsA).toEqual(idsB); // identical ids on the wire, hence identical progress tokens
  expect(textOf(resultA)).toBe('A1: done 4 steps');
  expect(textOf(resultB)).toBe('B1: done 6 steps');
  expect(messagesA.length).toBeGreaterThan(0);
  expect(messagesB.length).toBeGreaterThan(0);
  expect(messagesA.every((m) => m.startsWith('A1 '))).toBe(true);
  expect(messagesB.every((m) => m.startsWith('B1 '))).toBe(true);

  // Round 2: both start a long call, again under one shared id. A sends notifications/cancelled for that
  // id: only A's own call may stop; B's, same id and same token, must run to the end.
  const callB = b.callTool(work('B2', 10, 50));
  const stopA = new AbortController();
  const callA = a.callTool(work('A2', 50, 50), undefined, { signal: stopA.signal });
  const sharedId = idsB.at(-1) as number;
  expect(idsA.at(-1)).toBe(sharedId);
  await new Promise((r) => setTimeout(r, 150));
  await a.notification({
    method: 'notifications/cancelled',
    params: { requestId: sharedId, reason: 'host A cancels its id' },
  });
  stopA.abort('A stops waiting'); // the proxy sends no response after a cancel [CN9]; the SDK needs its own abort
  await expect(callA).rejects.toBeDefined();
  expect(textOf(await callB)).toBe('B2: done 10 steps');

  const records = await eventually(async () => {
    const all = await seen();
    expect(all.find((r) => r.tag === 'A2')?.end).toBe('aborted');
    return all;
  });
  expect(records.filter((r) => r.end === 'aborted').map((r) => r.tag)).toEqual(['A2']);
  expect(records.find((r) => r.tag === 'A2')?.reason).toMatch(/^CANCELLED: .*host A cancels its id/);
  // The upstream saw distinct tokens for the two hosts' same-id calls: the proxy minted its own.
  const tokens = records.filter((r) => r.tag === 'A1' || r.tag === 'B1').map((r) => r.token);
  expect(new Set(tokens).size).toBe(2);
});
