// The built proxy in front of real SDK upstreams: a legacy one (SDK v1 McpServer over stdio) that sends
// elicitation/create and sampling/createMessage in the middle of a call. A 2026-07-28 host (the library's
// HttpClient and stdio client) gets input_required and answers with one requestWithInput call; a legacy
// host (2025-06-18) gets the upstream's requests as requests. And an SDK v2 upstream answering input_required:
// a legacy host gets its input requests as requests (the proxy retries upstream), a 2026-07-28 host as is.
import { fileURLToPath } from 'node:url';
import type { McpClient } from '@mcp-inflight/client';
import { callToolWithInput, type InputRequiredResult } from '@mcp-inflight/client/input';
import { JsonRpcError } from '@mcp-inflight/core';
import { HttpClient } from '@mcp-inflight/http';
import { spawnStdio } from '@mcp-inflight/stdio';
import { Client as ClientV2, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { commandLine, PROXY, type RunningProxy, startProxy, textOf } from './procs.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/v1-elicit-upstream.mjs', import.meta.url));
/** The official SDK v2 server answering input_required (2026-07-28), from packages/sdk's fixtures. */
const V2_MRTR = fileURLToPath(
  new URL('../../../packages/sdk/test/fixtures/v2-mrtr-server.mjs', import.meta.url),
);
const UPSTREAM = ['--upstream-stdio', commandLine(process.execPath, FIXTURE)];
const CAPABILITIES = { elicitation: {}, sampling: {} };
const YES = { action: 'accept', content: { ok: true } };

let proxy: RunningProxy;
const clients: McpClient[] = [];
beforeAll(async () => {
  proxy = await startProxy(UPSTREAM);
});
afterAll(async () => {
  await proxy?.kill();
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

function http(): McpClient {
  const client = new HttpClient({ url: proxy.url, capabilities: CAPABILITIES });
  clients.push(client);
  return client;
}

describe('a legacy SDK v1 upstream asks mid-call; the proxy turns it into MRTR for a 2026-07-28 host', () => {
  it('over HTTP: one requestWithInput call, two rounds, progress from both, the answer reaches the upstream', async () => {
    const client = http();
    await client.connect({ revision: '2026-07-28' });
    const seen: Array<[number, number]> = [];
    let asked: unknown;
    const result = await callToolWithInput(
      client,
      'ask',
      { steps: 3, intervalMs: 10 },
      {
        onInputRequired: (requests) => {
          const [key, request] = Object.entries(requests)[0] ?? [];
          asked = request;
          return { [key as string]: YES };
        },
        onprogress: (p, round) => seen.push([round, p.progress]),
      },
    );
    expect(asked).toMatchObject({ method: 'elicitation/create', params: { message: 'Proceed?' } });
    expect(JSON.parse(textOf(result))).toEqual(YES);
    expect(seen[0]).toEqual([1, 1]); // before the question, on the first request
    expect(seen.at(-1)).toEqual([2, 4]); // after it, on the retry
  });

  it('over stdio: sampling/createMessage too, answered by the host handler registered with onRequest', async () => {
    const client = spawnStdio(commandLine(process.execPath, PROXY, '--log', 'quiet', ...UPSTREAM), {
      stderr: 'ignore',
      capabilities: CAPABILITIES,
    });
    clients.push(client);
    await client.connect({ revision: '2026-07-28' });
    client.onRequest('sampling/createMessage', () => ({
      role: 'assistant',
      content: { type: 'text', text: 'Paris' },
      model: 'test',
      stopReason: 'endTurn',
    }));
    const result = await callToolWithInput(client, 'sample', {});
    expect(textOf(result)).toBe('Paris');
  });

  it('the requestState the proxy hands out cannot be tampered with or used twice', async () => {
    const client = http();
    await client.connect({ revision: '2026-07-28' });
    const first = (await client.request('tools/call', { name: 'ask', arguments: {} })) as InputRequiredResult;
    expect(first.resultType).toBe('input_required');
    const key = Object.keys(first.inputRequests ?? {})[0] as string;
    const state = first.requestState as string;
    const retry = (requestState: string) =>
      client
        .request('tools/call', { name: 'ask', arguments: {}, inputResponses: { [key]: YES }, requestState })
        .catch((e: unknown) => e);
    const tampered = `${state.slice(0, 12)}${state[12] === 'A' ? 'g' : 'A'}${state.slice(13)}`;
    expect(((await retry(tampered)) as JsonRpcError).code).toBe(-32602);
    expect(JSON.parse(textOf(await retry(state)))).toEqual(YES);
    const again = await retry(state);
    expect(again).toBeInstanceOf(JsonRpcError);
    expect((again as JsonRpcError).code).toBe(-32602);
  });

  it("the official SDK v2 client, pinned to 2026-07-28, answers the proxy's input_required with its own MRTR loop", async () => {
    const client = new ClientV2(
      { name: 'sdk-v2-host', version: '2.0.0' },
      { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    let asked: unknown;
    client.setRequestHandler('elicitation/create', async (request) => {
      asked = request.params.message;
      return YES;
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(proxy.url)));
    try {
      const result = await client.callTool({ name: 'ask', arguments: { steps: 1, intervalMs: 5 } });
      expect(asked).toBe('Proceed?');
      expect(JSON.parse(textOf(result))).toEqual(YES);
    } finally {
      await client.close();
    }
  });

  it('a legacy host (2025-06-18) gets the elicitation as a request of its own', async () => {
    const client = http();
    await client.connect({ revision: '2025-06-18' });
    client.onRequest('elicitation/create', () => ({ action: 'decline' }));
    const result = await client.callTool('ask', {});
    expect(JSON.parse(textOf(result))).toEqual({ action: 'decline' });
  });
});

describe('the reverse: an SDK v2 upstream answers input_required, a legacy host gets a request', () => {
  let modern: RunningProxy;
  beforeAll(async () => {
    modern = await startProxy(['--upstream-stdio', commandLine(process.execPath, V2_MRTR)]);
  });
  afterAll(async () => {
    await modern?.kill();
  });

  it('a 2025-06-18 host answers elicitation/create; the proxy retries upstream with the answer and its state', async () => {
    const client = new HttpClient({ url: modern.url, capabilities: CAPABILITIES });
    clients.push(client);
    await client.connect({ revision: '2025-06-18' });
    let asked: unknown;
    client.onRequest('elicitation/create', (params) => {
      asked = params?.message;
      return { action: 'accept', content: { ok: true } };
    });
    const result = await client.callTool('confirm', {});
    expect(asked).toBe('Proceed?');
    expect(JSON.parse(textOf(result))).toEqual({ answer: { ok: true }, state: 'sdk-state-1' });
  });

  it("a 2026-07-28 host sees the upstream's own input_required, and its retry passes through", async () => {
    const client = new HttpClient({ url: modern.url, capabilities: CAPABILITIES });
    clients.push(client);
    await client.connect({ revision: '2026-07-28' });
    const result = await callToolWithInput(
      client,
      'confirm',
      {},
      {
        onInputRequired: () => ({ confirm: { action: 'accept', content: { ok: true } } }),
      },
    );
    expect(JSON.parse(textOf(result))).toEqual({ answer: { ok: true }, state: 'sdk-state-1' });
  });
});
