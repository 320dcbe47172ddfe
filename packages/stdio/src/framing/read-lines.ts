import type { Readable } from 'node:stream';
import { LineFramer } from './line-framer.js';

/**
 * Options for {@link readLines}.
 *
 * @example
 * ```ts
 * import { type ReadLinesOptions, readLines } from '@mcp-inflight/stdio';
 * let skipped = 0;
 * const options: ReadLinesOptions = { maxLineBytes: 1 << 20, onOverlong: () => void skipped++ };
 * for await (const line of readLines(process.stdin, options)) console.log(line.length);
 * console.error(`${skipped} lines over 1 MiB were skipped`);
 * ```
 */
export interface ReadLinesOptions {
  /** The longest line accepted, in bytes without the newline. @default 16 MiB */
  maxLineBytes?: number;
  /** Told the size of each overlong line that was skipped. */
  onOverlong?: (lineBytes: number) => void;
}

/**
 * Reads newline-delimited lines from a stream, with the same rules as {@link LineFramer}: partial lines
 * joined across chunks, `\r\n` tolerated, blank lines skipped, overlong lines skipped (and reported) with
 * bounded memory, and a last line without its newline discarded. The stream is read only as fast as the
 * loop consumes lines, so a slow consumer applies backpressure to the producer.
 *
 * @example
 * ```ts
 * import { spawn } from 'node:child_process';
 * import { readLines } from '@mcp-inflight/stdio';
 * const child = spawn('node', ['server.js'], { stdio: ['pipe', 'pipe', 'inherit'] });
 * for await (const line of readLines(child.stdout, { maxLineBytes: 1 << 20 })) {
 *   console.log(JSON.parse(line));
 * }
 * ```
 */
export async function* readLines(
  input: Readable,
  options: ReadLinesOptions = {},
): AsyncGenerator<string, void, undefined> {
  let ready: string[] = [];
  const framer = new LineFramer({
    onLine: (line) => ready.push(line),
    ...(options.maxLineBytes === undefined ? {} : { maxLineBytes: options.maxLineBytes }),
    ...(options.onOverlong === undefined ? {} : { onOverlong: options.onOverlong }),
  });
  for await (const chunk of input) {
    framer.push(chunk as Buffer | string);
    if (ready.length === 0) continue;
    const lines = ready;
    ready = [];
    yield* lines;
  }
  framer.end();
}
