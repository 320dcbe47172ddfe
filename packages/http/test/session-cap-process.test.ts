// A server process on this package's build (test/fixtures/session-server.mjs) with the session cap and idle
// expiry set: the cap holds (503 with our code), and a client that drops a long `work` call and never comes
// back cannot pin its slot: the session expires, the call is cancelled with SESSION_EXPIRED, the server's
// onSessionExpired hook says so, and the next client gets in.
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { HTTP_ERROR_CODES } from '../src/index.js';
import { RawHttp, workCall } from './fixtures/raw-http.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/session-server.mjs', import.meta.url));

/** Starts the fixture and reads its URL from the line it prints on stderr. */
async function spawnSessionServer(args: string[]): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [FIXTURE, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  child.stderr!.setEncoding('utf8');
  const url = await new Promise<string>((resolve, reject) => {
    let text = '';
    child.stderr!.on('data', (chunk: string) => {
      text += chunk;
      const match = /listening on (\S+)/.exec(text);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`the fixture exited (${code}): ${text}`)));
  });
  return { url, child };
}

const REVISION = '2025-06-18';
const SESSION_IDLE_MS = 400;

let server: { url: string; child: ChildProcess };
let stderr = '';

beforeAll(async () => {
  server = await spawnSessionServer(['--max-sessions', '1', '--session-idle', String(SESSION_IDLE_MS)]);
  server.child.stderr!.on('data', (chunk: string) => {
    stderr += chunk;
  });
});
afterAll(async () => {
  if (!server || server.child.exitCode !== null) return;
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  server.child.kill('SIGTERM');
  await exited;
});

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
  expect(stderr).toMatch(
    new RegExp(`session ${session} expired after \\d+ ms without contact; 1 call\\(s\\) cancelled`),
  );
  await raw.initialize(REVISION); // the slot is free again
});
