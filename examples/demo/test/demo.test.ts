// `pnpm demo` end to end: the built demo runs host -> proxy -> server, exits 0, and its summary is right.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const DEMO = fileURLToPath(new URL('../dist/index.js', import.meta.url));

it('runs with no set-up, exits 0, and prints what each leg saw, with no escape codes in a log', async () => {
  const started = Date.now();
  const child = spawn(process.execPath, [DEMO], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (chunk) => {
    out += String(chunk);
  });
  child.stderr.on('data', (chunk) => {
    out += String(chunk);
  });
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  expect(code, out).toBe(0);
  console.info(`demo: ${Date.now() - started} ms`); // the test's timeout bounds it; load decides the rest
  expect(out).not.toContain('\x1b');
  const summary = out.slice(out.indexOf('What each leg saw'));
  // host: each call's end, with who ended it
  expect(summary).toMatch(/finishes {3}completed after \d\.\d s, 8 progress updates/);
  expect(summary).toMatch(/cancelled {2}cancelled by the user after 1\.\d s, \d+ progress updates/);
  expect(summary).toMatch(
    /silent {5}idle limit \(the proxy said IDLE_TIMEOUT\) after \d\.\d s, 0 progress updates/,
  );
  expect(summary).toMatch(
    /chatty {5}ceiling \(the proxy said CEILING\) after \d\.\d s, \d+ progress updates/,
  );
  // proxy: relayed and cancelled, with the reason it gave the server
  expect(summary).toMatch(/finishes {3}completed; relayed 8 of 8 progress updates/);
  expect(summary).toMatch(
    /cancelled {2}cancelled upstream, reason "DISCONNECTED: the client closed the response stream/,
  );
  expect(summary).toMatch(
    /silent {5}cancelled upstream, reason "IDLE_TIMEOUT: idle limit of 800 ms passed with no progress \(0 updates before\)"/,
  );
  expect(summary).toMatch(/chatty {5}cancelled upstream, reason "CEILING: hard ceiling of 3000 ms reached/);
  // server: its own counts agree
  expect(summary).toContain('running 0, completed 1, cancelled 3');
  expect(summary).toContain('Every leg agrees');
  // the host's live view, as plain lines
  expect(out).toMatch(/^cancelled: cancelled by you after 1\.\d s, \d+ progress updates$/m);
}, 30_000);
