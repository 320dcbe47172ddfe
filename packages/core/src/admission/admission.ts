import { type Clock, systemClock } from '../clock/clock.js';
import { errorResponse, type JsonRpcMessage } from '../endpoint/messages.js';
import { JsonRpcErrorCode } from '../errors/causes.js';
import type { RequestId } from '../schemas/types.js';

/**
 * Default bound on handlers an {@link Admission} runs at once: 1,000. Past it, requests wait their turn in
 * a queue bounded by {@link DEFAULT_MAX_QUEUED_BYTES}, so a burst of any size costs bounded memory.
 *
 * @example
 * ```ts
 * import { Admission, DEFAULT_MAX_IN_FLIGHT } from '@mcp-inflight/core/adapter';
 * new Admission({ maxInFlight: DEFAULT_MAX_IN_FLIGHT / 10 }); // handlers that each hold a lot of memory
 * ```
 */
export const DEFAULT_MAX_IN_FLIGHT = 1_000;

/**
 * Default bound on requests waiting for a free slot: 8 MiB, counted as the bytes of the text each was read
 * from plus {@link QUEUED_REQUEST_OVERHEAD_BYTES} (about 50,000 small tool calls). A request larger than
 * the bound never waits: when every slot is busy it is refused at once.
 *
 * @example
 * ```ts
 * import { Admission, DEFAULT_MAX_QUEUED_BYTES } from '@mcp-inflight/core/adapter';
 * new Admission({ maxQueuedBytes: DEFAULT_MAX_QUEUED_BYTES * 4 }); // a server that takes large bursts
 * ```
 */
export const DEFAULT_MAX_QUEUED_BYTES = 8 * 1024 * 1024;

/**
 * What a waiting request costs beyond its text, for the queue's bound: its entry and its id in the index.
 *
 * @example
 * ```ts
 * import { QUEUED_REQUEST_OVERHEAD_BYTES } from '@mcp-inflight/core/adapter';
 * const line = '{"jsonrpc":"2.0","id":1,"method":"ping"}';
 * const counted = line.length + QUEUED_REQUEST_OVERHEAD_BYTES; // what it takes from maxQueuedBytes
 * ```
 */
export const QUEUED_REQUEST_OVERHEAD_BYTES = 64;

/**
 * The message of the `-32010` (`JsonRpcErrorCode.Overloaded`) refusal. Short: under a flood, refusals are
 * most of what is written, and the peer must read them all.
 */
export const OVERLOADED_MESSAGE = 'Overloaded: retry later';

/**
 * Options of an {@link Admission}.
 */
export interface AdmissionOptions {
  /** Handlers running at once, over every endpoint that shares this admission. @default 1_000 */
  maxInFlight?: number;
  /**
   * Bound on requests waiting for a slot: the bytes of the text each was read from, plus 64 each. A
   * request that does not fit is refused at once with `-32010`. @default 8 MiB
   */
  maxQueuedBytes?: number;
  /**
   * Handlers one share (see {@link Admission.assign}) may run at once; its further requests wait even
   * when slots are free, so one busy share cannot take every slot. @default maxInFlight (no share cap)
   */
  maxInFlightPerShare?: number;
  /** Times how long requests wait. @default systemClock */
  clock?: Clock;
}

/**
 * Counters of an {@link Admission}.
 */
export interface AdmissionStats {
  /** Handlers running now. */
  inFlight: number;
  /** Requests waiting for a free slot now. */
  queuedRequests: number;
  /** What they count against `maxQueuedBytes` now. */
  queuedBytes: number;
  /** The most the queue ever counted at once. */
  peakQueuedBytes: number;
  /** Requests refused at once with `-32010` because the queue was full. */
  refusedRequests: number;
  /** Waiting requests the peer cancelled: removed from the queue, never run, never answered [CN9]. */
  cancelledWhileQueued: number;
  /** The longest any request waited for its slot, in ms of the admission's clock. */
  longestWaitMs: number;
  /** Shares with a request running or waiting now. */
  activeShares: number;
}

/** What {@link Admission.admit} decided for one request. */
export type AdmissionState = 'running' | 'queued' | 'refused' | 'ended';

interface Share {
  readonly key: unknown;
  running: number;
  queued: number;
  head: Ticket | undefined;
  tail: Ticket | undefined;
  /** In the round-robin ring (it has waiting requests). */
  inRing: boolean;
}

/**
 * One request's place in an {@link Admission}: running (it holds a slot until {@link Admission.release}),
 * queued (its `start` is called when its turn comes, unless {@link Admission.withdraw} takes it out
 * first), or refused.
 */
export interface AdmissionTicket {
  /** Where the request is now. */
  readonly state: AdmissionState;
}

class Ticket implements AdmissionTicket {
  state: AdmissionState;
  readonly start: (() => void) | undefined;
  readonly share: Share;
  readonly bytes: number;
  readonly queuedAtMs: number;
  prev: Ticket | undefined;
  next: Ticket | undefined;

  constructor(state: AdmissionState, share: Share, bytes: number, atMs: number, start?: () => void) {
    this.state = state;
    this.share = share;
    this.bytes = bytes;
    this.queuedAtMs = atMs;
    this.start = start;
  }
}

/** The default share of endpoints nobody assigned: one queue, arrival order. */
const SHARED = {};

function isIdle(share: Share): boolean {
  return share.running === 0 && share.queued === 0;
}

/**
 * Admission of inbound requests to their handlers, shared by the endpoints it is given to (one per stdio
 * connection; one per HTTP server, its 2026-07-28 requests and legacy sessions alike; one per proxy, over
 * every host). A request runs at once while fewer than `maxInFlight` handlers run; otherwise it waits, in
 * a queue bounded by `maxQueuedBytes`, and once that is full it is refused at once with `-32010`. An
 * endpoint asks before it runs a handler, so no transport reads a message to decide; reading never stops
 * for load, so a cancel never waits behind requests (rule 7), and a cancel for a waiting request takes it
 * out at once: it never runs, and gets no response [CN9].
 *
 * Endpoints can be put in shares ({@link Admission.assign}: a proxy's hosts): waiting requests are started
 * round robin between shares, and `maxInFlightPerShare` caps what one share runs, so one host's calls
 * cannot take every slot from another (rule 14).
 */
export class Admission {
  /** Handlers running at once, at most. */
  readonly maxInFlight: number;
  /** Bound on what waiting requests count. */
  readonly maxQueuedBytes: number;
  /** Handlers one share runs at once, at most. */
  readonly maxInFlightPerShare: number;
  readonly #clock: Clock;
  readonly #shareKeys = new WeakMap<object, unknown>();
  readonly #shares = new Map<unknown, Share>();
  /** Shares with waiting requests, taken round robin from `#cursor`. */
  #ring: Share[] = [];
  #cursor = 0;
  #running = 0;
  #queued = 0;
  #queuedBytes = 0;
  #peakQueuedBytes = 0;
  #refused = 0;
  #cancelled = 0;
  #longestWaitMs = 0;
  #draining = false;

  constructor(options: AdmissionOptions = {}) {
    this.maxInFlight = options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT;
    this.maxQueuedBytes = options.maxQueuedBytes ?? DEFAULT_MAX_QUEUED_BYTES;
    this.maxInFlightPerShare = options.maxInFlightPerShare ?? this.maxInFlight;
    this.#clock = options.clock ?? systemClock;
    if (!(this.maxInFlight >= 1))
      throw new RangeError(`maxInFlight must be at least 1, got ${this.maxInFlight}`);
    if (!(this.maxQueuedBytes >= 0))
      throw new RangeError(`maxQueuedBytes must not be negative, got ${this.maxQueuedBytes}`);
    if (!(this.maxInFlightPerShare >= 1))
      throw new RangeError(`maxInFlightPerShare must be at least 1, got ${this.maxInFlightPerShare}`);
  }

  /** A snapshot of the counters: read it again for new numbers. */
  get stats(): AdmissionStats {
    const shared = this.#shares.get(SHARED); // kept when idle (see #forgetIfIdle), counted only when busy
    return {
      inFlight: this.#running,
      queuedRequests: this.#queued,
      queuedBytes: this.#queuedBytes,
      peakQueuedBytes: this.#peakQueuedBytes,
      refusedRequests: this.#refused,
      cancelledWhileQueued: this.#cancelled,
      longestWaitMs: this.#longestWaitMs,
      activeShares: this.#shares.size - (shared !== undefined && isIdle(shared) ? 1 : 0),
    };
  }

  /**
   * Puts `owner` (an endpoint) in the share named `key`: endpoints with one key are one share (a host's
   * 2026-07-28 requests, each on an endpoint of its own). Unassigned endpoints are one share together.
   */
  assign(owner: object, key: unknown): void {
    this.#shareKeys.set(owner, key);
  }

  /** The answer to a request refused because the queue was full: `-32010` "Overloaded: retry later". */
  refusal(id: RequestId): JsonRpcMessage {
    return errorResponse(id, JsonRpcErrorCode.Overloaded, OVERLOADED_MESSAGE);
  }

  /** How many handlers `key`'s share runs now. */
  inFlightOf(key: unknown): number {
    return this.#shares.get(key)?.running ?? 0;
  }

  /**
   * Asks for a slot for one request of `owner`'s. `size` is the text it was read from, or that text's
   * length in bytes (a batch's elements share it: `parts`), for the queue's bound. A ticket `running` may
   * run now and must be released when its handler ends; `queued` runs `start` when its turn comes;
   * `refused` is answered `-32010` by the caller.
   */
  admit(owner: object, size: string | number | undefined, parts: number, start: () => void): AdmissionTicket {
    const key = this.#shareKeys.has(owner) ? this.#shareKeys.get(owner) : SHARED;
    let share = this.#shares.get(key);
    if (
      (share === undefined || (share.queued === 0 && share.running < this.maxInFlightPerShare)) &&
      this.#running < this.maxInFlight
    ) {
      share ??= this.#newShare(key);
      share.running++;
      this.#running++;
      return new Ticket('running', share, 0, 0);
    }
    const bytes = Math.ceil(byteLengthOf(size) / Math.max(1, parts)) + QUEUED_REQUEST_OVERHEAD_BYTES;
    if (this.#queuedBytes + bytes > this.maxQueuedBytes) {
      this.#refused++;
      return new Ticket('refused', share ?? this.#newShare(key, false), bytes, 0);
    }
    share ??= this.#newShare(key);
    const ticket = new Ticket('queued', share, bytes, this.#clock.now(), start);
    ticket.prev = share.tail;
    if (share.tail) share.tail.next = ticket;
    else share.head = ticket;
    share.tail = ticket;
    share.queued++;
    this.#queued++;
    this.#queuedBytes += bytes;
    if (this.#queuedBytes > this.#peakQueuedBytes) this.#peakQueuedBytes = this.#queuedBytes;
    if (!share.inRing) {
      share.inRing = true;
      this.#ring.push(share);
    }
    // A share under its cap can run its request as soon as a slot frees; one that is over waits for its own.
    return ticket;
  }

  /** A running request's handler ended: its slot goes to the next waiting request, round robin. */
  release(admitted: AdmissionTicket): void {
    const ticket = admitted as Ticket;
    if (ticket.state !== 'running') return;
    ticket.state = 'ended';
    const share = ticket.share;
    share.running--;
    this.#running--;
    this.#forgetIfIdle(share);
    this.#drain();
  }

  /**
   * Takes a waiting request out of the queue: it never runs. `cancelled` counts it as the peer's cancel
   * (`cancelledWhileQueued`); otherwise its endpoint is closing. Returns whether it was waiting.
   */
  withdraw(waiting: AdmissionTicket, cancelled: boolean): boolean {
    const ticket = waiting as Ticket;
    if (ticket.state !== 'queued') return false;
    this.#unlink(ticket);
    ticket.state = 'ended';
    if (cancelled) this.#cancelled++;
    this.#forgetIfIdle(ticket.share);
    return true;
  }

  #newShare(key: unknown, keep = true): Share {
    const share: Share = { key, running: 0, queued: 0, head: undefined, tail: undefined, inRing: false };
    if (keep) this.#shares.set(key, share);
    return share;
  }

  #unlink(ticket: Ticket): void {
    const share = ticket.share;
    if (ticket.prev) ticket.prev.next = ticket.next;
    else share.head = ticket.next;
    if (ticket.next) ticket.next.prev = ticket.prev;
    else share.tail = ticket.prev;
    ticket.prev = ticket.next = undefined;
    share.queued--;
    this.#queued--;
    this.#queuedBytes -= ticket.bytes;
    if (share.queued === 0 && share.inRing) {
      share.inRing = false;
      const at = this.#ring.indexOf(share);
      this.#ring.splice(at, 1);
      if (at < this.#cursor) this.#cursor--;
    }
  }

  /**
   * A share with nothing running or waiting is dropped, so keys of hosts long gone are not kept (rule 8).
   * The one share of unassigned endpoints stays: it is one entry, and a server taking one call at a time
   * would otherwise make and drop it per call.
   */
  #forgetIfIdle(share: Share): void {
    if (share.key !== SHARED && isIdle(share)) this.#shares.delete(share.key);
  }

  /** Starts waiting requests while slots are free: one per share in turn, skipping shares at their cap. */
  #drain(): void {
    if (this.#draining) return; // a start that releases at once is picked up by the loop below
    this.#draining = true;
    try {
      let skipped = 0;
      while (this.#running < this.maxInFlight && this.#ring.length > 0 && skipped < this.#ring.length) {
        if (this.#cursor >= this.#ring.length) this.#cursor = 0;
        const share = this.#ring[this.#cursor]!;
        if (share.running >= this.maxInFlightPerShare) {
          this.#cursor++;
          skipped++;
          continue;
        }
        skipped = 0;
        const ticket = share.head!;
        this.#unlink(ticket); // moves the ring past an emptied share by itself
        if (share.inRing) this.#cursor++;
        ticket.state = 'running';
        share.running++;
        this.#running++;
        const waitedMs = this.#clock.now() - ticket.queuedAtMs;
        if (waitedMs > this.#longestWaitMs) this.#longestWaitMs = waitedMs;
        ticket.start?.();
      }
    } finally {
      this.#draining = false;
    }
  }
}

/** UTF-8 bytes of `size` when it is text; only requests that wait are measured, so the hot path is free. */
function byteLengthOf(size: string | number | undefined): number {
  if (typeof size === 'number') return size;
  if (size === undefined) return 0;
  let bytes = size.length;
  for (let i = 0; i < size.length; i++) {
    const c = size.charCodeAt(i);
    if (c >= 0x80) bytes += c >= 0x800 && (c < 0xd800 || c > 0xdfff) ? 2 : 1;
  }
  return bytes;
}
