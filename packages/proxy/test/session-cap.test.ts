// The proxy's own HTTP session limits (--max-sessions, --session-idle), on real sockets: the cap refuses
// one more legacy host with 503 and the shared overload code, and a host that goes quiet loses its session
// so the slot comes back.
import { HttpClient } from '@mcp-inflight/http';
import { afterEach, expect, it } from 'vitest';
import { commandLine, type RunningProxy, startProxy, V1_FIXTURE } from './procs.js';

let proxy: RunningProxy | undefined;
afterEach(async () => {
  await proxy?.kill();
  proxy = undefined;
});

const initialize = (url: string) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    }),
  });

it('--max-sessions caps legacy host sessions; --session-idle frees a quiet one', async () => {
  proxy = await startProxy([
    '--upstream-stdio',
    commandLine(process.execPath, V1_FIXTURE),
    '--max-sessions',
    '1',
    '--session-idle',
    '400',
  ]);
  // No GET stream: an open one is contact, and this host is to go quiet.
  const first = new HttpClient({ url: proxy.url, revision: '2025-11-25', listen: false });
  await first.connect();
  const refused = await initialize(proxy.url);
  expect(refused.status).toBe(503);
  expect(((await refused.json()) as { error: { code: number } }).error.code).toBe(-32010);
  // The first host says nothing more: its session expires and a new host gets the slot.
  await expect
    .poll(async () => (await initialize(proxy!.url)).status, { timeout: 20_000, interval: 200 })
    .toBe(200);
  await first.close();
});
