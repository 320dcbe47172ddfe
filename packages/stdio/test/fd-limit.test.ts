import { spawn } from 'node:child_process';
import { expect, it } from 'vitest';
import { fixturePath } from './helpers.js';

// Issue 45 item 6: a spawn at the fd limit fails before its pipes exist. spawnStdio threw "Cannot read
// properties of undefined (reading 'on')" from inside; now the client's calls fail with the spawn error
// (UPSTREAM_CLOSED naming EMFILE), and a spawn once descriptors are free again works. A real process
// under `ulimit -n` that holds every descriptor it may open.

it('fails the connect naming EMFILE at the fd limit, and spawns again once descriptors are free', async () => {
  const child = spawn(
    'sh',
    ['-c', `ulimit -n 64 && exec "${process.execPath}" "${fixturePath('fd-limit-client.mjs')}"`],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => {
    out += text;
  });
  await new Promise((resolve) => child.once('exit', resolve));
  const report = JSON.parse(out) as {
    held: number;
    atLimit: { ok: boolean; stage: string; code?: string; message: string; exit?: string };
    after: { ok: boolean };
  };
  expect(report.held).toBeGreaterThan(0);
  expect(report.atLimit).toMatchObject({
    ok: false,
    stage: 'connect',
    code: 'UPSTREAM_CLOSED',
    exit: 'EMFILE',
  });
  expect(report.atLimit.message).toMatch(/could not start: spawn .* EMFILE/);
  expect(report.after).toEqual({ ok: true });
}, 30_000);
