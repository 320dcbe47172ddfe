import { StringDecoder } from 'node:string_decoder';

/**
 * Default longest line, in bytes without its newline: 16 MiB. Generous for real messages (the official
 * SDK's stdio reader stops at 10 MB), small enough that one runaway peer cannot take the heap.
 *
 * @example
 * ```ts
 * import { DEFAULT_MAX_LINE_BYTES, serveStdio } from '@mcp-inflight/stdio';
 * serveStdio(() => {}, { maxLineBytes: 4 * DEFAULT_MAX_LINE_BYTES }); // a server that takes huge inputs
 * ```
 */
export const DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024;

/** Default shortest line a {@link LineFramer} hands to `onLongLine` as bytes: 64 KiB. */
const DEFAULT_LONG_LINE_BYTES = 64 * 1024;

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 13;

/**
 * Options for a {@link LineFramer}.
 *
 * @example
 * ```ts
 * import { LineFramer, type LineFramerOptions } from '@mcp-inflight/stdio';
 * const options: LineFramerOptions = {
 *   onLine: (line) => console.log(JSON.parse(line)),
 *   maxLineBytes: 64 * 1024,
 *   onOverlong: (bytes) => console.error(`skipped a ${bytes}-byte line; the next one is read normally`),
 * };
 * const framer = new LineFramer(options);
 * process.stdin.on('data', (chunk: Buffer) => framer.push(chunk));
 * process.stdin.on('end', () => framer.end());
 * ```
 */
export interface LineFramerOptions {
  /** Receives each complete line: newline and a trailing `\r` removed, blank lines skipped. */
  onLine: (line: string) => void;
  /**
   * Receives the size of a line that passed `maxLineBytes`, once, when its newline finally arrives, with
   * its first and last bytes (up to 256 each, as text: enough to read a response's id). The rest was
   * never kept, and the next line is read normally (the reader resyncs at the newline).
   */
  onOverlong?: (lineBytes: number, edges: OverlongEdges) => void;
  /** The longest line accepted, in bytes without the newline. @default 16 MiB */
  maxLineBytes?: number;
  /**
   * Receives, instead of `onLine`, each line of at least `longLineBytes` as its bytes: joined once, never
   * decoded (a relay that writes it on as it came). Given this, the framer holds a line's chunks as they
   * arrived until its newline, so a caller pushing its own buffers must not reuse them (a stream's
   * chunks are never reused).
   */
  onLongLine?: (line: Buffer) => void;
  /** The shortest line `onLongLine` receives, in bytes without the newline. @default 64 KiB */
  longLineBytes?: number;
}

/**
 * The first and last bytes of a line that passed `maxLineBytes`, decoded as UTF-8 (a character cut at an
 * edge reads as U+FFFD).
 *
 * @example
 * ```ts
 * import { LineFramer, type OverlongEdges } from '@mcp-inflight/stdio';
 * const framer = new LineFramer({
 *   maxLineBytes: 1 << 20,
 *   onLine: () => {},
 *   onOverlong: (bytes, edges: OverlongEdges) => console.error(`skipped ${bytes} bytes: ${edges.head}…`),
 * });
 * ```
 */
export interface OverlongEdges {
  /** Up to the first 256 bytes. */
  head: string;
  /** Up to the last 256 bytes. */
  tail: string;
}

/** How many bytes of each edge of an overlong line are kept. */
const EDGE_BYTES = 256;

/**
 * Counters a {@link LineFramer} keeps.
 *
 * @example
 * ```ts
 * import { LineFramer, type LineFramerStats } from '@mcp-inflight/stdio';
 * const framer = new LineFramer({ onLine: () => {} });
 * framer.push('{"a":1}\n\n{"b":');
 * framer.end();
 * const stats: LineFramerStats = framer.stats;
 * // lines 1, blankLines 1, truncatedBytesAtEnd 5: the unfinished tail is dropped, not passed on
 * ```
 */
export interface LineFramerStats {
  /** Complete lines passed to `onLine`. */
  lines: number;
  /** Bytes taken in, newlines included. */
  bytes: number;
  /** Lines skipped as blank: empty, or only SP, HT or CR. */
  blankLines: number;
  /** Lines longer than `maxLineBytes`, discarded. */
  overlongLines: number;
  /** Bytes left without a newline when the input ended (a truncated last message), discarded. */
  truncatedBytesAtEnd: number;
}

/**
 * Splits a byte stream into newline-delimited lines, as MCP's stdio transport frames messages [S1]:
 * partial lines are carried across chunks (split anywhere, even inside a UTF-8 character, since the
 * newline byte never occurs inside one), `\r\n` is read as `\n`, blank lines are skipped, and a line
 * longer than `maxLineBytes` is discarded as it streams in, so memory stays bounded, then reported once
 * its newline arrives.
 *
 * @example
 * ```ts
 * import { LineFramer } from '@mcp-inflight/stdio';
 * const framer = new LineFramer({
 *   maxLineBytes: 1024,
 *   onLine: (line) => console.log('line', line),
 *   onOverlong: (bytes) => console.warn(`dropped a ${bytes}-byte line`),
 * });
 * framer.push('{"jsonrpc":"2.0",');
 * framer.push('"method":"ping","id":1}\r\n');   // logs: line {"jsonrpc":"2.0","method":"ping","id":1}
 * framer.end();
 * ```
 */
export class LineFramer {
  /** The longest line accepted, in bytes without the newline. */
  readonly maxLineBytes: number;
  #onLine: (line: string) => void;
  #onOverlong: ((lineBytes: number, edges: OverlongEdges) => void) | undefined;
  /** The edges of the overlong line being skipped. */
  #head: Buffer = Buffer.alloc(0);
  #tail: Buffer = Buffer.alloc(0);
  /**
   * The current line's earlier chunks, decoded as they arrived: a long line then costs one join at its end,
   * not a concat and a decode of all of it (each a full copy) after the transfer. With `onLongLine`, the
   * chunks themselves (one concat at the end, and a long line is never decoded).
   */
  #pending: Array<string | Buffer> = [];
  #onLongLine: ((line: Buffer) => void) | undefined;
  #longLineBytes: number;
  /** Bytes of the current line held so far (the limit is in bytes, whatever the text decodes to). */
  #pendingBytes = 0;
  /** Carries a UTF-8 character split across chunks; made on the first line that spans chunks. */
  #decoder: StringDecoder | undefined;
  /** Set while discarding an overlong line up to its newline. */
  #skipping = false;
  /** Bytes of the overlong line seen so far, while skipping. */
  #skippedBytes = 0;
  #lines = 0;
  #bytes = 0;
  #blankLines = 0;
  #overlongLines = 0;
  #truncatedBytesAtEnd = 0;
  #ended = false;

  constructor(options: LineFramerOptions) {
    this.maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    if (!(this.maxLineBytes >= 1))
      throw new RangeError(`maxLineBytes must be at least 1, got ${this.maxLineBytes}`);
    this.#onLine = options.onLine;
    this.#onOverlong = options.onOverlong;
    this.#onLongLine = options.onLongLine;
    this.#longLineBytes = options.longLineBytes ?? DEFAULT_LONG_LINE_BYTES;
  }

  /** A snapshot of the framer's counters. */
  get stats(): LineFramerStats {
    return {
      lines: this.#lines,
      bytes: this.#bytes,
      blankLines: this.#blankLines,
      overlongLines: this.#overlongLines,
      truncatedBytesAtEnd: this.#truncatedBytesAtEnd,
    };
  }

  /** Bytes held for the current, unfinished line (0 while an overlong line is being skipped). */
  get pendingBytes(): number {
    return this.#pendingBytes;
  }

  /** Takes the next chunk: bytes, or a string (encoded as UTF-8). Lines complete in it are delivered now. */
  push(chunk: Uint8Array | string): void {
    if (this.#ended) throw new Error('LineFramer.push after end()');
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : toBuffer(chunk);
    this.#bytes += buffer.length;
    let start = 0;
    for (;;) {
      const newline = buffer.indexOf(NEWLINE, start);
      if (newline === -1) return this.#keep(buffer, start);
      this.#completeLine(buffer, start, newline);
      start = newline + 1;
    }
  }

  /**
   * The input ended. Bytes after the last newline are a message that never finished [S1]: they are
   * discarded and counted (`truncatedBytesAtEnd`), not parsed. Returns that count.
   */
  end(): number {
    if (this.#ended) return 0;
    this.#ended = true;
    const left = this.#skipping ? 0 : this.#pendingBytes;
    if (this.#skipping) this.#overlongLines++;
    this.#truncatedBytesAtEnd += left;
    this.#reset();
    return left;
  }

  #keep(buffer: Buffer, start: number): void {
    const length = buffer.length - start;
    if (length === 0) return;
    if (this.#skipping) {
      this.#skippedBytes += length;
      this.#keepTail(buffer.subarray(start));
      return;
    }
    this.#pendingBytes += length;
    if (this.#pendingBytes > this.maxLineBytes) {
      // Stop holding bytes now; the line is reported when its newline comes, with its edges.
      const skipped = this.#pendingBytes;
      const head = this.#headOf(buffer.subarray(start));
      this.#reset();
      this.#skipping = true;
      this.#skippedBytes = skipped;
      this.#head = head;
      this.#keepTail(buffer.subarray(start));
      return;
    }
    const rest = start === 0 ? buffer : buffer.subarray(start);
    if (this.#onLongLine) return void this.#pending.push(rest);
    this.#decoder ??= new StringDecoder('utf8');
    this.#pending.push(this.#decoder.write(rest));
  }

  #completeLine(buffer: Buffer, start: number, newline: number): void {
    if (this.#skipping) {
      const total = this.#skippedBytes + (newline - start);
      this.#keepTail(buffer.subarray(start, newline));
      const edges = this.#edges();
      this.#reset();
      return this.#overlong(total, edges);
    }
    const lineBytes = this.#pendingBytes + (newline - start);
    if (lineBytes > this.maxLineBytes) {
      this.#head = this.#headOf(buffer.subarray(start, newline));
      this.#keepTail(buffer.subarray(start, newline));
      const edges = this.#edges();
      this.#reset();
      return this.#overlong(lineBytes, edges);
    }
    if (this.#onLongLine) return this.#completeRaw(buffer, start, newline, lineBytes);
    let end = newline;
    let text: string;
    if (this.#pending.length === 0) {
      if (end > start && buffer[end - 1] === CARRIAGE_RETURN) end--;
      text = buffer.toString('utf8', start, end);
    } else {
      // end() decodes the last piece and flushes a character cut short (as U+FFFD, as toString would).
      this.#pending.push(this.#decoder!.end(buffer.subarray(start, end)));
      const joined = this.#pending.join('');
      this.#reset();
      // A CR byte always decodes to a CR char, and a CR char comes only from one: the same test as bytes.
      text = joined.charCodeAt(joined.length - 1) === CARRIAGE_RETURN ? joined.slice(0, -1) : joined;
    }
    this.#deliver(text);
  }

  /** A complete line of text to `onLine`, or counted as blank. */
  #deliver(text: string): void {
    if (isBlank(text)) {
      this.#blankLines++;
      return;
    }
    this.#lines++;
    this.#onLine(text);
  }

  /** A line whose earlier chunks were held as bytes: one concat, then bytes or text by its length. */
  #completeRaw(buffer: Buffer, start: number, newline: number, lineBytes: number): void {
    let line: Buffer;
    if (this.#pending.length === 0) line = buffer.subarray(start, newline);
    else {
      this.#pending.push(buffer.subarray(start, newline));
      line = Buffer.concat(this.#pending as Buffer[], lineBytes);
      this.#reset();
    }
    if (line.length > 0 && line[line.length - 1] === CARRIAGE_RETURN) line = line.subarray(0, -1);
    if (line.length < this.#longLineBytes) return this.#deliver(line.toString('utf8'));
    if (isBlankBytes(line)) return void this.#blankLines++;
    this.#lines++;
    this.#onLongLine!(line);
  }

  #overlong(lineBytes: number, edges: OverlongEdges): void {
    this.#overlongLines++;
    this.#onOverlong?.(lineBytes, edges);
  }

  /** The first bytes of the line: what is held of it, then `rest`. */
  #headOf(rest: Buffer): Buffer {
    const pieces = this.#pending.map((piece) => (typeof piece === 'string' ? Buffer.from(piece) : piece));
    return Buffer.concat([...pieces, rest.subarray(0, EDGE_BYTES)]).subarray(0, EDGE_BYTES);
  }

  /** Keeps the last bytes seen of a line being skipped (a copy: the chunk is not ours to hold). */
  #keepTail(bytes: Buffer): void {
    if (bytes.length >= EDGE_BYTES) this.#tail = Buffer.from(bytes.subarray(bytes.length - EDGE_BYTES));
    else {
      const joined = Buffer.concat([this.#tail, bytes]);
      this.#tail = Buffer.from(joined.subarray(Math.max(0, joined.length - EDGE_BYTES)));
    }
  }

  #edges(): OverlongEdges {
    return { head: this.#head.toString('utf8'), tail: this.#tail.toString('utf8') };
  }

  #reset(): void {
    // A line given up on must not leave half a character to prefix the next one.
    if (this.#pending.length > 0 && !this.#onLongLine) this.#decoder?.end();
    this.#pending = [];
    this.#pendingBytes = 0;
    this.#skipping = false;
    this.#skippedBytes = 0;
    if (this.#tail.length > 0) this.#tail = Buffer.alloc(0);
  }
}

function toBuffer(chunk: Uint8Array): Buffer {
  return Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}

/**
 * Empty, or only SP, HT or CR: the JSON whitespace a line can hold (LF is the delimiter). Other Unicode
 * spaces (U+00A0, U+2000, ...) are not JSON whitespace, so a line of them is passed on and fails to parse
 * like any other garbage, whatever else it holds.
 */
function isBlank(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== CARRIAGE_RETURN) return false;
  }
  return true;
}

/** {@link isBlank} on bytes: it stops at the first byte that is not SP, HT or CR. */
function isBlankBytes(line: Buffer): boolean {
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c !== 0x20 && c !== 0x09 && c !== CARRIAGE_RETURN) return false;
  }
  return true;
}
