import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { InflightError, REVISIONS, type Revision } from '@mcp-inflight/core';
import { type StdioClient, spawnStdio } from '@mcp-inflight/stdio';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

// `node examples/server/dist/index.js` on stdio, driven raw and through @mcp-inflight/stdio's client,
// in every revision.

const SERVER = fileURLToPath(new URL('../dist/index.js', import.meta.url));

const children: ChildProcess[] = [];
const clients: StdioClient[] = [];
beforeAll(() => {
  if (!existsSync(SERVER)) throw new Error(`${SERVER} is missing: run \`pnpm build\` first`);
});
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

function status(client: StdioClient): Promise<{ running: number; completed: number; cancelled: number }> {
  return client
    .request('tools/call', { name: 'status', arguments: {} })
    .then((r) => JSON.parse((r as { content: { text: string }[] }).content[0]!.text));
}

describe('examples/server on stdio', () => {
  it('answers garbage, a truncated line and a line over the default limit with -32700, then the valid request', async () => {
    const child = spawn(process.execPath, [SERVER], { stdio: ['pipe', 'pipe', 'ignore'] });
    children.push(child);
    const messages: Record<string, unknown>[] = [];
    createInterface({ input: child.stdout! }).on('line', (line) => messages.push(JSON.parse(line)));
    child.stdin!.write('}{ garbage\n');
    child.stdin!.write('{"jsonrpc":"2.0","id":1,"method":"tools/ca\n');
    const huge = 17 * 1024 * 1024; // over the 16 MiB default
    const pad = 'x'.repeat(1024 * 1024);
    child.stdin!.write('{"jsonrpc":"2.0","id":2,"method":"ping","params":{"pad":"');
    for (let written = 0; written < huge; written += pad.length) child.stdin!.write(pad);
    child.stdin!.write('"}}\n');
    child.stdin!.write('{"jsonrpc":"2.0","id":"valid","method":"tools/call","params":{"name":"status"}}\n');
    await vi.waitFor(() => expect(messages.some((m) => m.id === 'valid')).toBe(true), { timeout: 20_000 });
    const errors = messages.filter((m) => 'error' in m);
    expect(errors.map((m) => [m.id, (m.error as { code: number }).code])).toEqual([
      [null, -32700],
      [null, -32700],
      [null, -32700],
    ]);
    expect((errors[2]!.error as { data: { lineBytes: number } }).data.lineBytes).toBeGreaterThan(huge);
    expect(messages.find((m) => m.id === 'valid')).toMatchObject({ result: { content: [{ type: 'text' }] } });
  });

  it.each(REVISIONS)(
    'speaks %s with the @mcp-inflight/stdio client: progress by its rules, idle expiry cancels the work',
    async (revision: Revision) => {
      const client = spawnStdio({ command: process.execPath, args: [SERVER] }, { stderr: 'ignore' });
      clients.push(client);
      const handshake = await client.connect({ revision });
      expect(handshake).toMatchObject({ revision, era: revision === '2026-07-28' ? 'modern' : 'legacy' });
      const seen: { progress: number; message?: string }[] = [];
      const result = await client.request(
        'tools/call',
        { name: 'work', arguments: { steps: 4, intervalMs: 10, tag: revision } },
        { onprogress: (p) => seen.push(p) },
      );
      expect(result).toMatchObject({ content: [{ type: 'text', text: `${revision}: done 4 steps` }] });
      expect(seen.at(-1)?.progress).toBe(4);
      // `message` exists from 2025-03-26 on [PS6].
      if (revision === '2024-11-05') expect(seen.every((p) => p.message === undefined)).toBe(true);
      else expect(seen.at(-1)?.message).toBe(`${revision}: step 4 of 4`);

      const error = await client
        .request('tools/call', { name: 'work', arguments: { steps: 10, intervalMs: 1_000 } }, { idleMs: 100 })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InflightError);
      expect((error as InflightError).code).toBe('IDLE_TIMEOUT');
      await expect.poll(() => status(client)).toEqual({ running: 0, completed: 1, cancelled: 1, stopped: 0 });
    },
  );

  it('exits promptly when its stdin closes, aborting work in flight', async () => {
    const client = spawnStdio({ command: process.execPath, args: [SERVER] }, { stderr: 'ignore' });
    clients.push(client);
    await client.connect();
    const call = client
      .request('tools/call', { name: 'work', arguments: { steps: 1_000, intervalMs: 50 } })
      .catch((e: unknown) => e);
    await expect.poll(() => status(client).then((s) => s.running)).toBe(1);
    const started = performance.now();
    client.child.stdin!.end();
    const exit = await client.exited;
    // Well before the 50 s of work left (a bound load cannot reach): the server did not wait for it.
    expect(performance.now() - started).toBeLessThan(25_000);
    expect(exit).toEqual({ code: 0, signal: null });
    expect(await call).toMatchObject({
      code: 'UPSTREAM_CLOSED',
      message: expect.stringMatching(/exited with code 0/),
    });
  });
});
