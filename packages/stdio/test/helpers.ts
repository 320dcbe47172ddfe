import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { vi } from 'vitest';
import { type SpawnStdioOptions, type StdioClient, spawnStdio } from '../src/index.js';

/** Absolute path of a fixture script. */
export function fixturePath(name: string): string {
  return fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
}

/** Spawns a fixture script under this Node, stderr captured, with extra environment variables. */
export function spawnFixture(
  name: string,
  env: Record<string, string> = {},
  options: SpawnStdioOptions = {},
): StdioClient {
  return spawnStdio(
    { command: process.execPath, args: [fixturePath(name)] },
    { stderr: 'capture', env: { ...process.env, ...env }, ...options },
  );
}

/** The text of the first content block of a tool result. */
export function textOf(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content;
  const first = content?.[0];
  if (!first || typeof first.text !== 'string')
    throw new Error(`not a text result: ${JSON.stringify(result)}`);
  return first.text;
}

/** Milliseconds since `startMs` (performance clock). */
export function since(startMs: number): number {
  return performance.now() - startMs;
}

/**
 * A peer that speaks raw bytes to a child's stdin and reads its stdout with node:readline (not our
 * framer), so the wire is checked independently of the code under test.
 */
export class RawPeer {
  readonly child: ChildProcess;
  readonly messages: Record<string, unknown>[] = [];
  readonly rawLines: string[] = [];
  stderr = '';
  readonly exited: Promise<number | null>;

  constructor(command: string, args: string[], env: Record<string, string> = {}) {
    this.child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    this.child.stderr!.setEncoding('utf8').on('data', (text: string) => {
      this.stderr += text;
    });
    this.child.stdin!.on('error', () => {});
    createInterface({ input: this.child.stdout! }).on('line', (line) => {
      this.rawLines.push(line);
      this.messages.push(JSON.parse(line) as Record<string, unknown>);
    });
    // 'close', not 'exit': it comes once stdout and stderr have been read to the end too.
    this.exited = new Promise((resolve) => this.child.once('close', (code) => resolve(code)));
  }

  /** Writes raw text as is (add the newlines yourself). */
  write(text: string): void {
    this.child.stdin!.write(text);
  }

  /** Writes one message as a line. */
  send(message: unknown): void {
    this.write(`${JSON.stringify(message)}\n`);
  }

  /** Waits for the first message that matches. */
  async next(
    match: (m: Record<string, unknown>) => boolean,
    timeoutMs = 20_000,
  ): Promise<Record<string, unknown>> {
    let found: Record<string, unknown> | undefined;
    await vi.waitFor(
      () => {
        found = this.messages.find(match);
        if (!found)
          throw new Error(`no matching message yet; have ${JSON.stringify(this.messages).slice(0, 2_000)}`);
      },
      { timeout: timeoutMs, interval: 10 },
    );
    return found!;
  }

  /** The response with this id. */
  response(id: unknown, timeoutMs?: number): Promise<Record<string, unknown>> {
    return this.next((m) => m.id === id && !('method' in m), timeoutMs);
  }

  /** Ends stdin and waits for the exit code. */
  async end(): Promise<number | null> {
    this.child.stdin!.end();
    return this.exited;
  }

  kill(): void {
    if (this.child.exitCode === null) this.child.kill('SIGKILL');
  }
}
