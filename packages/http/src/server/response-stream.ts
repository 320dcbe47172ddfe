import type { RequestId } from '@mcp-inflight/core';
import { type JsonRpcMessage, jsonPieces, piecesLength, QuietTimer } from '@mcp-inflight/core/adapter';
import { EventLog } from './event-log.js';
import { type Disconnect, Reply } from './exchange.js';
import { HeldProgress, HOLD_PROGRESS_AFTER_BYTES, progressTokenOf } from './held-progress.js';
import { overLimit } from './message-limit.js';
import {
  type DisconnectWhy,
  frameBytes,
  messageFrame,
  SSE_HEADERS,
  SseSink,
  textFrame,
  writeFrame,
} from './sse-sink.js';

import type { LiveStream, ResponseStreamOptions, StreamOutcome } from './stream-options.js';

export type { StreamEventIds } from './event-log.js';
export type { DisconnectWhy } from './sse-sink.js';
export type { LiveStream, ResponseStreamOptions, StreamOutcome } from './stream-options.js';

/**
 * The reply to one POST (or a legacy GET stream): decides JSON or SSE at the first message (the response
 * alone becomes a JSON body; anything before it, or a quiet spell as long as the keep-alive interval, opens
 * SSE), writes keep-alive comments on quiet streams, and, for legacy revisions, numbers its events and keeps
 * recent ones so a client can resume with `Last-Event-ID` after a drop [H22].
 */
export class ResponseStream implements LiveStream {
  readonly response: Promise<Reply>;
  /** The requests this stream still owes a response (several for a 2025-03-26 batch). */
  readonly requestIds: RequestId[] = []; // an array: one id, or a batch's few (a Set costs two tables a call)
  /** Messages that had nowhere to go (a JSON-only client's progress, writes after the end). */
  droppedMessages = 0;
  #options: ResponseStreamOptions;
  /** This stream's number in `options.live`. */
  #liveKey: number | undefined;
  #resolved!: (response: Reply) => void;
  /** Where the reply goes at once (`options.respond`); gone once the request is answered otherwise. */
  #respond: ((reply: Reply) => void) | undefined;
  #state: 'waiting' | 'sse' | 'ended' = 'waiting';
  #sink: SseSink | undefined;
  /** The sink of the request that opened the stream (a resume attaches another). */
  #firstSink: SseSink | undefined;
  /** Legacy streams' numbered events, kept for a `Last-Event-ID` resume; none on 2026-07-28 [H25]. */
  #events: EventLog | undefined;
  /** Progress held back while the client is not reading; made when a value is first held. */
  #held: HeldProgress | undefined;
  #sawEventId = false;
  #complete = false;
  /** Nothing written for `keepAliveMs`: an SSE comment shows the client the stream is alive [TO11]. */
  #quiet: QuietTimer;
  /** Size of the last progress frame written, to count held ones in stats without serialising them. */
  #heldEstimateBytes = 0;
  /** Settles the promise handed to `options.waitUntil` (Workers keep the request's work alive till then). */
  #released: (() => void) | undefined;

  constructor(options: ResponseStreamOptions) {
    this.#options = options;
    this.#respond = options.respond;
    this.response = new Promise((resolve) => {
      this.#resolved = resolve;
    });
    if (options.eventIds) this.#events = new EventLog(options.eventIds);
    this.#quiet = new QuietTimer(options.clock, options.keepAliveMs, () => this.#onQuiet(), options.windows);
    if (options.acceptsSse) this.#quiet.start();
    this.#liveKey = options.live?.add(this);
    // workerd ends a request's timers and continuations once its response ends or its client goes; a legacy
    // handler runs on after a disconnect [H13], so its request is kept alive until the stream ends.
    options.waitUntil?.(new Promise<void>((release) => (this.#released = release)));
  }

  /** Bytes waiting for the client: queued in the response body, or held as progress (latest per token). */
  get bufferedBytes(): number {
    return (this.#sink?.queuedBytes ?? 0) + (this.#held?.size ?? 0) * this.#heldEstimateBytes;
  }

  /** Bytes kept for a `Last-Event-ID` replay (legacy). */
  get replayBytes(): number {
    return this.#events?.bytes ?? 0;
  }

  /**
   * Whether the client is keeping up: still connected and waiting for its first byte, or attached with
   * nothing of ours waiting in its response body.
   */
  get draining(): boolean {
    return this.#state === 'waiting' || (this.#sink !== undefined && this.#sink.queuedBytes === 0);
  }

  /** Whether the stream has ended (final delivered, closed, or dropped). */
  get ended(): boolean {
    return this.#state === 'ended';
  }

  /** Whether a live connection is attached. */
  get attached(): boolean {
    return this.#sink !== undefined;
  }

  /** Whether the client saw an event id, so it can come back with `Last-Event-ID`. */
  get resumable(): boolean {
    return this.#events !== undefined && this.#sawEventId;
  }

  /**
   * Ties the stream to the HTTP request that opened it: that request aborting (its client went away, even
   * before any reply) is a disconnect, as long as its own connection is still the one attached.
   */
  watch(signal: Disconnect): void {
    const onAbort = (): void => {
      if (this.#state === 'waiting' || (this.#sink !== undefined && this.#sink === this.#firstSink))
        this.disconnect();
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  }

  /** Opens the SSE response now (a GET stream has nothing to wait for). */
  open(): void {
    if (this.#state === 'waiting') this.#open();
  }

  /** Writes one message; `final` marks the last one (the response), which ends the stream. */
  send(message: JsonRpcMessage | JsonRpcMessage[], final: boolean): void {
    if (this.#state === 'ended' || this.#complete) {
      this.droppedMessages++;
      return;
    }
    if (this.#state === 'waiting') {
      if (final && this.#options.acceptsJson) {
        this.#resolveJson(message);
        return this.#finish('delivered');
      }
      if (!this.#options.acceptsSse) {
        this.droppedMessages++; // a JSON-only client has no channel for anything but the result
        return;
      }
      this.#open();
    }
    // A client that is not reading gets only the latest progress per token when it reads again. Once
    // something is held, the rest waits behind it until the client has read everything, so values never
    // overtake each other.
    const token = final ? undefined : progressTokenOf(message);
    if (
      token !== undefined &&
      this.#sink &&
      ((this.#held?.size ?? 0) > 0 ||
        this.#sink.queuedBytes > (this.#options.holdProgressAfterBytes ?? HOLD_PROGRESS_AFTER_BYTES))
    ) {
      this.#held ??= new HeldProgress();
      this.#held.hold(token, message as JsonRpcMessage);
      return;
    }
    if (final) this.#flushHeld(); // the last progress goes before the result, as the relay's does
    this.#emit(message);
    if (final) this.#completeStream();
  }

  /** Numbers, logs and writes one message (to the replay log alone while no connection is attached). */
  #emit(message: JsonRpcMessage | JsonRpcMessage[]): void {
    const events = this.#events;
    let frame = messageFrame(message, events?.nextId());
    const frameLength = frameBytes(frame);
    if (frameLength > this.#options.maxMessageBytes) {
      const replaced = this.#oversize(message, frameLength);
      if (replaced === undefined) return;
      frame = messageFrame(replaced, events?.nextId());
    }
    if (progressTokenOf(message) !== undefined) this.#heldEstimateBytes = frameBytes(frame);
    events?.remember(frame);
    const sink = this.#sink;
    if (!sink) return;
    writeFrame(sink, frame);
    if (events) this.#sawEventId = true;
    this.#quiet.touch();
    sink.checkBudget(); // rule 13: the sink cuts a client whose backlog stays over the budget, not a write
  }

  /** A message over `maxMessageBytes` ({@link overLimit}): what to write instead, or `undefined` for nothing. */
  #oversize(
    message: JsonRpcMessage | JsonRpcMessage[],
    bytes: number,
  ): JsonRpcMessage | JsonRpcMessage[] | undefined {
    if (this.#options.stats) this.#options.stats.oversizeMessages++;
    const instead = overLimit(message, bytes, this.#options.maxMessageBytes);
    if (instead === undefined) this.droppedMessages++;
    return instead;
  }

  /** The client read everything queued: the held progress goes now, oldest token first. */
  #flushHeld(): void {
    if (this.#held === undefined || this.#held.size === 0) return;
    for (const message of this.#held.take()) this.#emit(message);
  }

  /**
   * The attached connection is over: the client closed it, or stopped reading and the sink cut it (its
   * backlog stayed over the budget for a whole stall window). Then the era decides, as for any
   * disconnect: 2026-07-28 cancels the request, a legacy stream keeps its events for a resume [H22].
   */
  #gone(why: DisconnectWhy): void {
    this.#sink = undefined;
    this.#quiet.stop();
    this.#disconnect(why);
  }

  /** Ends the stream with no final message (its request was cancelled, the session ended, shutdown). */
  end(): void {
    if (this.#state === 'ended') return;
    if (this.#state === 'waiting') {
      // Answer the POST anyway: an empty SSE stream, or 204 for a JSON-only client.
      if (this.#options.acceptsSse) this.#open();
      else this.#resolve(new Reply(204, this.#options.headers));
    }
    // A final that was written but never reached anyone (parked) is a dropped result.
    this.#finish(this.#complete ? 'dropped' : 'closed');
  }

  /** Ends a stream whose request was answered otherwise (refused after it opened): none of it is sent. */
  drop(): void {
    this.#respond = undefined;
    this.end();
  }

  /**
   * The connection went away before the final message. A stream without event ids (2026-07-28) is over:
   * the owner treats this as the cancel [CN24]. A legacy stream stays, detached, so the request runs on and
   * its events wait for a resume [H13].
   */
  disconnect(): void {
    this.#disconnect('closed');
  }

  #disconnect(why: DisconnectWhy): void {
    if (this.#state === 'ended') return;
    // Nobody reads this answer any more; it only settles the handler's promise.
    if (this.#state === 'waiting') this.#resolve(new Reply(503, {}));
    if (!this.#events) {
      this.#options.onDisconnect(why); // first, so the owner's abort carries its own cause
      this.#finish(this.#complete ? 'dropped' : 'closed');
      return;
    }
    this.#state = 'sse';
    this.#detach();
    // What was held for the client goes to the replay log: a resume gets the latest progress.
    this.#flushHeld();
    this.#options.onDisconnect(why);
    // A final written but not yet read when the client went: it waits for a resume, as a parked one does.
    if (this.#complete) this.#completeStream();
  }

  /**
   * Resumes a legacy stream on a new connection: replays every kept event after `afterSeq`, then goes on
   * live (or ends at once if the final was already written). Returns `undefined` if it cannot be resumed.
   */
  attach(afterSeq: number, headers: Record<string, string>): Reply | undefined {
    if (!this.resumable || this.#state === 'ended') return undefined;
    this.#detach(); // a resume supersedes a connection whose drop we had not noticed yet
    const sink = this.#newSink();
    // The replay may queue up to the log's bytes at once: the log is bounded by maxBufferedBytes.
    this.#events?.replay(sink, afterSeq);
    this.#quiet.touch();
    this.#state = 'sse';
    const response = new Reply(200, { ...SSE_HEADERS, ...headers }, sink.body);
    if (this.#complete) {
      sink.close();
      this.#finish('delivered');
    } else {
      this.#sink = sink;
      this.#quiet.start();
    }
    return response;
  }

  /** The resume window passed: a detached final that nobody came back for is dropped. */
  expire(): void {
    if (this.#state !== 'ended') this.#finish(this.#complete ? 'dropped' : 'closed');
  }

  #open(): void {
    this.#state = 'sse';
    const sink = this.#newSink();
    this.#sink = sink;
    this.#firstSink = sink;
    this.#resolve(new Reply(200, { ...SSE_HEADERS, ...this.#options.headers }, sink.body));
    const priming = this.#events?.priming();
    if (priming) {
      sink.write(priming);
      this.#sawEventId = true;
    }
    this.#quiet.touch();
    this.#quiet.start();
  }

  #newSink(): SseSink {
    const sink: SseSink = new SseSink(
      {
        onGone: (why) => {
          if (this.#sink === sink) this.#gone(why);
        },
        onDrained: () => {
          if (this.#sink !== sink) return;
          if (this.#complete) this.#completeStream();
          else this.#flushHeld();
        },
      },
      this.#options,
    );
    return sink;
  }

  #detach(): void {
    const sink = this.#sink;
    this.#sink = undefined;
    sink?.close();
    this.#quiet.stop();
  }

  /** Answers the request: its runtime writes the reply now, if it can, and `response` settles with it. */
  #resolve(reply: Reply): void {
    this.#respond?.(reply);
    this.#resolved(reply);
  }

  #resolveJson(message: JsonRpcMessage | JsonRpcMessage[]): void {
    const status = this.#options.statusOf?.(message) ?? 200;
    const headers = { 'content-type': 'application/json', ...this.#options.headers };
    let body = jsonPieces(message);
    // UTF-16 length: at most the UTF-8 size for ASCII JSON, a close bound otherwise.
    const chars = piecesLength(body);
    if (chars > this.#options.maxMessageBytes) body = jsonPieces(this.#oversize(message, chars) ?? message);
    this.#resolve(new Reply(status, headers, body));
  }

  #completeStream(): void {
    this.#complete = true;
    // Over budget, the final is delivered only once the client has read it all (the drain ends the stream
    // then); a client that stalls meanwhile is cut at the stall check and the result counts as lost.
    if (this.#sink?.overBudget) return;
    if (this.#sink) {
      this.#sink.close();
      this.#sink = undefined;
      this.#finish('delivered');
    } else if (!this.resumable) {
      this.#finish('dropped'); // the client never saw an event id: it cannot come back for this
    } else {
      this.#options.onParked?.(); // kept until attach() or expire()
    }
  }

  #finish(outcome: StreamOutcome): void {
    if (this.#state === 'ended') return;
    this.#state = 'ended';
    this.#sink?.close();
    this.#sink = undefined;
    this.#quiet.stop();
    this.#events?.clear();
    this.#held?.clear();
    if (this.#liveKey !== undefined) this.#options.live?.delete(this.#liveKey);
    this.#options.onEnd?.(outcome);
    this.#released?.();
  }

  #onQuiet(): void {
    if (this.#state === 'ended') return;
    // A quiet request opens its SSE stream so the keep-alive can flow; SSE comments are ignored by
    // clients [TO11].
    if (this.#state === 'waiting') this.#open();
    if (!this.#sink) return;
    this.#sink.write(KEEP_ALIVE);
    this.#quiet.touch();
    this.#quiet.start();
  }
}

// Pure: a bundle of the client alone (the browser HttpClient) leaves this server constant out.
const KEEP_ALIVE = /* @__PURE__ */ textFrame(': keep-alive\n\n');
