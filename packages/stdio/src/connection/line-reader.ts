import type { Endpoint } from '@mcp-inflight/core';
import type { KeepStrings } from '@mcp-inflight/core/adapter';
import { LineFramer } from '../framing/line-framer.js';
import {
  type BadInput,
  isMessageShaped,
  overlongLineResponse,
  overlongResponse,
  overlongResponseId,
  parseErrorResponse,
} from './bad-input.js';
import type { LineChannel } from './line-channel.js';

/** What a {@link LineReader} reads into and how it treats bad input. */
export interface LineReaderOptions {
  endpoint: Endpoint;
  /** Where bad input is answered, when it is. */
  channel: LineChannel;
  /** Answer a broken or overlong line with the JSON-RPC error (a server), or only report it. */
  answerBadInput: boolean;
  /** A relay's leg: long lines are kept as bytes and parsed by this. */
  keepStrings?: KeepStrings | undefined;
  maxLineBytes?: number | undefined;
  onBadInput?: ((event: BadInput) => void) | undefined;
}

/**
 * A connection's inbound side: the bytes read, cut into lines, each line parsed and handed to the endpoint.
 * A line that is not JSON, too long, or (for a client) not a JSON-RPC message is answered where the spec
 * says to and reported to `onBadInput`; the connection keeps serving (rule 10).
 */
export class LineReader {
  readonly framer: LineFramer;
  parseErrors = 0;
  notMessages = 0;
  readonly #options: LineReaderOptions;
  readonly #endpoint: Endpoint;
  readonly #keep: KeepStrings | undefined;
  readonly #answer: boolean;

  constructor(options: LineReaderOptions) {
    this.#options = options;
    this.#endpoint = options.endpoint;
    const keep = options.keepStrings;
    this.#keep = keep;
    const answer = options.answerBadInput;
    this.#answer = answer;
    const framer: LineFramer = new LineFramer({
      ...(options.maxLineBytes === undefined ? {} : { maxLineBytes: options.maxLineBytes }),
      onLine: this.#take,
      ...(keep ? { onLongLine: this.#take, longLineBytes: keep.minBytes } : {}),
      onOverlong: (lineBytes, edges) => {
        if (answer) options.channel.write(overlongLineResponse(lineBytes, framer.maxLineBytes));
        // A response too long to read still ends its request, at once: the caller learns why, instead of
        // waiting for its deadline (rule 10: bad input gets a clear error).
        const id = overlongResponseId(edges.head, edges.tail);
        if (id !== undefined) this.#endpoint.receive(overlongResponse(id, lineBytes, framer.maxLineBytes), 0);
        this.#report({
          kind: 'overlong-line',
          detail: `a line of ${lineBytes} bytes passed maxLineBytes (${framer.maxLineBytes})`,
          bytes: lineBytes,
          answered: answer,
        });
      },
    });
    this.framer = framer;
  }

  /** The input ended: what is left after the last newline is reported, never parsed. */
  end(): void {
    const left = this.framer.end();
    if (left > 0)
      this.#report({
        kind: 'truncated-at-end',
        detail: `${left} bytes after the last newline`,
        bytes: left,
        answered: false,
      });
  }

  /** One line to the endpoint: text, or (a relay's long line) the bytes it was read as. */
  readonly #take = (line: string | Buffer): void => {
    const keep = this.#keep;
    const answer = this.#answer;
    let value: unknown;
    try {
      value = keep ? keep.parse(line) : JSON.parse(line as string);
    } catch {
      this.parseErrors++;
      const bytes = Buffer.byteLength(line); // a Buffer's length, or the text's UTF-8 size
      if (answer) this.#options.channel.write(parseErrorResponse(bytes));
      return this.#report({
        kind: 'parse-error',
        detail: 'the line is not valid JSON',
        bytes,
        answered: answer,
      });
    }
    if (!answer && !isMessageShaped(value)) {
      // A client answers only what its server sent as a message: `null`, `42` or a JSON log record on
      // the server's stdout is a stray line, not a request (and a 2026-07-28 client writes no
      // responses [S5]).
      this.notMessages++;
      return this.#report({
        kind: 'not-a-message',
        detail: 'the line is JSON but not a JSON-RPC message (no method, result or error)',
        bytes: Buffer.byteLength(line),
        answered: false,
      });
    }
    // The line sizes a request that waits for admission.
    this.#endpoint.receive(value, typeof line === 'string' ? line : line.length);
  };

  #report(event: BadInput): void {
    this.#options.onBadInput?.(event);
  }
}
