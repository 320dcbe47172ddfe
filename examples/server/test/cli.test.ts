// The example server's command line: --help, bad arguments and a port in use are each one clear message
// and an exit code, never a silent stdio server or a stack trace.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { spawnStdio } from '@mcp-inflight/stdio';
import { expect, it } from 'vitest';

const SERVER = fileURLToPath(new URL('../dist/index.js', import.meta.url));

function run(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  // stdin closed at once: a server that wrongly starts on stdio then exits 0 with nothing said.
  const child = spawn(process.execPath, [SERVER, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk) => {
    out += String(chunk);
  });
  child.stderr.on('data', (chunk) => {
    err += String(chunk);
  });
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, out, err })));
}

it('--help prints the usage and exits 0 instead of serving stdio', async () => {
  const { code, out } = await run(['--help']);
  expect(code).toBe(0);
  expect(out).toMatch(/^usage: mcp-inflight-example-server/);
  expect(out).toContain('--http PORT');
  expect(out).toContain('--conformance');
});

it('an unknown argument is named, with the usage, and exits 2', async () => {
  const { code, err } = await run(['--htp', '3000']);
  expect(code).toBe(2);
  expect(err).toMatch(/^example server: Unknown option '--htp'/m);
  expect(err).toContain('usage: mcp-inflight-example-server');
});

it('a port in use is one line and exit 1, not a stack trace', async () => {
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  const port = (taken.address() as { port: number }).port;
  try {
    const { code, err } = await run(['--http', String(port)]);
    expect(code).toBe(1);
    expect(err.trim().split('\n')).toEqual([
      expect.stringMatching(new RegExp(`^example server: .*EADDRINUSE.*${port}`)),
    ]);
  } finally {
    taken.close();
  }
});

it('--conformance adds the conformance tools on stdio too, and work still works', async () => {
  const client = spawnStdio(
    { command: process.execPath, args: [SERVER, '--conformance'] },
    { stderr: 'ignore' },
  );
  try {
    await client.connect({ revision: '2025-06-18' });
    const listed = (await client.request('tools/list', {}, {})) as { tools: Array<{ name: string }> };
    expect(listed.tools.map((t) => t.name)).toEqual([
      'work',
      'status',
      'confirm',
      'test_simple_text',
      'test_error_handling',
      'test_tool_with_progress',
      'test_input_required_result_elicitation',
      'test_input_required_result_sampling',
      'test_input_required_result_list_roots',
      'test_input_required_result_request_state',
      // The rest of the suite's fixtures (conformance-content.ts).
      'test_image_content',
      'test_audio_content',
      'test_embedded_resource',
      'test_multiple_content_types',
      'json_schema_2020_12_tool',
      'test_sampling',
      'test_elicitation',
      'test_elicitation_sep1034_defaults',
      'test_elicitation_sep1330_enums',
      'test_tool_with_logging',
      'test_logging_tool',
      'test_missing_capability',
      'test_streaming_elicitation',
      'test_input_required_result_multiple_inputs',
      'test_input_required_result_multi_round',
      'test_input_required_result_tampered_state',
      'test_input_required_result_capabilities',
      'test_custom_header',
      'test_trigger_tool_change',
      'test_trigger_prompt_change',
    ]);
    // The hook changes the list; a legacy client hears of it on the pipe, unasked.
    let changed = 0;
    client.onNotification('notifications/tools/list_changed', () => changed++);
    await client.callTool('test_trigger_tool_change', {});
    await expect.poll(() => changed).toBe(1);
    const done = await client.request(
      'tools/call',
      { name: 'work', arguments: { steps: 1, intervalMs: 1 } },
      {},
    );
    expect(done).toEqual({ content: [{ type: 'text', text: 'done 1 steps' }] });
    const text = await client.request('tools/call', { name: 'test_simple_text', arguments: {} }, {});
    expect(text).toEqual({
      content: [{ type: 'text', text: 'This is a simple text response for testing.' }],
    });
  } finally {
    await client.close();
  }
});

it('an unreachable --redis URL at start is one line and exit 2 (no Redis needed to show it)', async () => {
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = (closed.address() as { port: number }).port;
  await new Promise((resolve) => closed.close(resolve)); // nothing listens there now
  const { code, err } = await run(['--http', '0', '--tasks', '--redis', `redis://127.0.0.1:${port}`]);
  expect(code).toBe(2);
  expect(err.trim().split('\n')).toEqual([
    expect.stringMatching(
      new RegExp(`^example server: --redis: cannot reach Redis at 127\\.0\\.0\\.1:${port}: `),
    ),
  ]);
});

it('a --request-state-secret-file that is missing or too short is one line and exit 2', async () => {
  const { mkdtempSync, rmSync, writeFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const dir = mkdtempSync(join(tmpdir(), 'secret-'));
  try {
    const short = join(dir, 'short');
    writeFileSync(short, 'too short\n');
    const missing = await run(['--request-state-secret-file', join(dir, 'none')]);
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(
      /^example server: --request-state-secret-file: cannot read .*none: ENOENT\n$/,
    );
    const tooShort = await run(['--request-state-secret-file', short]);
    expect(tooShort.code).toBe(2);
    expect(tooShort.err).toMatch(/holds 9 bytes; the secret must be at least 32\n$/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
