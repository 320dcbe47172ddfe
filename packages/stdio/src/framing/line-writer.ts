import type { Writable } from 'node:stream';
import { type Clock, systemClock, type TimerHandle } from '@mcp-inflight/core';
import type { JsonPiece } from '@mcp-inflight/core/adapter';

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
 * Default stall window: a backlog over `maxUnsentBytes` that has not shrunk for this long (10 s) means the
 * peer stopped reading. One large write to a peer that reads never closes the connection (rule 13).
 *
 * @example
 * ```ts
 * import { DEFAULT_UNSENT_STALL_MS, serveStdio } from '@mcp-inflight/stdio';
 * serveStdio(() => {}, { unsentStallMs: DEFAULT_UNSENT_STALL_MS * 3 }); // a peer on a slow link
 * ```
 */
export const DEFAULT_UNSENT_STALL_MS = 10_000;

/**
 * Lines at least this long (64 Ki chars) are written without appending their newline to them first: below
 * it, one joined write is cheaper than the copy it costs.
 */
const LONG_LINE_CHARS = 64 * 1024;

/**
 * A tick's first writes go as soon as they fill, 8 lines, then 16, then 32; the rest of the tick goes in
 * one write at its end. A peer in another process starts on the first answers while the rest are still
 * being made: with a whole tick in one write, each side sat idle while the other worked (32 calls in
 * flight took 2.1-2.2x the bare pipe's time per call; 1.5-1.65x this way). Only the first 56 lines go
 * early, less than a pipe holds, so a burst of thousands does not meet backpressure inside its own tick.
 */
const FIRST_WRITE_LINES = 8;
const LAST_EARLY_WRITE_LINES = 32;

/**
 * One line: its text, or its pieces in order (a relayed message whose kept strings are pieces of their
 * own, text or the bytes they were read as, so the line is never joined into one copy).
 */
export type Line = string | readonly JsonPiece[];

/** Whether any line of a flush is long enough to be written on its own (a line in pieces always is). */
function hasLongLine(queue: Line[]): boolean {
  for (let i = 0; i < queue.length; i++) {
    const line = queue[i]!;
    if (typeof line !== 'string' || line.length >= LONG_LINE_CHARS) return true;
  }
  return false;
}

function lineBytes(line: Line): number {
  if (typeof line === 'string') return Buffer.byteLength(line);
  let bytes = 0;
  for (const piece of line) bytes += Buffer.byteLength(piece);
  return bytes;
}

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
  /**
   * Bytes that may wait for a slow reader (ours plus the stream's buffer). Past it the peer must shrink
   * the backlog within every `stallMs`, or it has stopped reading. @default 64 MiB
   */
  maxUnsentBytes?: number;
  /** How long a backlog over `maxUnsentBytes` may go without shrinking. @default 10_000 (`DEFAULT_UNSENT_STALL_MS`) */
  stallMs?: number;
  /** Time source for the stall check. @default systemClock */
  clock?: Clock;
  /** Called once when the peer stopped reading; the writer stops writing (the caller should close). */
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
  /**
   * Flushes: each is one `write()` to the stream joining lines queued in the same tick (a tick's first
   * three carry 8, 16 and 32, its last the rest), or, where a line is 64 Ki chars or more, that line and
   * its newline apart.
   */
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
 * lines written in the same tick go out together (the first 8, 16 and 32 as each fills, the rest in one
 * `write()` at the tick's end), and when the stream signals backpressure (`write()` returns false) later
 * lines wait, in order, in a queue that is bounded and measured, until `drain`. Messages must not contain
 * a raw newline; `JSON.stringify` never produces one [S1].
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
  /** How long a backlog over the budget may go without shrinking before the peer counts as stalled. */
  readonly stallMs: number;
  #clock: Clock;
  /** Armed while the backlog is over budget: the backlog then, which the peer must shrink by the check. */
  #stall: { timer: TimerHandle; unsentBytes: number } | undefined;
  /** When the peer last read (its buffer shrank, or drained), or bytes started waiting for it. */
  #lastReadMs = 0;
  #lastWritableBytes = 0;
  #onOverflow: ((queuedBytes: number) => void) | undefined;
  /** Lines not yet handed to the stream, in order. */
  #queue: Line[] = [];
  #queuedBytes = 0;
  #flushScheduled = false;
  /** How many queued lines make this tick's next write go before the tick ends. */
  #writeLines = FIRST_WRITE_LINES;
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
    this.stallMs = options.stallMs ?? DEFAULT_UNSENT_STALL_MS;
    this.#clock = options.clock ?? systemClock;
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

  /** Queues one line, whole or in pieces (the newline is added). Never blocks, never throws. */
  writeLine(line: Line): void {
    if (this.#stopped) return;
    this.#messages++;
    // A full queue goes now, before this line: the line just queued still rides the next write call.
    if (
      this.#queue.length >= this.#writeLines &&
      this.#writeLines <= LAST_EARLY_WRITE_LINES &&
      !this.#waitingForDrain
    ) {
      this.#writeLines *= 2;
      this.#write();
    }
    this.#queue.push(line);
    if (this.#waitingForDrain) {
      // Measure only under backpressure, where it matters; the fast path counts nothing.
      this.#queuedBytes += lineBytes(line) + 1;
      if (this.#queuedBytes > this.#peakQueuedBytes) this.#peakQueuedBytes = this.#queuedBytes;
      this.#sampleProgress();
      if (!this.#stall && this.#unsentBytes() > this.maxUnsentBytes) this.#overBudget();
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
    this.#write();
  }

  /** Stops writing: queued lines are dropped and the `drain` listener removed. */
  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#queue = [];
    this.#queuedBytes = 0;
    this.#stall?.timer.clear();
    this.#stall = undefined;
    this.output.off('drain', this.#onDrain);
  }

  #flush = (): void => {
    this.#flushScheduled = false;
    this.#writeLines = FIRST_WRITE_LINES;
    this.#write();
  };

  /** Hands the queue to the stream as one write call (or a long line's pieces). */
  #write(): void {
    if (this.#stopped || this.#waitingForDrain || this.#queue.length === 0) return;
    const queue = this.#queue;
    this.#queue = [];
    this.#queuedBytes = 0;
    const writeCall = ++this.#writeCalls;
    const listener = writeCall <= this.#watchedWriteCall ? this.#onWritten : undefined;
    const done = listener ? () => listener(writeCall) : undefined;
    let accepted: boolean;
    try {
      if (!hasLongLine(queue)) {
        const text = queue.length === 1 ? `${queue[0] as string}\n` : `${queue.join('\n')}\n`;
        accepted = done ? this.output.write(text, done) : this.output.write(text);
      } else accepted = this.#writeLong(queue, done);
    } catch {
      // A destroyed stream throws on some Node versions; its 'error'/'close' tells the owner.
      accepted = true;
    }
    if (!accepted) {
      this.#waitingForDrain = true;
      this.#lastReadMs = this.#clock.now(); // bytes start waiting now: the peer's silence counts from here
      this.#lastWritableBytes = this.output.writableLength;
      this.#drainWaits++;
      // One flush can carry a whole tick of large results past the budget by itself: that alone is no
      // verdict, only a backlog that then does not shrink is (rule 13).
      if (!this.#stall && this.output.writableLength > this.maxUnsentBytes) this.#overBudget();
    }
  }

  /**
   * A flush holding a long line: each long line goes to the stream as it is and its newline apart, since
   * `${line}\n` is a rope the stream would flatten (a copy of the whole line) before encoding it (a
   * second). Not corked: corked, the stream hands the pieces to writev, which profiled slower than two
   * plain writes (about 125 ms against 80 for a 10 MB line).
   */
  #writeLong(queue: Line[], done: (() => void) | undefined): boolean {
    const output = this.output;
    let accepted = true;
    let batch: string[] = [];
    for (let i = 0; i < queue.length; i++) {
      const line = queue[i]!;
      const last = i === queue.length - 1;
      if (typeof line === 'string' && line.length < LONG_LINE_CHARS) {
        batch.push(line);
        if (!last) continue;
        batch.push(''); // join then ends with the newline
        const text = batch.join('\n');
        accepted = done ? output.write(text, done) : output.write(text);
        break;
      }
      if (batch.length > 0) {
        batch.push('');
        output.write(batch.join('\n'));
        batch = [];
      }
      if (typeof line === 'string') output.write(line);
      else for (const piece of line) if (piece.length > 0) output.write(piece);
      accepted = last && done ? output.write('\n', done) : output.write('\n');
    }
    return accepted;
  }

  #onDrain = (): void => {
    this.#lastReadMs = this.#clock.now();
    // The peer read everything the stream held: no stall to judge (and no timer to hold the process).
    this.#stall?.timer.clear();
    this.#stall = undefined;
    if (!this.#waitingForDrain) return;
    this.#waitingForDrain = false;
    if (this.#queue.length > 0) this.#write();
  };

  #unsentBytes(): number {
    return this.#queuedBytes + this.output.writableLength;
  }

  /** Under backpressure: the stream's buffer shrinking since the last look means the peer read. */
  #sampleProgress(): void {
    const writable = this.output.writableLength;
    if (writable < this.#lastWritableBytes) this.#lastReadMs = this.#clock.now();
    this.#lastWritableBytes = writable;
  }

  /**
   * The backlog passed the budget. A peer silent for a whole stall window already has stopped reading;
   * otherwise the window runs out from its last read, and by then the backlog must have shrunk.
   */
  #overBudget(): void {
    const silentMs = this.#clock.now() - this.#lastReadMs;
    if (silentMs >= this.stallMs) return this.#overflow(this.#unsentBytes());
    this.#armStall(this.stallMs - silentMs);
  }

  #armStall(ms = this.stallMs): void {
    const unsentBytes = this.#unsentBytes();
    this.#stall = { timer: this.#clock.setTimer(this.#checkStall, ms), unsentBytes };
  }

  #overflow(unsentBytes: number): void {
    this.stop();
    this.#onOverflow?.(unsentBytes);
  }

  /** A stall window passed: a backlog still over budget that did not shrink means the peer stopped reading. */
  #checkStall = (): void => {
    const before = this.#stall?.unsentBytes ?? 0;
    this.#stall = undefined;
    if (this.#stopped) return;
    const unsent = this.#unsentBytes();
    if (unsent <= this.maxUnsentBytes) return;
    if (unsent < before) return this.#armStall(); // it read something: judge the next window
    this.#overflow(unsent);
  };
}
