import { Writable } from 'node:stream';
import { escapeForLog } from './events.js';

/** A line the upstream writes without a newline is cut here, so one line cannot hold the proxy's memory. */
const MAX_LINE_CHARS = 16_384;

/**
 * Where a command upstream's stderr goes: the proxy's stderr, one `upstream: ` line per line it wrote, each
 * escaped, so an upstream's output can never pass for the proxy's own log lines (issue: "logs that cannot
 * be forged").
 */
export function upstreamStderr(out: { write(text: string): unknown } = process.stderr): Writable {
  let pending = '';
  const emit = (line: string): void => {
    out.write(`upstream: ${escapeForLog(line.endsWith('\r') ? line.slice(0, -1) : line)}\n`);
  };
  const decoder = new TextDecoder();
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      pending += decoder.decode(chunk, { stream: true });
      let newline = pending.indexOf('\n');
      while (newline !== -1) {
        emit(pending.slice(0, newline));
        pending = pending.slice(newline + 1);
        newline = pending.indexOf('\n');
      }
      while (pending.length > MAX_LINE_CHARS) {
        emit(pending.slice(0, MAX_LINE_CHARS));
        pending = pending.slice(MAX_LINE_CHARS);
      }
      done();
    },
    final(done) {
      pending += decoder.decode();
      if (pending !== '') emit(pending);
      pending = '';
      done();
    },
  });
}
