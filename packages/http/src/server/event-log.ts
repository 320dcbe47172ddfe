import { type Frame, frameBytes, type SseSink, textFrame, writeFrame } from './sse-sink.js';

/** Event ids for a resumable (legacy) stream: `<key>-<seq>`, unique within the session [H21]. */
export interface StreamEventIds {
  /** This stream's key within its session; event ids encode it so a resume finds the stream [H23]. */
  key: string;
  /** 2025-11-25: open with an event that has an id and empty data, so the client can resume at once [H16]. */
  priming: boolean;
  /** The `retry` the priming event advertises (ms) [H18]. */
  retryMs: number;
  /** Events kept for replay; the oldest go first (a later progress value supersedes an earlier one). */
  maxBuffered: number;
  /** Bytes kept for replay, as well; the oldest go first, but the newest event is always kept. */
  maxBufferedBytes: number;
}

/**
 * A legacy stream's events as a client may ask for them again with `Last-Event-ID` [H22]: it numbers them
 * (`<key>-<seq>`, from 1; the priming event is 0) and keeps the latest within both bounds. The kept events
 * are always the last ones numbered, so one number (the first kept) places them all: no record per event.
 */
export class EventLog {
  readonly #ids: StreamEventIds;
  /** The kept frames, oldest first: `#frames[i]` is event `#firstSeq + i`. */
  #frames: Frame[] = [];
  #firstSeq = 1;
  /** The last event numbered. */
  #seq = 0;
  #bytes = 0;

  constructor(ids: StreamEventIds) {
    this.#ids = ids;
  }

  /** Bytes kept for a replay. */
  get bytes(): number {
    return this.#bytes;
  }

  /** The id the next event gets (the one {@link remember} is given next). */
  nextId(): string {
    return `${this.#ids.key}-${this.#seq + 1}`;
  }

  /** The priming event that opens a 2025-11-25 stream (id, `retry`, empty data) [H16 H18], if it has one. */
  priming(): Uint8Array | undefined {
    const ids = this.#ids;
    return ids.priming ? textFrame(`id: ${ids.key}-0\nretry: ${ids.retryMs}\ndata:\n\n`) : undefined;
  }

  /** Numbers the next event and keeps its frame within both bounds; the newest one always stays. */
  remember(frame: Frame): void {
    this.#seq++;
    this.#frames.push(frame);
    this.#bytes += frameBytes(frame);
    const ids = this.#ids;
    while (
      this.#frames.length > 1 &&
      (this.#frames.length > ids.maxBuffered || this.#bytes > ids.maxBufferedBytes)
    ) {
      this.#bytes -= frameBytes(this.#frames.shift()!);
      this.#firstSeq++;
    }
  }

  /** Writes every kept event after `afterSeq` to `sink`, oldest first. */
  replay(sink: SseSink, afterSeq: number): void {
    const frames = this.#frames;
    for (let i = Math.max(0, Math.floor(afterSeq) + 1 - this.#firstSeq); i < frames.length; i++)
      writeFrame(sink, frames[i]!);
  }

  /** Lets the kept events go (the stream ended). */
  clear(): void {
    this.#frames.length = 0;
    this.#firstSeq = this.#seq + 1;
    this.#bytes = 0;
  }
}
