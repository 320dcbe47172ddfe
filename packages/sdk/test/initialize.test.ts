import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect, it } from 'vitest';
import { callWithDeadline } from '../src/index.js';

// SDK v1 sends notifications/cancelled for any request whose signal aborts, initialize included; the
// helper must never let it [CN7].
it('a limit on initialize ends the wait but never cancels initialize on the wire (SDK v1)', async () => {
  const sent: Array<{ method?: string }> = [];
  const transport = {
    start: async () => {},
    close: async () => {},
    send: async (message: { method?: string }) => {
      sent.push(message);
    },
  };
  const client = new Client({ name: 'host', version: '1' });
  // Attach the transport as Protocol.connect does, without Client.connect's own handshake.
  const protocolConnect = Object.getPrototypeOf(Object.getPrototypeOf(client)).connect as (
    t: unknown,
  ) => Promise<void>;
  await protocolConnect.call(client, transport);
  const params = {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'host', version: '1' },
  };
  const call = callWithDeadline(client as never, { method: 'initialize', params }, { idleMs: 30 });
  await expect(call).rejects.toMatchObject({ code: 'IDLE_TIMEOUT' });
  await new Promise((resolve) => setTimeout(resolve, 20));
  expect(sent.map((m) => m.method)).toEqual(['initialize']);
});
