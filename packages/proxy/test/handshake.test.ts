// The upstream handshake through the built proxy, on real child processes: a modern upstream still
// starting 6 s and 20 s after spawn is spoken to in 2026-07-28 (not read as legacy), a legacy upstream that
// ignores server/discover connects after the probe's grace, and /readyz follows the upstream (503 while it
// starts, 200 once ready, 503 after it is killed). The three start side by side.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { commandLine, eventually, type RunningProxy, startProxy } from './procs.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/upstream.mjs', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'proxy-handshake-'));
const running: RunningProxy[] = [];
afterAll(async () => {
  await Promise.all(running.map((p) => p.kill()));
});

const start = async (args: string[], until?: string) => {
  const p = await startProxy(args, until);
  running.push(p);
  return p;
};
const upstreamStarted = (p: RunningProxy) =>
  eventually(() => {
    const event = p.events.find((e) => e.type === 'upstream-started');
    expect(event).toBeDefined();
    return event as Record<string, unknown>;
  }, 40_000);

it('modern upstreams starting after 6 s and 20 s stay modern; a legacy one that ignores discover connects', {
  timeout: 60_000,
}, async () => {
  const pidFile = join(dir, 'six.pid');
  const stdio = (...args: string[]) => ['--upstream-stdio', commandLine(process.execPath, FIXTURE, ...args)];
  const others = Promise.all([start(stdio('--start-delay', '20000')), start(stdio('--legacy-silent'))]);
  const six = await start(
    [...stdio('--start-delay', '6000', '--pid-file', pidFile), '--admin-port', '0'],
    'admin-listening',
  );
  const admin = String(six.url);
  const notYet = await fetch(`${admin}readyz`);
  expect(notYet.status).toBe(503);
  expect(await notYet.json()).toEqual({ status: 'unready', reason: 'the upstream is starting (start #1)' });
  expect((await fetch(`${admin}healthz`)).status).toBe(200);
  const [twenty, legacy] = await others;

  const [s6, s20, sl] = await Promise.all([six, twenty, legacy].map(upstreamStarted));
  expect(s6).toMatchObject({ revision: '2026-07-28' });
  expect(s20).toMatchObject({ revision: '2026-07-28' });
  expect(sl).toMatchObject({ revision: '2025-06-18' });
  expect(sl?.fallback).toBe('server/discover unanswered');
  expect(twenty.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);

  await eventually(async () => expect((await fetch(`${admin}readyz`)).status).toBe(200), 10_000);
  process.kill(Number(readFileSync(pidFile, 'utf8')), 'SIGKILL');
  await eventually(async () => expect((await fetch(`${admin}readyz`)).status).toBe(503), 10_000);
});
