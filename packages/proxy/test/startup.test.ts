// The proxy's start: a pinned upstream revision is spoken or the proxy says why not; a failed start is
// said once, in a line a person reads, and the proxy exits 1 (the upstream refused) or 2 (bad start-up
// input: a flag, a token file, a port in use, a command that does not exist).
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { expect, it } from 'vitest';
import { commandLine, PROXY, V1_FIXTURE } from './procs.js';

function run(args: string[], port = '0'): Promise<{ code: number | null; err: string }> {
  const child = spawn(process.execPath, [PROXY, '--http', port, ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (chunk) => {
    err += String(chunk);
  });
  const exited = new Promise<{ code: number | null; err: string }>((resolve) =>
    child.once('close', (code) => resolve({ code, err })),
  );
  // A proxy that did start would run until stopped: stop it once it says it listens.
  child.stderr.on('data', () => {
    if (err.includes('listening on')) child.kill('SIGTERM');
  });
  return exited;
}

it('a pinned 2026-07-28 stdio upstream that only speaks legacy revisions is refused, not fallen back from', async () => {
  const upstream = commandLine(process.execPath, V1_FIXTURE);
  const { code, err } = await run(['--upstream-stdio', upstream, '--upstream-revision', '2026-07-28']);
  expect(err).not.toContain('listening on');
  expect(code).toBe(1);
  expect(err).toMatch(/server\/discover/);
  // `auto` may fall back: the same upstream starts on the newest legacy revision.
  const auto = await run(['--upstream-stdio', upstream]);
  expect(auto.err).toMatch(
    /^proxy: upstream #1 ready: .* \(2025-11-25\); fell back: server\/discover refused$/m,
  );
});

it('says once, in one line, that the upstream command does not exist, and exits 2', async () => {
  const { code, err } = await run(['--upstream-stdio', 'mcp-inflight-no-such-command']);
  expect(code).toBe(2);
  const lines = err.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^proxy: .*mcp-inflight-no-such-command/);
  expect(err).not.toMatch(/^\s+at /m);
});

it('names a port in use in one line and exits 2', async () => {
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  const port = String((taken.address() as { port: number }).port);
  try {
    const { code, err } = await run(['--upstream-stdio', commandLine(process.execPath, V1_FIXTURE)], port);
    expect(code).toBe(2);
    expect(err).toMatch(new RegExp(`^proxy: cannot listen: .*EADDRINUSE.*${port}$`, 'm'));
    expect(err).not.toMatch(/^\s+at /m);
  } finally {
    taken.close();
  }
});

it('a malformed --header and an unreadable token file end the proxy with one line and exit 2', async () => {
  const http = ['--upstream-http', 'http://127.0.0.1:9/mcp'];
  const [header, tokens] = await Promise.all([
    run([...http, '--header', 'no-colon']),
    run([...http, '--auth-token-file', '/nonexistent/tokens']),
  ]);
  for (const { code, err } of [header, tokens]) {
    expect(code).toBe(2);
    expect(err.trim().split('\n')).toHaveLength(1);
  }
  expect(header.err).toMatch(/^proxy: --header takes "Name: value"/);
  expect(tokens.err).toMatch(/^proxy: --auth-token-file: cannot read \/nonexistent\/tokens: ENOENT/);
});

it('an unreachable --redis URL at start is one line and exit 2 (no Redis needed to show it)', async () => {
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = (closed.address() as { port: number }).port;
  await new Promise((resolve) => closed.close(resolve)); // nothing listens there now
  const { code, err } = await run([
    '--upstream-http',
    'http://127.0.0.1:9/mcp',
    '--redis',
    `redis://127.0.0.1:${port}`,
  ]);
  expect(code).toBe(2);
  expect(err.trim().split('\n')).toEqual([
    expect.stringMatching(new RegExp(`^proxy: --redis: cannot reach Redis at 127\\.0\\.0\\.1:${port}: `)),
  ]);
});
