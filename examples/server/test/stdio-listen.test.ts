// Listen streams over stdio against `node examples/server/dist/index.js --conformance`, whose
// test_trigger_tool_change changes the tool list: our spawnStdio client on 2026-07-28 sends
// `subscriptions/listen` by itself for the list change it handles, and the official SDK v2 client's
// listen() gets the change on the pipe, tagged with its subscription id, and cancels with
// notifications/cancelled.
import { fileURLToPath } from 'node:url';
import { spawnStdio } from '@mcp-inflight/stdio';
import { Client, type JSONRPCMessage } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { expect, it } from 'vitest';

const SERVER = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

it('our stdio client on 2026-07-28 listens by itself for the list change it handles', async () => {
  const client = spawnStdio(
    { command: process.execPath, args: [SERVER, '--conformance'] },
    { stderr: 'ignore' },
  );
  try {
    const changes: Array<Record<string, unknown> | undefined> = [];
    client.onNotification('notifications/tools/list_changed', (params) => changes.push(params));
    await client.connect();
    expect(client.revision).toBe('2026-07-28');
    await client.callTool('test_trigger_tool_change', {});
    await expect.poll(() => changes.length).toBe(1);
    expect(changes[0]).toMatchObject({ _meta: { [SUBSCRIPTION_ID]: expect.anything() } });
    expect(client.stats()).toMatchObject({ outboundInFlight: 1, errors: 0 }); // the listen, and nothing else
  } finally {
    await client.close();
  }
  expect(client.stats()).toMatchObject({ outboundInFlight: 0, outboundTokens: 0 });
});

it('the official SDK v2 client listens over stdio and cancels with notifications/cancelled', async () => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [SERVER, '--conformance'],
    stderr: 'pipe',
  });
  const sent: JSONRPCMessage[] = [];
  const send = transport.send.bind(transport);
  transport.send = async (message: JSONRPCMessage, options) => {
    sent.push(message);
    return send(message, options);
  };
  const client = new Client(
    { name: 'sdk-v2-listener', version: '2.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  const changes: unknown[] = [];
  client.setNotificationHandler('notifications/tools/list_changed', (n) => void changes.push(n));
  await client.connect(transport);
  try {
    const subscription = await client.listen({ toolsListChanged: true });
    expect(subscription.honoredFilter).toEqual({ toolsListChanged: true });
    await client.callTool({ name: 'test_trigger_tool_change', arguments: {} });
    await expect.poll(() => changes.length).toBe(1);
    expect(changes[0]).toMatchObject({ params: { _meta: { [SUBSCRIPTION_ID]: expect.anything() } } });
    await subscription.close();
    expect(await subscription.closed).toBe('local');
    const listen = sent.find((m) => 'method' in m && m.method === 'subscriptions/listen') as { id: unknown };
    expect(sent.at(-1)).toMatchObject({
      method: 'notifications/cancelled',
      params: { requestId: listen.id },
    });
    // The server is still serving, and the stream is gone: the next change reaches nobody.
    await client.callTool({ name: 'test_trigger_tool_change', arguments: {} });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(changes).toHaveLength(1);
  } finally {
    await client.close();
  }
});
