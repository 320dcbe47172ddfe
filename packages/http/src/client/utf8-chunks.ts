/** Default options only: a `TextDecoder` with any option set, or used to stream, skips the fast path. */
const utf8 = new TextDecoder();

/**
 * Where the last complete UTF-8 character of `bytes` ends: before a lead byte whose continuation bytes have
 * not all arrived. Invalid bytes count as complete (the decoder turns them into U+FFFD).
 */
function completeUtf8End(bytes: Uint8Array): number {
  const length = bytes.length;
  for (let back = 1; back <= 3 && back <= length; back++) {
    const byte = bytes[length - back]!;
    if ((byte & 0xc0) === 0x80) continue; // a continuation byte: its lead is further back
    const needed = byte >= 0xf8 ? 1 : byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return needed > back ? length - back : length;
  }
  return length;
}

/**
 * Decodes a UTF-8 byte stream chunk by chunk, as a streaming `TextDecoder` does (a leading BOM dropped, a
 * character cut at a chunk's end completed by the next, an unfinished one U+FFFD at the end), but each
 * chunk whole, on the decoder's fast path: a streaming `TextDecoder` takes several times as long on a
 * 10 MB body.
 */
export class Utf8ChunkDecoder {
  /** The start of a character cut at the end of the last chunk. */
  #carry: Uint8Array | undefined;
  /** Some bytes were decoded already: a BOM now is text, not the stream's mark. */
  #started = false;

  /** The text of `chunk`, less a character it ends inside of (that waits for the next chunk). */
  decode(chunk: Uint8Array): string {
    let bytes = chunk;
    if (this.#carry !== undefined) {
      bytes = new Uint8Array(this.#carry.length + chunk.length);
      bytes.set(this.#carry);
      bytes.set(chunk, this.#carry.length);
      this.#carry = undefined;
    }
    const end = completeUtf8End(bytes);
    if (end < bytes.length) {
      this.#carry = bytes.slice(end);
      bytes = bytes.subarray(0, end);
    }
    return bytes.length > 0 ? this.#whole(bytes) : '';
  }

  /** The stream ended: a character left unfinished decodes as U+FFFD. */
  end(): string {
    const carry = this.#carry;
    this.#carry = undefined;
    return carry === undefined ? '' : this.#whole(carry);
  }

  /** A whole decode drops a leading BOM, which only the stream's first bytes may lose: later, U+FEFF is text. */
  #whole(bytes: Uint8Array): string {
    if (!this.#started) {
      this.#started = true;
      return utf8.decode(bytes);
    }
    let boms = '';
    let rest = bytes;
    while (rest.length >= 3 && rest[0] === 0xef && rest[1] === 0xbb && rest[2] === 0xbf) {
      boms += '\ufeff';
      rest = rest.subarray(3);
    }
    return boms === '' ? utf8.decode(rest) : boms + utf8.decode(rest);
  }
}
