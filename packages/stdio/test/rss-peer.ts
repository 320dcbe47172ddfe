import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// A peer over real pipes that measures the other process's memory: its resident set at idle after the
// handshake (the baseline, from /proc), and its peak (VmHWM while it lives, and its own maxRSS at exit).

/** The resident set and its high-water mark of `pid`, in bytes; undefined once it has exited. */
export function memoryOf(pid: number): { rssBytes: number; peakRssBytes: number } | undefined {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  const rss = /^VmRSS:\s+(\d+) kB/m.exec(status);
  const peak = /^VmHWM:\s+(\d+) kB/m.exec(status);
  if (!rss || !peak) return undefined; // exited, not yet reaped
  return { rssBytes: Number(rss[1]) * 1024, peakRssBytes: Number(peak[1]) * 1024 };
}

export const MiB = 1024 * 1024;

/** A child process spoken to in raw lines; it can stop reading what the child writes, for good. */
export class MeasuredPeer {
  readonly child: ChildProcess;
  stderr = '';
  /** Lines the child wrote that we read. */
  readonly lines: string[] = [];
  /** The highest VmHWM seen while the child lived. */
  peakRssBytes = 0;
  readonly exited: Promise<number | null>;
  #tail = '';
  #sampler: NodeJS.Timeout;

  /** Runs the Node script `script` with `args`, under a wrapper that reports its peak at exit. */
  constructor(script: string, args: string[], env: Record<string, string> = {}) {
    const wrapper = fileURLToPath(new URL('./fixtures/report-peak.mjs', import.meta.url));
    this.child = spawn(process.execPath, [wrapper, script, ...args], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    });
    this.child.stdin!.on('error', () => {});
    this.child.stderr!.setEncoding('utf8').on('data', (text: string) => {
      this.stderr += text;
    });
    this.child.stdout!.setEncoding('utf8').on('data', this.#onData);
    this.exited = new Promise((resolve) => this.child.once('exit', (code) => resolve(code)));
    this.#sampler = setInterval(() => this.sample(), 10);
    void this.exited.then(() => clearInterval(this.#sampler));
  }

  /** Reads the child's memory now; returns it (undefined once it has exited). */
  sample(): { rssBytes: number; peakRssBytes: number } | undefined {
    const memory = memoryOf(this.child.pid!);
    if (memory && memory.peakRssBytes > this.peakRssBytes) this.peakRssBytes = memory.peakRssBytes;
    return memory;
  }

  /** The peak resident set: the child's own account at exit, or the highest sampled while it lives. */
  get peakBytes(): number {
    const reported = /PEAK_RSS (\d+)/.exec(this.stderr);
    return Math.max(this.peakRssBytes, reported ? Number(reported[1]) : 0);
  }

  send(message: unknown): void {
    this.child.stdin!.write(`${JSON.stringify(message)}\n`);
  }

  /** Waits for a line that contains `text`. */
  async line(text: string, ms = 10_000): Promise<string> {
    const until = performance.now() + ms;
    for (;;) {
      const found = this.lines.find((line) => line.includes(text));
      if (found !== undefined) return found;
      if (performance.now() > until)
        throw new Error(`no line with ${text}; stderr: ${this.stderr.slice(-500)}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  /** Answers the handshake, then measures the idle resident set (after the heap has settled). */
  async initialize(): Promise<number> {
    this.send({
      jsonrpc: '2.0',
      id: 'init',
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'peer', version: '1' } },
    });
    await this.line('"id":"init"');
    this.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await new Promise((resolve) => setTimeout(resolve, 500));
    return this.sample()!.rssBytes;
  }

  /** From now on nothing the child writes is read: its pipe fills and stays full. */
  stopReading(): void {
    this.child.stdout!.off('data', this.#onData);
    this.child.stdout!.pause();
  }

  kill(): void {
    clearInterval(this.#sampler);
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }

  readonly #onData = (text: string): void => {
    const lines = (this.#tail + text).split('\n');
    this.#tail = lines.pop()!;
    this.lines.push(...lines);
  };
}
