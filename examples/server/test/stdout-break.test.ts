import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';

// Issue 21, item 6: the example server exits when its stdout breaks, even while its stdin stays open,
// as examples/proxy does (a process that can no longer answer must not linger holding its calls); and
// its logs never carry a full session id (a bearer credential for the session).

const SERVER = fileURLToPath(new URL('../dist/index.js', import.meta.url));

beforeAll(() => {
  if (!existsSync(SERVER)) throw new Error(`${SERVER} is missing: run \`pnpm build\` first`);
});

describe('examples/server on stdio', () => {
  it('exits when its stdout breaks while stdin is still open', async () => {
    const child = spawn(process.execPath, [SERVER], { stdio: ['pipe', 'pipe', 'pipe'] });
    try {
      let stderr = '';
      child.stderr!.setEncoding('utf8').on('data', (text: string) => {
        stderr += text;
      });
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      const init = {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      };
      child.stdin!.write(`${JSON.stringify(init)}\n`);
      await new Promise((resolve) => child.stdout!.once('data', resolve));
      child.stdout!.destroy(); // the reading end goes away: the next write is EPIPE
      // A running call writes progress into the broken pipe; stdin stays open throughout.
      const work = {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'work', arguments: { steps: 1_000, intervalMs: 5 }, _meta: { progressToken: 'w' } },
      };
      child.stdin!.write(`${JSON.stringify(work)}\n`);
      const code = await exited;
      expect(code, stderr).not.toBeNull();
      expect(child.stdin!.writableEnded).toBe(false);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});

describe('examples/server on HTTP', () => {
  it('logs a session expiry without the full session id', async () => {
    const child = spawn(process.execPath, [SERVER, '--http', '0', '--session-idle', '50'], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    try {
      let stderr = '';
      const saw = (pattern: RegExp): Promise<void> =>
        new Promise((resolve) => {
          const check = (): void => {
            if (pattern.test(stderr)) resolve();
            else child.stderr!.once('data', check);
          };
          check();
        });
      child.stderr!.setEncoding('utf8').on('data', (text: string) => {
        stderr += text;
      });
      await saw(/listening on (\S+)/);
      const url = /listening on (\S+)/.exec(stderr)![1]!;
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: '2025-06-18',
            capabilities: {},
            clientInfo: { name: 't', version: '1' },
          },
        }),
      });
      await response.text();
      const session = response.headers.get('mcp-session-id')!;
      expect(session.length).toBeGreaterThan(8);
      await saw(/expired after/);
      expect(stderr).toContain(`session ${session.slice(0, 8)}`);
      expect(stderr).not.toContain(session);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
