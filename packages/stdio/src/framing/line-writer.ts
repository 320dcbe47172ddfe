import type { Writable } from 'node:stream';
import { type Clock, systemClock } from '@mcp-inflight/core';
import type { JsonPiece } from '@mcp-inflight/core/adapter';
import { Backlog } from './backlog.js';
import { type OverflowVerdict, WriteBudget } from './write-budget.js';

/**
 * Default write budget: bytes written but not yet taken by the peer (ours plus the stream's own buffer),
 * 64 MiB. The backlog never holds more than this plus one message: a peer that falls further behind, or
 * stops reading, is treated as gone, so it cannot take the heap.
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

/** A line's length in chars (bytes for a piece read as bytes): the fast path's cheap measure, no encoding. */
function lineChars(line: Line): number {
  if (typeof line === 'string') return line.length;
  let chars = 0;
  for (const piece of line) chars += piece.length;
  return chars;
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
   * the backlog within every `stallMs`, or it has stopped reading; and the backlog never takes more than
   * this plus one message (the largest line waiting): a line past that overflows at once. @default 64 MiB
   */
  maxUnsentBytes?: number;
  /** How long a backlog over `maxUnsentBytes` may go without shrinking. @default 10_000 (`DEFAULT_UNSENT_STALL_MS`) */
  stallMs?: number;
  /** Time source for the stall check. @default systemClock */
  clock?: Clock;
  /**
   * Called once when the peer stopped reading (`'stalled'`) or fell behind by more than the budget plus
   * one message (`'over-cap'`); the writer stops writing (the caller should close).
   */
  onOverflow?: (unsentBytes: number, verdict: 'stalled' | 'over-cap') => void;
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
  readonly #budget: WriteBudget;
  /** Lines not yet handed to the stream, in order: a tick's, then (under backpressure) the backlog's. */
  #queue: Line[] = [];
  readonly #backlog = new Backlog();
  #queuedBytes = 0;
  /** Chars of the lines queued outside backpressure, and the longest: a tick never holds a budget's worth. */
  #tickChars = 0;
  #tickLongestChars = 0;
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
    const onOverflow = options.onOverflow;
    this.#budget = new WriteBudget(output, {
      maxUnsentBytes: this.maxUnsentBytes,
      stallMs: this.stallMs,
      clock: options.clock ?? systemClock,
      queuedBytes: () => this.#queuedBytes,
      onOverflow: (bytes: number, verdict: OverflowVerdict) => {
        this.stop();
        onOverflow?.(bytes, verdict);
      },
    });
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
    if (!this.#waitingForDrain) {
      const chars = lineChars(line) + 1; // its newline too
      // A full queue goes now, before this line: the line just queued still rides the next write call.
      // So does a tick's queue this line would take past the budget: the stream then judges the rest.
      const full = this.#queue.length >= this.#writeLines && this.#writeLines <= LAST_EARLY_WRITE_LINES;
      if (full || (this.#tickChars + chars > this.maxUnsentBytes && this.#queue.length > 0)) {
        if (full) this.#writeLines *= 2;
        this.#write();
      }
      if (!this.#waitingForDrain) {
        this.#tickChars += chars;
        if (chars > this.#tickLongestChars) this.#tickLongestChars = chars;
      }
    }
    if (this.#waitingForDrain) {
      // Measure only under backpressure, where it matters; the fast path counts chars alone.
      const bytes = lineBytes(line) + 1;
      if (!this.#budget.admit(bytes)) return; // past the budget plus one message: overflowed
      this.#backlog.push(line, bytes);
      this.#queuedBytes += bytes;
      if (this.#queuedBytes > this.#peakQueuedBytes) this.#peakQueuedBytes = this.#queuedBytes;
      return;
    }
    this.#queue.push(line);
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
    if (this.#stopped || this.#idle()) return;
    this.#waitingForDrain = false;
    this.#write();
  }

  /** Stops writing: queued lines are dropped and the `drain` listener removed. */
  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#queue = [];
    this.#backlog.clear();
    this.#queuedBytes = 0;
    this.#budget.stop();
    this.output.off('drain', this.#onDrain);
  }

  #flush = (): void => {
    this.#flushScheduled = false;
    this.#writeLines = FIRST_WRITE_LINES;
    this.#write();
  };

  /** Hands the queue to the stream as one write call (or a long line's pieces). */
  /** Whether nothing waits in our queue or backlog. */
  #idle(): boolean {
    return this.#queue.length === 0 && this.#backlog.empty;
  }

  #write(): void {
    if (this.#stopped || this.#waitingForDrain || this.#idle()) return;
    const queue = this.#queue;
    const longestChars = this.#tickLongestChars;
    this.#queue = [];
    this.#queuedBytes = 0;
    this.#tickChars = 0;
    this.#tickLongestChars = 0;
    const writeCall = ++this.#writeCalls;
    const listener = writeCall <= this.#watchedWriteCall ? this.#onWritten : undefined;
    const done = listener ? () => listener(writeCall) : undefined;
    let accepted: boolean;
    try {
      // The backlog is older than any line of the tick: it waited for the drain that lets this write go.
      if (!this.#backlog.empty) {
        accepted = this.#backlog.writeTo(this.output, queue.length === 0 ? done : undefined);
        if (queue.length > 0) accepted = this.#writeLong(queue, done);
      } else if (!hasLongLine(queue)) {
        const text = queue.length === 1 ? `${queue[0] as string}\n` : `${queue.join('\n')}\n`;
        accepted = done ? this.output.write(text, done) : this.output.write(text);
      } else accepted = this.#writeLong(queue, done);
    } catch {
      // A destroyed stream throws on some Node versions; its 'error'/'close' tells the owner.
      accepted = true;
    }
    if (!accepted) {
      this.#waitingForDrain = true;
      this.#drainWaits++;
      this.#budget.waiting(longestChars);
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
    this.#budget.read();
    if (this.#waitingForDrain) {
      this.#waitingForDrain = false;
      this.#write(); // the backlog goes now, and may make us wait again
    }
    if (!this.#waitingForDrain) this.#budget.drained(this.#idle());
  };
}
