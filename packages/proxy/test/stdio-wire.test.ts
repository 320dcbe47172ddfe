// The built proxy on stdio, read line by line: progress flushed before the result and none after it, ids
// and tokens restored to the host's own, and bad input answered with the JSON-RPC error the spec names
// while the proxy keeps serving.
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { commandLine, PROXY, V1_FIXTURE } from './procs.js';

interface Wire {
  child: ChildProcess;
  lines: Array<Record<string, unknown>>;
  send(value: unknown): void;
  sendRaw(text: string): void;
  /** Resolves with the first line matching `match`, waiting for it. */
  next(match: (m: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
}

let proxy: ChildProcess | undefined;
afterEach(() => {
  proxy?.kill();
  proxy = undefined;
});

function start(): Wire {
  const child = spawn(
    process.execPath,
    [PROXY, '--upstream-stdio', commandLine(process.execPath, V1_FIXTURE), '--log', 'quiet'],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  proxy = child;
  const lines: Array<Record<string, unknown>> = [];
  const waiters: Array<() => void> = [];
  createInterface({ input: child.stdout! }).on('line', (line) => {
    lines.push(JSON.parse(line) as Record<string, unknown>);
    for (const wake of waiters.splice(0)) wake();
  });
  const next = async (match: (m: Record<string, unknown>) => boolean) => {
    for (;;) {
      const found = lines.find(match);
      if (found) return found;
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  };
  return {
    child,
    lines,
    send: (value) => child.stdin!.write(`${JSON.stringify(value)}\n`),
    sendRaw: (text) => child.stdin!.write(text),
    next,
  };
}

async function initialize(w: Wire): Promise<void> {
  w.send({
    jsonrpc: '2.0',
    id: 'init',
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
  });
  const reply = await w.next((m) => m.id === 'init');
  expect(reply.result).toMatchObject({ protocolVersion: '2025-06-18', serverInfo: { name: 'v1-fixture' } });
  w.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
}

describe('the proxy on stdio, on the wire', () => {
  it('restores the host’s id and token, flushes the last progress before the result, and sends none after', async () => {
    const w = start();
    await initialize(w);
    const call = (id: string, token: string, steps: number) =>
      w.send({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: {
          name: 'work',
          arguments: { steps, intervalMs: 20, tag: id },
          _meta: { progressToken: token },
        },
      });
    call('a', 'tok', 12);
    const result = await w.next((m) => m.id === 'a');
    expect(result.result).toEqual({ content: [{ type: 'text', text: 'a: done 12 steps' }] });
    await new Promise((r) => setTimeout(r, 100)); // anything late would have arrived by now
    const progress = w.lines
      .filter((m) => m.method === 'notifications/progress')
      .map((m) => m.params as Record<string, unknown>);
    expect(progress.every((p) => p.progressToken === 'tok')).toBe(true);
    const values = progress.map((p) => p.progress as number);
    expect(values.at(-1)).toBe(12);
    expect(values.length).toBeLessThan(12); // 20 ms apart, coalesced to one per 50 ms
    for (let i = 1; i < values.length; i++) expect(values[i]).toBeGreaterThan(values[i - 1] as number);
    expect(w.lines.indexOf(result)).toBe(w.lines.length - 1); // nothing after the result
  });

  it('answers bad input with the JSON-RPC error the spec names and keeps serving', async () => {
    const w = start();
    w.sendRaw('{"jsonrpc":"2.0","id":1,"method":\n');
    expect((await w.next((m) => (m.error as { code?: number } | undefined)?.code === -32700)).id).toBeNull();
    await initialize(w);
    w.send({ jsonrpc: '2.0', id: 2, method: 'no/such/method' });
    expect((await w.next((m) => m.id === 2)).error).toMatchObject({ code: -32601 });
    w.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: 'not an object' });
    expect((await w.next((m) => m.id === 3)).error).toMatchObject({ code: -32602 });
    w.send({
      jsonrpc: '2.0',
      id: 4,
      method: 'tools/call',
      params: { name: 'work', arguments: { steps: 'x' } },
    });
    // The upstream's own answer to bad arguments (a tool error result) passes through unchanged.
    expect((await w.next((m) => m.id === 4)).result).toMatchObject({ isError: true });
    w.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'never-sent' } }); // ignored quietly
    w.send({ jsonrpc: '2.0', id: 5, method: 'tools/list' });
    const listed = await w.next((m) => m.id === 5);
    expect((listed.result as { tools: Array<{ name: string }> }).tools.map((t) => t.name)).toEqual([
      'work',
      'seen',
      'pid',
    ]);
  });

  it('exits 0 when the host closes stdin, ending the calls in flight', async () => {
    const w = start();
    await initialize(w);
    w.send({
      jsonrpc: '2.0',
      id: 'long',
      method: 'tools/call',
      params: { name: 'work', arguments: { steps: 100, intervalMs: 50 } },
    });
    await new Promise((r) => setTimeout(r, 200));
    const exited = new Promise<number | null>((resolve) => w.child.once('exit', (code) => resolve(code)));
    const closedAt = Date.now();
    w.child.stdin!.end();
    expect(await exited).toBe(0);
    console.info(`the proxy exited ${Date.now() - closedAt} ms after its stdin ended`); // load's business
    expect(w.lines.find((m) => m.id === 'long')).toBeUndefined(); // no one is left to answer [CN9]
  });
});
