import { type Clock, systemClock } from '../clock/clock.js';
import { byteLengthOf } from '../endpoint/json-scan.js';
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

/** The `-32010` refusal's message: short, as under a flood refusals are most of what the peer reads. */
export const OVERLOADED_MESSAGE = 'Overloaded: retry later';

/** Options of an {@link Admission}. */
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
  /**
   * Control requests (`initialize`, `server/discover`, `ping`, `tasks/get|list|cancel|update`, handlers
   * with `bypassesAdmission`) a share runs at once beside the work, never waiting; else `-32010`. @default 64
   */
  maxControlPerShare?: number;
  /** The same for long-lived requests that hold no work (`tasks/result`, `subscriptions/listen`). @default 64 */
  maxHeldPerShare?: number;
  /** Times how long requests wait. @default systemClock */
  clock?: Clock;
}

/** Counters of an {@link Admission}. */
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
  /** Control requests running now, outside the work slots (`maxControlPerShare`). */
  controlInFlight: number;
  /** Long-lived requests running now, outside the work slots (`maxHeldPerShare`). */
  heldInFlight: number;
}

/**
 * What {@link Admission.admit} reads of a request: method (its lane), params (a share keyed by them), the
 * text or bytes of its message and how many requests it held (the queue's bound), its handler's options.
 */
export interface AdmissionRequest {
  readonly method: string;
  readonly params: Record<string, unknown> | undefined;
  readonly source: string | number | undefined;
  readonly parts: number;
  readonly limits?: { readonly bypassesAdmission?: boolean } | undefined;
}

/** Methods that never wait behind work [rule 14]: lane 1, control; lane 2, held (long, holding no work). */
const LANE_OF = new Map(
  'initialize server/discover ping tasks/get tasks/list tasks/cancel tasks/update tasks/result subscriptions/listen'
    .split(' ')
    .map((method) => [method, method === 'tasks/result' || method === 'subscriptions/listen' ? 2 : 1]),
);

/** What {@link Admission.admit} decided for one request. */
export type AdmissionState = 'running' | 'queued' | 'refused' | 'ended';

class Share {
  queued = 0;
  /** Requests running in each lane: 0 work (the slots), 1 control, 2 held. */
  readonly lanes = [0, 0, 0];
  head: Ticket | undefined = undefined;
  tail: Ticket | undefined = undefined;
  /** In the round-robin ring (it has waiting requests). */
  inRing = false;
  key: unknown = undefined;
  /** Its requests running (every lane) or waiting. */
  get size(): number {
    return this.lanes[0]! + this.lanes[1]! + this.lanes[2]! + this.queued;
  }
}

/**
 * One request's place in an {@link Admission}: running (until {@link Admission.release}), queued (its
 * `start` is called in its turn, unless {@link Admission.withdraw} takes it out first), or refused.
 */
export interface AdmissionTicket {
  /** Where the request is now. */
  readonly state: AdmissionState;
}

/** A ticket that runs in `lane` (0: a work slot) or waits (its bytes, since when, what starts it). */
class Ticket implements AdmissionTicket {
  state: AdmissionState = 'running';
  share!: Share;
  lane = 0;
  bytes = 0;
  queuedAtMs = 0;
  start: (() => void) | undefined = undefined;
  prev: Ticket | undefined = undefined;
  next: Ticket | undefined = undefined;
}

/** Every refusal's ticket: it holds nothing. */
const REFUSED: AdmissionTicket = Object.freeze({ state: 'refused' as const });

/** The default share of endpoints nobody assigned: one queue, arrival order. */
const SHARED = {};

/**
 * Admission of inbound requests to their handlers, shared by the endpoints it is given to (one per stdio
 * connection, HTTP server or proxy). A request runs at once while fewer than `maxInFlight` handlers run;
 * else it waits in a queue bounded by `maxQueuedBytes`, past which it is refused with `-32010`. Reading
 * never stops for load, so a cancel never waits (rule 7) and takes a waiting request out at once [CN9].
 * Endpoints in shares ({@link Admission.assign}: a proxy's hosts) are started round robin, each capped at
 * `maxInFlightPerShare`; control and long-lived requests run beside the work in lanes of their own, so
 * one host's calls cannot take every slot from another, nor hold up anyone's handshake (rule 14).
 */
export class Admission {
  /** Handlers running at once, at most. */
  readonly maxInFlight: number;
  /** Bound on what waiting requests count. */
  readonly maxQueuedBytes: number;
  /** Handlers one share runs at once, at most. */
  readonly maxInFlightPerShare: number;
  /** Control requests one share runs at once, at most. */
  readonly maxControlPerShare: number;
  /** Long-lived requests one share runs at once, at most. */
  readonly maxHeldPerShare: number;
  readonly #clock: Clock;
  readonly #shareKeys = new WeakMap<object, unknown>();
  readonly #shares = new Map<unknown, Share>();
  /** Shares with waiting requests, taken round robin from `#cursor`. */
  #ring: Share[] = [];
  #cursor = 0;
  /** Requests running in each lane, over every share (0: the work slots). */
  #lanes = [0, 0, 0];
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
    this.maxControlPerShare = options.maxControlPerShare ?? 64;
    this.maxHeldPerShare = options.maxHeldPerShare ?? 64;
    this.#clock = options.clock ?? systemClock;
    for (const name of [
      'maxInFlight',
      'maxInFlightPerShare',
      'maxControlPerShare',
      'maxHeldPerShare',
    ] as const)
      if (!(this[name] >= 1)) throw new RangeError(`${name} must be at least 1, got ${this[name]}`);
    if (!(this.maxQueuedBytes >= 0))
      throw new RangeError(`maxQueuedBytes must not be negative, got ${this.maxQueuedBytes}`);
  }

  /** A snapshot of the counters: read it again for new numbers. */
  get stats(): AdmissionStats {
    const shared = this.#shares.get(SHARED); // kept when idle (see #forgetIfIdle), counted only when busy
    return {
      inFlight: this.#lanes[0]!,
      queuedRequests: this.#queued,
      queuedBytes: this.#queuedBytes,
      peakQueuedBytes: this.#peakQueuedBytes,
      refusedRequests: this.#refused,
      cancelledWhileQueued: this.#cancelled,
      longestWaitMs: this.#longestWaitMs,
      activeShares: this.#shares.size - (shared !== undefined && shared.size === 0 ? 1 : 0),
      controlInFlight: this.#lanes[1]!,
      heldInFlight: this.#lanes[2]!,
    };
  }

  /**
   * Puts `owner` (an endpoint) in the share named `key` (unassigned endpoints are one share together); a
   * function `key` is asked each request's params for it (a proxy reads the clientInfo in `_meta`).
   */
  assign(owner: object, key: unknown): void {
    this.#shareKeys.set(owner, key);
  }

  /** The answer to a request refused because the queue was full: `-32010` "Overloaded: retry later". */
  refusal(id: RequestId): JsonRpcMessage {
    return errorResponse(id, JsonRpcErrorCode.Overloaded, OVERLOADED_MESSAGE);
  }

  /** How many requests `key`'s share runs or has waiting now, in every lane. */
  inFlightOf(key: unknown): number {
    return this.#shares.get(key)?.size ?? 0;
  }

  /**
   * Asks for a slot for one request of `owner`'s: `running` (release it when its handler ends), `queued`
   * (`start` runs in its turn), or `refused` (the caller answers `-32010`). A lane's request never waits.
   */
  admit(owner: object, request: AdmissionRequest, start: () => void): AdmissionTicket {
    const assigned = this.#shareKeys.get(owner);
    const key = typeof assigned === 'function' ? assigned(request.params) : (assigned ?? SHARED);
    let share = this.#shares.get(key);
    const lane = request.limits?.bypassesAdmission ? 1 : (LANE_OF.get(request.method) ?? 0);
    if (lane !== 0) {
      // A lane never waits; in all it runs maxInFlight (endpoints in no share are everyone on HTTP).
      share ??= this.#newShare(key);
      const perShare =
        key === SHARED ? this.maxInFlight : [0, this.maxControlPerShare, this.maxHeldPerShare][lane]!;
      if (share.lanes[lane]! < perShare && this.#lanes[lane]! < Math.max(perShare, this.maxInFlight))
        return this.#run(share, lane);
      this.#forgetIfIdle(share);
      this.#refused++;
      return REFUSED;
    }
    if (
      (share === undefined || (share.queued === 0 && share.lanes[0]! < this.maxInFlightPerShare)) &&
      this.#lanes[0]! < this.maxInFlight
    )
      return this.#run(share ?? this.#newShare(key), 0);
    const { source, parts } = request;
    const bytes = Math.ceil(byteLengthOf(source) / Math.max(1, parts)) + QUEUED_REQUEST_OVERHEAD_BYTES;
    if (this.#queuedBytes + bytes > this.maxQueuedBytes) {
      this.#refused++;
      return REFUSED;
    }
    share ??= this.#newShare(key);
    const ticket = new Ticket();
    ticket.state = 'queued';
    ticket.share = share;
    ticket.bytes = bytes;
    ticket.queuedAtMs = this.#clock.now();
    ticket.start = start;
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

  /** A running request's handler ended: a work slot goes to the next waiting request, round robin. */
  release(admitted: AdmissionTicket): void {
    const ticket = admitted as Ticket;
    if (ticket.state !== 'running') return;
    ticket.state = 'ended';
    const { share, lane } = ticket;
    share.lanes[lane]!--;
    this.#lanes[lane]!--;
    this.#forgetIfIdle(share);
    if (lane === 0) this.#drain(); // a control or held request frees no work slot
  }

  #run(share: Share, lane: number, ticket = new Ticket()): Ticket {
    ticket.state = 'running';
    ticket.share = share;
    ticket.lane = lane;
    share.lanes[lane]!++;
    this.#lanes[lane]!++;
    return ticket;
  }

  /** Takes a waiting request out (it never runs): the peer's cancel if `cancelled`, else its endpoint closing. */
  withdraw(waiting: AdmissionTicket, cancelled: boolean): boolean {
    const ticket = waiting as Ticket;
    if (ticket.state !== 'queued') return false;
    this.#unlink(ticket);
    ticket.state = 'ended';
    if (cancelled) this.#cancelled++;
    this.#forgetIfIdle(ticket.share);
    return true;
  }

  #newShare(key: unknown): Share {
    const share = new Share();
    share.key = key;
    this.#shares.set(key, share);
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

  /** Idle shares are dropped (rule 8), but the unassigned one: a server would make and drop it per call. */
  #forgetIfIdle(share: Share): void {
    if (share.key !== SHARED && share.size === 0) this.#shares.delete(share.key);
  }

  /** Starts waiting requests while slots are free: one per share in turn, skipping shares at their cap. */
  #drain(): void {
    if (this.#draining) return; // a start that releases at once is picked up by the loop below
    this.#draining = true;
    try {
      let skipped = 0;
      while (this.#lanes[0]! < this.maxInFlight && this.#ring.length > 0 && skipped < this.#ring.length) {
        if (this.#cursor >= this.#ring.length) this.#cursor = 0;
        const share = this.#ring[this.#cursor]!;
        if (share.lanes[0]! >= this.maxInFlightPerShare) {
          this.#cursor++;
          skipped++;
          continue;
        }
        skipped = 0;
        const ticket = share.head!;
        this.#unlink(ticket); // moves the ring past an emptied share by itself
        if (share.inRing) this.#cursor++;
        this.#run(share, 0, ticket);
        const waitedMs = this.#clock.now() - ticket.queuedAtMs;
        if (waitedMs > this.#longestWaitMs) this.#longestWaitMs = waitedMs;
        ticket.start?.();
      }
    } finally {
      this.#draining = false;
    }
  }
}
