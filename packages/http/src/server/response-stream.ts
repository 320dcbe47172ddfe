import {
  type Clock,
  JsonRpcErrorCode,
  type ProgressToken,
  type RequestId,
  type TimerHandle,
} from '@mcp-inflight/core';
import {
  errorResponse,
  type JsonRpcMessage,
  jsonPieces,
  piecesLength,
  QuietTimer,
  type TimerQueue,
} from '@mcp-inflight/core/adapter';
import type { LiveTable } from '../shared/live-table.js';
import { type Disconnect, Reply } from './exchange.js';
import {
  type Frame,
  frameBytes,
  messageFrame,
  SSE_HEADERS,
  SseSink,
  textFrame,
  writeFrame,
} from './sse-sink.js';

/**
 * Progress is queued like any message while at most this many bytes wait for the client; past it, and until
 * the client has read everything, only the latest value per token is held (rule 8). A client that reads
 * gets every value of a burst (one tick's worth, or a proxy's chunk from its upstream); one that falls
 * behind costs this much plus one held message per token.
 */
const HOLD_PROGRESS_AFTER_BYTES = 64 * 1024;

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

/** Why a stream's connection went: the client closed it, or it stopped reading past the byte budget. */
export type DisconnectWhy = 'closed' | 'slow';

/** Options for one {@link ResponseStream}. */
export interface ResponseStreamOptions {
  clock: Clock;
  /** An SSE comment after this long with nothing written; 0 turns keep-alives off. */
  keepAliveMs: number;
  /** Where the keep-alive window waits: the server's one queue for all its streams. @default its own */
  windows?: TimerQueue;
  /** What the request's `Accept` allows. */
  acceptsJson: boolean;
  acceptsSse: boolean;
  /** Extra headers for the response (session id, CORS). */
  headers: Record<string, string>;
  /** Takes the reply as soon as it exists, before `response` settles (the request's own `respond`). */
  respond?: ((reply: Reply) => void) | undefined;
  /** Present for legacy streams, which are resumable with `Last-Event-ID`; absent for 2026-07-28 [H25]. */
  eventIds?: StreamEventIds;
  /** HTTP status for a final message sent as JSON. @default 200 */
  statusOf?: (final: JsonRpcMessage | JsonRpcMessage[]) => number;
  /**
   * Bytes that may wait for a client that is not reading. Progress past a small backlog is held back
   * (latest value per token) rather than queued; anything else is queued, and a backlog over this that
   * does not shrink for `stallMs` ends the connection (rules 8 and 13).
   */
  budgetBytes: number;
  /** How long a backlog over `budgetBytes` may go without shrinking before the client counts as stalled. */
  stallMs: number;
  /**
   * The largest message written: a response over it is replaced by an error for its request, any other
   * message over it is dropped (counted in `oversizeMessages`).
   */
  maxMessageBytes: number;
  /** The handler's counters, for `oversizeMessages`. */
  stats?: { oversizeMessages: number };
  /** Bytes waiting for the client past which progress is held, not queued. @default HOLD_PROGRESS_AFTER_BYTES */
  holdProgressAfterBytes?: number;
  /** Every live stream of the handler, for its stats; the stream adds and removes itself. */
  live?: LiveTable<ResponseStream>;
  /** The client went away before the final message, or stopped reading past the budget (`slow`). */
  onDisconnect: (why: DisconnectWhy) => void;
  /** The final is written but its connection is gone: the stream now waits for a resume (or expiry). */
  onParked?: () => void;
  /** The stream is over: `delivered` (final reached the client), `closed` (no final), `dropped` (final lost). */
  onEnd?: (outcome: StreamOutcome) => void;
}

/** How a stream ended. */
export type StreamOutcome = 'delivered' | 'closed' | 'dropped';

/**
 * The reply to one POST (or a legacy GET stream): decides JSON or SSE at the first message (the response
 * alone becomes a JSON body; anything before it, or a quiet spell as long as the keep-alive interval, opens
 * SSE), writes keep-alive comments on quiet streams, and, for legacy revisions, numbers its events and keeps
 * recent ones so a client can resume with `Last-Event-ID` after a drop [H22].
 */
export class ResponseStream {
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
  #log: { seq: number; frame: Frame }[] = [];
  #logBytes = 0;
  /**
   * Progress held back while the client is not reading: the latest per token, in arrival order. Made when
   * a value is first held: most calls never hold one.
   */
  #held: Map<ProgressToken, JsonRpcMessage> | undefined;
  #seq = 0;
  #sawEventId = false;
  #complete = false;
  /** Nothing written for `keepAliveMs`: an SSE comment shows the client the stream is alive [TO11]. */
  #quiet: QuietTimer;
  /** Size of the last progress frame written, to count held ones in stats without serialising them. */
  #heldEstimateBytes = 0;
  /** Armed while the backlog is over budget: the backlog then, which the client must shrink by the check. */
  #stall: { timer: TimerHandle; backlogBytes: number } | undefined;

  constructor(options: ResponseStreamOptions) {
    this.#options = options;
    this.#respond = options.respond;
    this.response = new Promise((resolve) => {
      this.#resolved = resolve;
    });
    this.#quiet = new QuietTimer(options.clock, options.keepAliveMs, () => this.#onQuiet(), options.windows);
    if (options.acceptsSse) this.#quiet.start();
    this.#liveKey = options.live?.add(this);
  }

  /** Bytes waiting for the client: queued in the response body, or held as progress (latest per token). */
  get bufferedBytes(): number {
    return (this.#sink?.queuedBytes ?? 0) + (this.#held?.size ?? 0) * this.#heldEstimateBytes;
  }

  /** Bytes kept for a `Last-Event-ID` replay (legacy). */
  get replayBytes(): number {
    return this.#logBytes;
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
    return this.#options.eventIds !== undefined && this.#sawEventId;
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
    // A client that is not reading gets only the latest progress per token when it reads again: queueing
    // every value would grow the server for as long as the call runs (rule 8). Once something is held, the
    // rest waits behind it until the client has read everything, so values never overtake each other.
    const token = final ? undefined : progressTokenOf(message);
    if (
      token !== undefined &&
      this.#sink &&
      ((this.#held?.size ?? 0) > 0 ||
        this.#sink.queuedBytes > (this.#options.holdProgressAfterBytes ?? HOLD_PROGRESS_AFTER_BYTES))
    ) {
      this.#held ??= new Map();
      this.#held.delete(token); // re-insert: the held values keep their order of arrival
      this.#held.set(token, message as JsonRpcMessage);
      return;
    }
    if (final) this.#flushHeld(); // the last progress goes before the result, as the relay's does
    if (!this.#emit(message)) return;
    if (final) this.#completeStream();
  }

  /** Numbers, logs and writes one message; false if the stream ended because the client is too slow. */
  #emit(message: JsonRpcMessage | JsonRpcMessage[]): boolean {
    const ids = this.#options.eventIds;
    let frame = messageFrame(message, ids ? `${ids.key}-${this.#seq + 1}` : undefined);
    const frameLength = frameBytes(frame);
    if (frameLength > this.#options.maxMessageBytes) {
      const replaced = this.#oversize(message, frameLength);
      if (replaced === undefined) return true;
      frame = messageFrame(replaced, ids ? `${ids.key}-${this.#seq + 1}` : undefined);
    }
    const seq = ++this.#seq;
    if (progressTokenOf(message) !== undefined) this.#heldEstimateBytes = frameBytes(frame);
    if (ids) this.#remember(seq, frame, ids);
    const sink = this.#sink;
    if (!sink) return true;
    // Rule 13: one write never cuts the client, whatever its size; only a backlog that stays over the
    // budget without shrinking (a client that stopped reading) does, at the stall check.
    writeFrame(sink, frame);
    if (ids) this.#sawEventId = true;
    this.#quiet.touch();
    if (!this.#stall && sink.queuedBytes > this.#options.budgetBytes) this.#armStall(sink.queuedBytes);
    return true;
  }

  /**
   * A message over `maxMessageBytes`: a response becomes an error for its request (a batch's, per
   * element), anything else is dropped. Returns what to write instead, or `undefined` for nothing.
   */
  #oversize(
    message: JsonRpcMessage | JsonRpcMessage[],
    bytes: number,
  ): JsonRpcMessage | JsonRpcMessage[] | undefined {
    if (this.#options.stats) this.#options.stats.oversizeMessages++;
    const max = this.#options.maxMessageBytes;
    const tooLarge = (m: JsonRpcMessage, size: number): JsonRpcMessage =>
      'id' in m && m['method'] === undefined && m['id'] !== undefined
        ? errorResponse(
            m['id'] as RequestId,
            JsonRpcErrorCode.InternalError,
            `Internal error: the response is ${size} bytes, over the server's limit of ${max} (maxMessageBytes)`,
            { responseBytes: size, maxMessageBytes: max },
          )
        : m;
    if (Array.isArray(message)) {
      return message.map((m) => {
        const size = piecesLength(jsonPieces(m));
        return size > max ? tooLarge(m, size) : m;
      });
    }
    if (message['method'] !== undefined || message['id'] === undefined) {
      this.droppedMessages++; // progress, a notification or a request: nothing waits for it by id
      return undefined;
    }
    return tooLarge(message, bytes);
  }

  /** The backlog passed the budget: from now on it must shrink by every check, or the client is stalled. */
  #armStall(backlogBytes: number): void {
    const timer = this.#options.clock.setTimer(() => this.#checkStall(), this.#options.stallMs);
    this.#stall = { timer, backlogBytes };
  }

  #checkStall(): void {
    const backlog = this.#sink?.queuedBytes ?? 0;
    const before = this.#stall?.backlogBytes ?? 0;
    this.#stall = undefined;
    if (backlog <= this.#options.budgetBytes) return;
    if (backlog >= before) return this.#overBudget();
    this.#armStall(backlog); // it read something: judge the next window
  }

  #clearStall(): void {
    this.#stall?.timer.clear();
    this.#stall = undefined;
  }

  /** Keeps a frame for replay within both bounds; the newest one always stays. */
  #remember(seq: number, frame: Frame, ids: StreamEventIds): void {
    this.#log.push({ seq, frame });
    this.#logBytes += frameBytes(frame);
    while (
      this.#log.length > 1 &&
      (this.#log.length > ids.maxBuffered || this.#logBytes > ids.maxBufferedBytes)
    ) {
      this.#logBytes -= frameBytes(this.#log.shift()!.frame);
    }
  }

  /** The client read everything queued: the held progress goes now, oldest token first. */
  #flushHeld(): void {
    if (this.#held === undefined || this.#held.size === 0) return;
    const held = [...this.#held.values()];
    this.#held.clear();
    for (const message of held) if (!this.#emit(message)) return;
  }

  /**
   * The client stopped reading: its backlog stayed over the budget for a whole stall window. The
   * connection is cut (its queued bytes freed); then the era decides, as for a disconnect: 2026-07-28
   * cancels the request, a legacy stream keeps its events for a `Last-Event-ID` resume [H22].
   */
  #overBudget(): void {
    const sink = this.#sink;
    this.#sink = undefined;
    this.#quiet.stop();
    sink?.abort(new Error('the client stopped reading: the stream stayed over its byte budget'));
    this.#disconnect('slow');
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
    if (!this.#options.eventIds) {
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
    for (const entry of this.#log) if (entry.seq > afterSeq) writeFrame(sink, entry.frame);
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
    const ids = this.#options.eventIds;
    if (ids?.priming) {
      sink.write(textFrame(`id: ${ids.key}-0\nretry: ${ids.retryMs}\ndata:\n\n`));
      this.#sawEventId = true;
    }
    this.#quiet.touch();
    this.#quiet.start();
  }

  #newSink(): SseSink {
    const sink: SseSink = new SseSink(
      {
        onCancel: () => {
          if (this.#sink === sink) this.disconnect();
        },
        onDrained: () => {
          if (this.#sink !== sink) return;
          this.#clearStall(); // nothing waits: whatever was over the budget has been read
          if (this.#complete) this.#completeStream();
          else this.#flushHeld();
        },
      },
      this.#options.budgetBytes,
    );
    return sink;
  }

  #detach(): void {
    this.#clearStall();
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
    if (this.#sink && this.#stall) return;
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
    this.#clearStall();
    this.#sink?.close();
    this.#sink = undefined;
    this.#quiet.stop();
    this.#log = [];
    this.#logBytes = 0;
    this.#held?.clear();
    if (this.#liveKey !== undefined) this.#options.live?.delete(this.#liveKey);
    this.#options.onEnd?.(outcome);
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

/** The token of a `notifications/progress`, the one message a slow reader may miss all but the latest of. */
function progressTokenOf(message: JsonRpcMessage | JsonRpcMessage[]): ProgressToken | undefined {
  if (Array.isArray(message) || message['method'] !== 'notifications/progress') return undefined;
  const token = (message['params'] as { progressToken?: unknown } | undefined)?.progressToken;
  return typeof token === 'string' || typeof token === 'number' ? token : undefined;
}
