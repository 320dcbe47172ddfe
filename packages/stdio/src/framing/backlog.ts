import type { Writable } from 'node:stream';
import type { JsonPiece } from '@mcp-inflight/core/adapter';

/** A line as the writer takes it: its text, or its pieces in order. */
type Line = string | readonly JsonPiece[];

/**
 * Lines of at most this many bytes wait as bytes in shared slabs; longer ones wait as they came. A small
 * line kept as its own string (or array of pieces) costs two to four times its bytes in the heap: 64 MiB
 * of waiting progress lines took 250 MiB. Bytes in a slab cost what they are.
 */
const SLAB_LINE_BYTES = 4 * 1024;
const SLAB_BYTES = 256 * 1024;

/**
 * What waits for `drain` under backpressure, in order, held compactly: short lines encoded into slabs
 * (each with its newline), long ones kept whole, so the writer's backlog costs about its bytes (rule 14:
 * a write queue holds at most its budget plus one message, in bytes of memory too).
 */
export class Backlog {
  #items: (Uint8Array | Line)[] = [];
  #slab: Buffer | undefined;
  #slabUsed = 0;
  #slabStart = 0;

  get empty(): boolean {
    return this.#items.length === 0 && this.#slabUsed === this.#slabStart;
  }

  /** Queues `line`, whose bytes (newline included) are `bytes`. */
  push(line: Line, bytes: number): void {
    if (bytes > SLAB_LINE_BYTES) {
      this.#cut();
      this.#items.push(line);
      return;
    }
    let slab = this.#slab;
    if (slab === undefined || this.#slabUsed + bytes > slab.length) {
      this.#cut();
      slab = Buffer.allocUnsafe(SLAB_BYTES);
      this.#slab = slab;
      this.#slabUsed = 0;
      this.#slabStart = 0;
    }
    if (typeof line === 'string') this.#slabUsed += slab.write(line, this.#slabUsed);
    else
      for (const piece of line) {
        if (typeof piece === 'string') this.#slabUsed += slab.write(piece, this.#slabUsed);
        else {
          slab.set(piece, this.#slabUsed);
          this.#slabUsed += piece.length;
        }
      }
    slab[this.#slabUsed++] = 0x0a;
  }

  /**
   * Writes everything waiting to `output`, in order, as one flush: `done` is called with the last write.
   * Returns what the last `write()` returned.
   */
  writeTo(output: Writable, done: (() => void) | undefined): boolean {
    this.#cut();
    const items = this.#items;
    this.#items = [];
    let accepted = true;
    for (let i = 0; i < items.length; i++) {
      const item = items[i]!;
      const last = i === items.length - 1 ? done : undefined;
      if (item instanceof Uint8Array) {
        accepted = last ? output.write(item, last) : output.write(item);
        continue;
      }
      if (typeof item === 'string') output.write(item);
      else for (const piece of item) if (piece.length > 0) output.write(piece);
      accepted = last ? output.write('\n', last) : output.write('\n');
    }
    return accepted;
  }

  /** Drops everything waiting. */
  clear(): void {
    this.#items = [];
    this.#slab = undefined;
    this.#slabUsed = 0;
    this.#slabStart = 0;
  }

  /** Ends the slab's filled part as an item of its own; the rest of the slab takes later lines. */
  #cut(): void {
    const slab = this.#slab;
    if (slab === undefined || this.#slabUsed === this.#slabStart) return;
    this.#items.push(slab.subarray(this.#slabStart, this.#slabUsed));
    this.#slabStart = this.#slabUsed;
  }
}
