import type { Writable } from 'node:stream';

/**
 * Default write budget: bytes written but not yet taken by the peer (ours plus the stream's own buffer),
 * 64 MiB. A peer that stops reading for that long is treated as gone, so it cannot take the heap.
 *
 * @example
 * ```ts
 * import { DEFAULT_MAX_UNSENT_BYTES, serveStdio } from '@mcp-inflight/stdio';
 * serveStdio(() => {}, { maxUnsentBytes: DEFAULT_MAX_UNSENT_BYTES / 8 }); // give up on a stalled client sooner
 * ```
 */
export const DEFAULT_MAX_UNSENT_BYTES = 64 * 1024 * 1024;

/**
 * Options for a {@link LineWriter}.
 *
 * @example
 * ```ts
 * import { LineWriter, type LineWriterOptions } from '@mcp-inflight/stdio';
 * const options: LineWriterOptions = {
 *   maxUnsentBytes: 8 << 20,
 *   onOverflow: (queuedBytes) => {
 *     // The writer has stopped writing; the reader is taken as gone.
 *     console.error(`the reader stopped: ${queuedBytes} bytes waiting`);
 *     process.exit(1);
 *   },
 * };
 * const writer = new LineWriter(process.stdout, options);
 * ```
 */
export interface LineWriterOptions {
  /** Bound on bytes waiting for a slow reader (ours plus the stream's buffer). @default 64 MiB */
  maxUnsentBytes?: number;
  /** Called once when the bound is passed; the writer stops writing (the caller should close). */
  onOverflow?: (queuedBytes: number) => void;
}

/**
 * Counters a {@link LineWriter} keeps.
 *
 * @example
 * ```ts
 * import { LineWriter, type LineWriterStats } from '@mcp-inflight/stdio';
 * const writer = new LineWriter(process.stdout);
 * for (let i = 1; i <= 3; i++) {
 *   writer.writeLine(JSON.stringify({ jsonrpc: '2.0', method: 'demo/tick', params: { i } }));
 * }
 * await Promise.resolve();
 * const stats: LineWriterStats = writer.stats;
 * // messages 3, writeCalls 1: the lines of one tick share one write()
 * ```
 */
export interface LineWriterStats {
  /** Lines (messages) accepted. */
  messages: number;
  /** Calls to the stream's `write()`: one per flush, which joins every line queued in the same tick. */
  writeCalls: number;
  /** Times the stream said "wait for drain" (backpressure). */
  drainWaits: number;
  /** Bytes held by us, waiting for `drain`. */
  unsentBytes: number;
  /** The most ever held by us at once. */
  peakUnsentBytes: number;
}

/**
 * Writes newline-delimited lines to a stream without ever blocking the producer and without reordering:
 * lines written in the same tick go out in one `write()`, and when the stream signals backpressure
 * (`write()` returns false) later lines wait, in order, in a queue that is bounded and measured, until
 * `drain`. Messages must not contain a raw newline; `JSON.stringify` never produces one [S1].
 *
 * @example
 * ```ts
 * import { LineWriter } from '@mcp-inflight/stdio';
 * const writer = new LineWriter(process.stdout, { maxUnsentBytes: 8 << 20 });
 * writer.writeLine(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
 * writer.stats.writeCalls; // 0 until the microtask flush; lines written in one tick share one write()
 * ```
 */
export class LineWriter {
  /** The stream lines are written to. */
  readonly output: Writable;
  /** Bound on bytes waiting for a slow reader (ours plus the stream's buffer). */
  readonly maxUnsentBytes: number;
  #onOverflow: ((queuedBytes: number) => void) | undefined;
  /** Lines not yet handed to the stream, in order. */
  #queue: string[] = [];
  #queuedBytes = 0;
  #flushScheduled = false;
  #waitingForDrain = false;
  #stopped = false;
  #messages = 0;
  #writeCalls = 0;
  #drainWaits = 0;
  #peakQueuedBytes = 0;
  /** The highest write-call number someone asked to hear about (`whenWritten`); 0: nobody. */
  #watchedWriteCall = 0;
  #onWritten: ((writeCall: number) => void) | undefined;

  constructor(output: Writable, options: LineWriterOptions = {}) {
    this.output = output;
    this.maxUnsentBytes = options.maxUnsentBytes ?? DEFAULT_MAX_UNSENT_BYTES;
    this.#onOverflow = options.onOverflow;
    output.on('drain', this.#onDrain);
  }

  /** A snapshot of the writer's counters. */
  get stats(): LineWriterStats {
    return {
      messages: this.#messages,
      writeCalls: this.#writeCalls,
      drainWaits: this.#drainWaits,
      unsentBytes: this.#queuedBytes,
      peakUnsentBytes: this.#peakQueuedBytes,
    };
  }

  /** Whether the writer has stopped (overflow, or `stop()`); later lines are dropped. */
  get stopped(): boolean {
    return this.#stopped;
  }

  /** Queues one line (the newline is added). Never blocks, never throws. */
  writeLine(line: string): void {
    if (this.#stopped) return;
    this.#messages++;
    this.#queue.push(line);
    if (this.#waitingForDrain) {
      // Measure only under backpressure, where it matters; the fast path counts nothing.
      this.#queuedBytes += Buffer.byteLength(line) + 1;
      if (this.#queuedBytes > this.#peakQueuedBytes) this.#peakQueuedBytes = this.#queuedBytes;
      if (this.#queuedBytes + this.output.writableLength > this.maxUnsentBytes) this.#overflow();
      return;
    }
    if (!this.#flushScheduled) {
      this.#flushScheduled = true;
      queueMicrotask(this.#flush);
    }
  }

  /**
   * The number of the `write()` call that will carry a line queued now: every flush takes the whole queue,
   * in order, so it is always the next one.
   */
  get nextWriteCall(): number {
    return this.#writeCalls + 1;
  }

  /**
   * Asks for `listener(writeCall)` once the stream has taken write call `writeCall` (its write callback:
   * the bytes are with the OS, or the stream failed). Only the calls asked for get a callback, so a writer
   * nobody watches allocates nothing per write. One listener per writer; the latest one wins.
   */
  whenWritten(writeCall: number, listener: (writeCall: number) => void): void {
    this.#onWritten = listener;
    if (writeCall > this.#watchedWriteCall) this.#watchedWriteCall = writeCall;
  }

  /**
   * Hands every queued line to the stream now, even under backpressure (the stream buffers them), so a
   * closing connection can `end()` the stream with nothing left behind in our queue.
   */
  handOver(): void {
    if (this.#stopped || this.#queue.length === 0) return;
    this.#waitingForDrain = false;
    this.#flush();
  }

  /** Stops writing: queued lines are dropped and the `drain` listener removed. */
  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#queue = [];
    this.#queuedBytes = 0;
    this.output.off('drain', this.#onDrain);
  }

  #flush = (): void => {
    this.#flushScheduled = false;
    if (this.#stopped || this.#waitingForDrain || this.#queue.length === 0) return;
    const queue = this.#queue;
    this.#queue = [];
    this.#queuedBytes = 0;
    const text = queue.length === 1 ? `${queue[0]}\n` : `${queue.join('\n')}\n`;
    const writeCall = ++this.#writeCalls;
    const listener = writeCall <= this.#watchedWriteCall ? this.#onWritten : undefined;
    let accepted: boolean;
    try {
      accepted = listener ? this.output.write(text, () => listener(writeCall)) : this.output.write(text);
    } catch {
      // A destroyed stream throws on some Node versions; its 'error'/'close' tells the owner.
      accepted = true;
    }
    if (!accepted) {
      this.#waitingForDrain = true;
      this.#drainWaits++;
      // One flush can carry a whole tick of large results past the budget by itself.
      if (this.output.writableLength > this.maxUnsentBytes) this.#overflow();
    }
  };

  #onDrain = (): void => {
    if (!this.#waitingForDrain) return;
    this.#waitingForDrain = false;
    if (this.#queue.length > 0) this.#flush();
  };

  #overflow(): void {
    const queued = this.#queuedBytes + this.output.writableLength;
    this.stop();
    this.#onOverflow?.(queued);
  }
}
