// examples/server over HTTP with its session flags (moved here from packages/http, whose own process test
// now runs a fixture on its build): the cap holds (503 with our code), and a client that
// drops a long `work` call and never comes back cannot pin its slot: the session expires, the call is
// cancelled with SESSION_EXPIRED, the server's log says so, and the next client gets in.

import { HTTP_ERROR_CODES } from '@mcp-inflight/http';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { RawHttp, workCall } from '../../../packages/http/test/fixtures/raw-http.js';
import { type SpawnedServer, spawnExampleServer } from './fixtures/spawn-example.js';

const REVISION = '2025-06-18';
// Long enough that a loaded machine never lets the first session expire before the second initialize is refused.
const SESSION_IDLE_MS = 3_000;

let server: SpawnedServer;
let stderr = '';

beforeAll(async () => {
  server = await spawnExampleServer(['--max-sessions', '1', '--session-idle', String(SESSION_IDLE_MS)]);
  server.child.stderr!.on('data', (chunk: string) => {
    stderr += chunk;
  });
});
afterAll(() => server.stop());

it('--max-sessions and --session-idle: a dropped long call frees its slot, with SESSION_EXPIRED in the log', async () => {
  const raw = new RawHttp(server.url);
  const session = await raw.initialize(REVISION);
  const second = await raw.post({
    jsonrpc: '2.0',
    id: 'init',
    method: 'initialize',
    params: { protocolVersion: REVISION, capabilities: {}, clientInfo: { name: 'b', version: '1' } },
  });
  expect(second.status).toBe(503);
  expect(((await second.json()) as { error: { code: number } }).error.code).toBe(HTTP_ERROR_CODES.Overloaded);
  const drop = new AbortController();
  const pending = raw.post(workCall(1, 100, 1_000), raw.legacy(session, REVISION), drop.signal);
  const response = await pending;
  expect(response.status).toBe(200);
  drop.abort(); // a legacy disconnect is not a cancel: `work` runs on, 100 s if nothing stops it
  await vi.waitFor(() => expect(stderr).toContain('SESSION_EXPIRED'), { timeout: 20_000, interval: 20 });
  // The log names the session by a prefix only: its id is a credential.
  expect(stderr).toMatch(
    new RegExp(
      `session ${session.slice(0, 8)}… expired after \\d+ ms without contact; 1 call\\(s\\) cancelled`,
    ),
  );
  expect(stderr).not.toContain(session);
  await raw.initialize(REVISION); // the slot is free again
});
