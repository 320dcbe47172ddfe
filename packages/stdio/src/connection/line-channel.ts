import type { RequestId } from '@mcp-inflight/core';
import {
  type Channel,
  type JsonPiece,
  type JsonRpcMessage,
  jsonPieces,
  type SendIntent,
} from '@mcp-inflight/core/adapter';
import type { LineWriter } from '../framing/line-writer.js';
import { unserializableResponse } from './bad-input.js';
import type { ResultGap } from './result-gap.js';

/**
 * A connection's outbound side, the endpoint's channel: carries out what core decided about each message
 * (its {@link SendIntent}) and never reads the message. A request goes out as the text core serialised; any
 * other message as its JSON pieces; a response right after its request's progress waits out the
 * {@link ResultGap}.
 */
export class LineChannel implements Channel {
  /** Set once the connection is over: nothing more is written. */
  stopped = false;
  readonly #writer: LineWriter;
  readonly #gap: ResultGap;
  readonly #onError: (error: unknown) => void;

  constructor(writer: LineWriter, gap: ResultGap, onError: (error: unknown) => void) {
    this.#writer = writer;
    this.#gap = gap;
    this.#onError = onError;
  }

  write(message: JsonRpcMessage | JsonRpcMessage[], _related?: RequestId, intent?: SendIntent): void {
    if (this.stopped) return;
    let line: string | JsonPiece[];
    if (intent?.kind === 'request')
      line = intent.text; // serialized once by core, which refused what could not be
    else {
      try {
        line = jsonPieces(message); // a relayed result's kept strings go out as they came
      } catch (error) {
        // Never throw into the endpoint: a handler's unserializable result becomes an internal error.
        if (intent?.kind !== 'response') return this.#onError(error);
        line = JSON.stringify(unserializableResponse(intent.id, error));
      }
    }
    // A response right after its request's progress waits out the gap, so an SDK v1 host reads the two
    // apart (see result-gap).
    if (intent?.kind === 'progress') this.#gap.progress(intent.id);
    else if (intent?.kind === 'response' && this.#gap.hold(intent.id, line)) return;
    this.#writer.writeLine(line);
  }

  suppressed(id: RequestId): void {
    this.#gap.forget(id);
  }
}
