// The demo when its legs are not built (the usual first-run mistake), or when the proxy will not start:
// one line that says what to do, exit 1, and no stack trace.
import { spawn } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { legPaths, startProxy } from '../src/legs.js';

const DEMO = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const MODULES = fileURLToPath(new URL('../node_modules', import.meta.url));

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'demo-unbuilt-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('with the other examples unbuilt, says to run pnpm build and exits 1', async () => {
  // A copy of the built demo in a tree of its own, where no other example has a dist/ yet.
  const demo = join(dir, 'examples/demo/dist/index.js');
  mkdirSync(join(dir, 'examples/demo/dist'), { recursive: true });
  copyFileSync(DEMO, demo);
  symlinkSync(MODULES, join(dir, 'node_modules'), 'dir');
  const child = spawn(process.execPath, [demo], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (chunk) => {
    out += String(chunk);
  });
  child.stderr.on('data', (chunk) => {
    out += String(chunk);
  });
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  expect(code).toBe(1);
  expect(out).toMatch(/^demo: .*packages\/proxy\/dist\/bin\.js.* missing: run `pnpm build`/m);
  expect(out).not.toMatch(/^\s+at /m);
});

it('a proxy that exits before listening is reported in one line with its own reason', async () => {
  // Stands in for the proxy: logs its failure the way the real one does with --log json, then exits 1.
  const fake = join(dir, 'fake-proxy.mjs');
  writeFileSync(
    fake,
    [
      `process.stderr.write(JSON.stringify({ type: 'upstream-failed', start: 1, message: 'spawn nope ENOENT' }) + '\\n');`,
      `process.stderr.write('proxy: could not start the upstream: spawn nope ENOENT\\n');`,
      'process.exit(1);',
    ].join('\n'),
  );
  chmodSync(fake, 0o755);
  const paths = { ...legPaths(), proxy: fake };
  const error = await startProxy([], paths).then(
    () => undefined,
    (e: unknown) => e as Error,
  );
  expect(error?.message).toBe(
    'the proxy exited with code 1 before listening: could not start the upstream: spawn nope ENOENT',
  );
});
