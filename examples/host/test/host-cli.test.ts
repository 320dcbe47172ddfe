// The built host CLI against the built example server and proxy: progress lines, Ctrl-C, its own limits
// and a proxy's, all said in plain text when stdout is not a terminal.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { HttpClient } from '@mcp-inflight/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const HOST = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const SERVER = fileURLToPath(new URL('../../server/dist/index.js', import.meta.url));
const PROXY = fileURLToPath(new URL('../../proxy/dist/index.js', import.meta.url));
const quote = (w: string) => `'${w.replaceAll("'", "'\\''")}'`;
const SERVER_CMD = `${quote(process.execPath)} ${quote(SERVER)}`;
const NO_TOOLS = fileURLToPath(new URL('./fixtures/legacy-no-tools.mjs', import.meta.url));
const NO_TOOLS_CMD = `${quote(process.execPath)} ${quote(NO_TOOLS)}`;

interface Run {
  child: ChildProcess;
  lines: string[];
  done: Promise<{ code: number | null; out: string }>;
}

function host(args: string[]): Run {
  const child = spawn(process.execPath, [HOST, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  createInterface({ input: child.stdout! }).on('line', (line) => lines.push(line));
  let err = '';
  child.stderr!.on('data', (chunk) => {
    err += String(chunk);
  });
  const done = new Promise<{ code: number | null; out: string }>((resolve) =>
    child.once('close', (code) => resolve({ code, out: `${lines.join('\n')}\n${err}` })),
  );
  return { child, lines, done };
}

/** Starts a built server or proxy on HTTP port 0 and returns its URL (read from its stderr). */
function listen(script: string, args: string[]): Promise<{ url: string; stop: () => void }> {
  const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stderr! }).on('line', (line) => {
      const match = /listening on (http:\/\/\S+)/.exec(line);
      if (match) resolve({ url: match[1] as string, stop: () => child.kill() });
    });
    child.once('exit', () => reject(new Error(`${script} exited`)));
  });
}

let server: { url: string; stop: () => void };
let dir: string;
beforeAll(async () => {
  server = await listen(SERVER, ['--http', '0']);
  dir = mkdtempSync(join(tmpdir(), 'host-cli-'));
});
afterAll(() => {
  server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const status = async () => {
  const client = new HttpClient({ url: server.url });
  const result = (await client.request('tools/call', { name: 'status', arguments: {} }, {})) as {
    content: Array<{ text: string }>;
  };
  await client.close();
  return JSON.parse(result.content[0]!.text) as { running: number; completed: number; cancelled: number };
};

describe('the host CLI', () => {
  it('calls a tool over stdio, prints progress lines and why it ended, and exits 0', async () => {
    const report = join(dir, 'ok.json');
    const { code, out } = await host([
      '--stdio',
      SERVER_CMD,
      '--tool',
      'work',
      '--args',
      '{"steps":4,"intervalMs":150,"tag":"t"}',
      '--report',
      report,
    ]).done;
    expect(code).toBe(0);
    expect(out).not.toContain('\x1b');
    expect(out).toMatch(/^host: 1 call to stdio: .* \(2026-07-28\); Ctrl-C cancels$/m);
    expect(out).toMatch(/^work#1 {2}\[#+\.*\] {2}1\/4 {2}25%/m);
    expect(out).toMatch(/^work#1: completed after \d\.\d s, 4 progress updates: t: done 4 steps$/m);
    const json = JSON.parse(readFileSync(report, 'utf8')) as {
      revision: string;
      calls: Array<Record<string, unknown>>;
      wire: unknown;
    };
    expect(json.revision).toBe('2026-07-28');
    expect(json.calls[0]).toMatchObject({
      label: 'work#1',
      updates: 4,
      progress: 4,
      total: 4,
      outcome: { kind: 'completed' },
    });
    // From the client endpoint's event stream: one call, four updates, nothing cancelled or late.
    expect(json.wire).toEqual({
      requests: 1,
      cancelsSent: { notification: 0, 'close-stream': 0 },
      deadlines: {},
      progressAccepted: 4,
      progressDropped: 0,
      late: 0,
      errors: 0,
    });
  });

  it('Ctrl-C cancels every call in flight, tells the server, says so, and exits 130', async () => {
    const before = await status();
    const run = host([
      '--http',
      server.url,
      '--revision',
      '2025-06-18',
      '--tool',
      'work',
      '--args',
      '{"steps":50,"intervalMs":100}',
      '--tool',
      'work',
      '--args',
      '{"steps":50,"intervalMs":100}',
    ]);
    while (!run.lines.some((l) => l.startsWith('work#2 '))) await new Promise((r) => setTimeout(r, 20));
    run.child.kill('SIGINT');
    const { code, out } = await run.done;
    expect(code).toBe(130);
    expect(out).toContain('host: Ctrl-C: cancelling 2 calls (press again to quit at once)');
    expect(out).toMatch(/^work#1: cancelled by you after \d\.\d s/m);
    expect(out).toMatch(/^work#2: cancelled by you after \d\.\d s/m);
    const after = await status();
    expect(after.cancelled - before.cancelled).toBe(2);
    expect(after.running).toBe(0);
  });

  it('ends a silent call at its own idle limit and says it was this host’s', async () => {
    const { code, out } = await host([
      '--http',
      server.url,
      '--idle-timeout',
      '300',
      '--tool',
      'work',
      '--args',
      '{"steps":1,"intervalMs":2000}',
    ]).done;
    expect(code).toBe(1);
    expect(out).toMatch(
      /^work#1: idle limit \(this host\) after \d+\.\d s, 0 progress updates: idle limit of 300 ms passed with no progress/m,
    );
  });

  describe('through the proxy', () => {
    let proxy: { url: string; stop: () => void };
    beforeAll(async () => {
      proxy = await listen(PROXY, ['--http', '0', '--upstream-stdio', SERVER_CMD, '--max-timeout', '700']);
    });
    afterAll(() => proxy?.stop());

    it('tells the proxy’s ceiling from its own', async () => {
      const { code, out } = await host([
        '--http',
        proxy.url,
        '--tool',
        'work',
        '--label',
        'long',
        '--args',
        '{"steps":20,"intervalMs":100}',
      ]).done;
      expect(code).toBe(1);
      expect(out).toMatch(
        /^long: ceiling \(upstream\) after \d+\.\d s, \d+ progress updates: hard ceiling of 700 ms reached/m,
      );
    });

    it('lists the upstream’s tools', async () => {
      const listed = await host(['--http', proxy.url, '--list']).done;
      expect(listed.code).toBe(0);
      expect(listed.out).toMatch(/^work {2}Sleeps intervalMs per step/m);
      expect(listed.out).toMatch(/^status {2}Counts of work calls/m);
    });
  });

  it('a pinned 2026-07-28 does not fall back to a legacy revision over stdio', async () => {
    const { code, out } = await host(['--stdio', NO_TOOLS_CMD, '--revision', '2026-07-28', '--list']).done;
    expect(code).toBe(1);
    expect(out).toMatch(/^host: could not connect: .*server\/discover.*$/m);
    // `auto` may fall back: the same server is reached as 2025-06-18.
    const auto = await host(['--stdio', NO_TOOLS_CMD, '--tool', 'work']).done;
    expect(auto.out).toMatch(/^host: 1 call to stdio: .* \(2025-06-18\); Ctrl-C cancels$/m);
  });

  it('--list against a server that refuses tools/list says so in one line and exits 1', async () => {
    const { code, out } = await host(['--stdio', NO_TOOLS_CMD, '--list']).done;
    expect(code).toBe(1);
    expect(out.trim()).toBe('host: could not list tools: server error -32601: Method not found: tools/list');
  });

  it('says what is wrong with its arguments and exits 2', async () => {
    const { code, out } = await host(['--tool', 'work']).done;
    expect(code).toBe(2);
    expect(out).toContain('host: give --stdio "<command line>" or --http URL');
    expect(out).toContain('usage: mcp-inflight-example-host');
  });
});
