// The default text log cannot be forged: a host's tool names and cancel reasons, and the upstream's error
// messages about them, carry line breaks, carriage returns, terminal escapes and Unicode separators
// through a real proxy process; every line on its stderr is still one of the proxy's own.
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { HttpClient } from '@mcp-inflight/http';
import { afterAll, expect, it } from 'vitest';
import { commandLine, PROXY, SERVER } from './procs.js';

const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
});

const STDERR_UPSTREAM = fileURLToPath(new URL('./fixtures/stderr-upstream.mjs', import.meta.url));

/** The built proxy with its default (text) log, its stderr kept whole. */
function textProxy(upstream = SERVER): Promise<{ url: string; stderr: () => string }> {
  const child = spawn(
    process.execPath,
    [PROXY, '--http', '0', '--upstream-stdio', commandLine(process.execPath, upstream)],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  children.push(child);
  let text = '';
  child.stderr!.setEncoding('utf8');
  return new Promise((resolve, reject) => {
    child.stderr!.on('data', (chunk: string) => {
      text += chunk;
      const match = /^proxy: listening on (http:\/\/\S+)/m.exec(text);
      if (match) resolve({ url: match[1]!, stderr: () => text });
    });
    child.once('exit', (code) => reject(new Error(`proxy exited (${code}): ${text}`)));
  });
}

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 20));
}

// Every way a string can start a new line in a terminal, a pager or a log shipper, or repaint one.
const FORGERIES = [
  'tool\nproxy: forged by LF',
  'tool\r\nproxy: forged by CRLF',
  'tool\rproxy: forged by CR',
  'tool\u2028proxy: forged by LINE SEPARATOR',
  'tool\u2029proxy: forged by PARAGRAPH SEPARATOR',
  'tool\u0085proxy: forged by NEL',
  'tool\u001b[2K\u001b[1Gproxy: forged by ANSI erase',
  'tool\u202eproxy: forged by RIGHT-TO-LEFT OVERRIDE',
];

it('hostile tool names and cancel reasons stay inside their own log lines, escaped', async () => {
  const proxy = await textProxy();
  const host = new HttpClient({ url: proxy.url, revision: '2025-11-25' });
  await host.connect();
  for (const name of FORGERIES) {
    // The upstream refuses an unknown tool, naming it: host- and upstream-controlled text in one line.
    await expect(host.request('tools/call', { name, arguments: {} })).rejects.toThrow();
  }
  const stop = new AbortController();
  let running = false;
  const call = host.request(
    'tools/call',
    { name: 'work', arguments: { steps: 100, intervalMs: 50 } },
    { signal: stop.signal, onprogress: () => (running = true) },
  );
  const ended = call.catch(() => undefined);
  await until(() => running);
  stop.abort(FORGERIES.join(' '));
  await ended;
  await until(() => proxy.stderr().includes('cancelled upstream (CANCELLED)'));
  await until(() => proxy.stderr().split('\n').length > FORGERIES.length + 4);
  await host.close();

  const log = proxy.stderr();
  // One line per newline: nothing else in the log ends a line or drives a terminal.
  for (const c of ['\r', '\u0085', '\u2028', '\u2029', '\u001b', '\u202e']) expect(log).not.toContain(c);
  const lines = log.split('\n').filter((line) => line !== '');
  for (const line of lines) expect(line).toMatch(/^proxy: (?!forged)/);
  expect(lines.some((line) => line.includes('tool\\nproxy: forged by LF'))).toBe(true);
  expect(lines.some((line) => line.includes('tool\\r\\nproxy: forged by CRLF'))).toBe(true);
  expect(lines.some((line) => line.includes('tool\\u2028proxy: forged by LINE SEPARATOR'))).toBe(true);
  expect(lines.some((line) => line.includes('tool\\u001b[2K\\u001b[1Gproxy: forged by ANSI'))).toBe(true);
  // The host's cancel reason, as the host leg received it and as the call's end reports it.
  const cancels = lines.filter((line) => line.includes('forged by RIGHT-TO-LEFT OVERRIDE'));
  expect(cancels.some((line) => line.includes('the peer cancelled tools/call'))).toBe(true);
  expect(cancels.some((line) => line.includes('tools/call work') && line.includes('\\u202eproxy'))).toBe(
    true,
  );
});

it("a command upstream's stderr reaches the log one marked, escaped line at a time", async () => {
  const proxy = await textProxy(STDERR_UPSTREAM);
  const host = new HttpClient({ url: proxy.url, revision: '2025-11-25' });
  await host.connect();
  await host.close();
  await until(() => proxy.stderr().includes('forged by LS'));
  const log = proxy.stderr();
  for (const c of ['\r', '\u2028', '\u001b']) expect(log).not.toContain(c);
  const lines = log.split('\n').filter((line) => line !== '');
  for (const line of lines) expect(line).toMatch(/^(?:proxy|upstream): /);
  expect(lines.filter((line) => line.startsWith('proxy: listening on'))).toHaveLength(1);
  expect(lines).toContain('upstream: proxy: listening on http://127.0.0.9:1/forged');
  expect(lines.some((line) => line.startsWith('upstream: \\u001b[2K'))).toBe(true);
});
