import { requestWithInput } from '@mcp-inflight/client/input';
import type { Revision } from '@mcp-inflight/core';
import { Endpoint, JsonRpcError, ProgressRelay } from '@mcp-inflight/core';
import { ManualClock } from '@mcp-inflight/core/testing';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { defineTool } from '../tools/define-tool.js';
import { serveTools } from '../tools/serve-tools.js';
import { bindingOf, RequestStateSigner } from './request-state.js';
import { clientSupports, elicit, inputRequired, inputRetryOf } from './serve-input.js';

// A tool that asks through the tool layer: 2026-07-28 clients get input_required and retry; legacy
// clients get a real elicitation/create and the tool runs again with the answer, in one call.

function pair(revision: Revision, clock = new ManualClock()) {
  const relay = new ProgressRelay({ clock, minIntervalMs: 0 });
  let client!: Endpoint;
  let server!: Endpoint;
  server = new Endpoint({
    role: 'server',
    transport: 'stdio',
    clock,
    progressRelay: relay,
    revision: revision === '2026-07-28' ? undefined : revision,
    channel: { write: (m) => queueMicrotask(() => client.receiveText(JSON.stringify(m))) },
  });
  client = new Endpoint({
    role: 'client',
    transport: 'stdio',
    clock,
    progressRelay: relay,
    revision,
    clientCapabilities: { elicitation: {} },
    channel: { write: (m) => queueMicrotask(() => server.receiveText(JSON.stringify(m))) },
  });
  return { client, server };
}

const signer = new RequestStateSigner();
let runs = 0;
const confirm = defineTool({
  name: 'confirm',
  input: z.object({ action: z.string() }),
  async run({ action }, ctx) {
    runs++;
    const binding = bindingOf(ctx.method, ctx.params);
    const { inputResponses, requestState } = inputRetryOf(ctx.params);
    if (requestState !== undefined) {
      const asked = await signer.open<{ action: string }>(requestState, binding);
      if (inputResponses?.ok) return `${String(inputResponses.ok.action)}: ${asked.action}`;
    }
    return inputRequired({
      inputRequests: { ok: elicit(`Proceed with ${action}?`, { ok: { type: 'boolean' } }) },
      requestState: await signer.seal({ action }, binding),
    });
  },
});

describe('a tool asking for input through the tool layer', () => {
  it('2026-07-28: input_required goes out as is, and the retry completes the call', async () => {
    const { client, server } = pair('2026-07-28');
    serveTools(server, [confirm]);
    runs = 0;
    const result = await requestWithInput(
      { endpoint: client, request: (m, p, o) => client.request(m, p, o) },
      'tools/call',
      { name: 'confirm', arguments: { action: 'deploy' } },
      { onInputRequired: () => ({ ok: { action: 'accept', content: { ok: true } } }) },
    );
    expect(result).toEqual({ resultType: 'complete', content: [{ type: 'text', text: 'accept: deploy' }] });
    expect(runs).toBe(2);
  });

  it('2026-07-28: a forged requestState is -32602 from the tool', async () => {
    const { client, server } = pair('2026-07-28');
    serveTools(server, [confirm]);
    const error = await client
      .request('tools/call', {
        name: 'confirm',
        arguments: { action: 'deploy' },
        inputResponses: { ok: { action: 'accept' } },
        requestState: 'v1.eyJlIjo5OTk5OTk5OTk5OTk5LCJkIjp7ImFjdGlvbiI6InJtIn19.AAAA',
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JsonRpcError);
    expect((error as JsonRpcError).code).toBe(-32602);
  });

  it('a legacy client: the tool layer sends elicitation/create and runs the tool again, in one call', async () => {
    const { client, server } = pair('2025-06-18');
    serveTools(server, [confirm]);
    runs = 0;
    let asked: unknown;
    client.setRequestHandler('elicitation/create', (params) => {
      asked = params?.message;
      return { action: 'decline' };
    });
    await expect(
      client.request('tools/call', { name: 'confirm', arguments: { action: 'drop' } }),
    ).resolves.toEqual({ content: [{ type: 'text', text: 'decline: drop' }] });
    expect(asked).toBe('Proceed with drop?');
    expect(runs).toBe(2);
  });

  it('a legacy client may take longer than a request idle window to answer the real request', async () => {
    const clock = new ManualClock();
    const { client, server } = pair('2025-06-18', clock);
    serveTools(server, [confirm]);
    let answer: ((value: unknown) => void) | undefined;
    client.setRequestHandler('elicitation/create', () => new Promise((resolve) => (answer = resolve)));
    const call = client.request(
      'tools/call',
      { name: 'confirm', arguments: { action: 'wait' } },
      { idleMs: Number.POSITIVE_INFINITY },
    );
    // Until the request is being answered, not a count of turns (the first tool call loads the tool
    // layer's schemas, which can take any number of turns on a busy machine).
    while (!answer) await new Promise<void>((resolve) => setImmediate(resolve));
    clock.advance(120_000); // two default idle windows (60 s) while the person answers
    answer({ action: 'accept' });
    await expect(call).resolves.toEqual({ content: [{ type: 'text', text: 'accept: wait' }] });
  });

  it('clientSupports reads the 2026-07-28 capabilities, and knows nothing on a legacy request', () => {
    const meta = { 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } };
    expect(clientSupports(meta, 'elicitation/create')).toBe(true);
    expect(clientSupports(meta, 'sampling/createMessage')).toBe(false);
    expect(clientSupports(undefined, 'roots/list')).toBeUndefined();
  });

  it('inputRetryOf refuses malformed retry fields with -32602, and inputRequired needs something to ask', () => {
    for (const params of [{ inputResponses: [] }, { inputResponses: { a: 1 } }, { requestState: 3 }]) {
      expect(() => inputRetryOf(params)).toThrow(JsonRpcError);
    }
    expect(() => inputRequired({ inputRequests: {} })).toThrow(TypeError);
  });
});
