import {
  checkInputRequired,
  type InputMethod,
  type InputRequests,
  type InputRequiredResult,
  isInputRequired,
} from '@mcp-inflight/client/input';
import { IdleWindow } from '@mcp-inflight/client/tasks';
import {
  type DeadlineController,
  type Endpoint,
  type InflightError,
  JsonRpcError,
  JsonRpcErrorCode,
  type RequestContext,
  type Revision,
  type TimerHandle,
} from '@mcp-inflight/core';
import { isLegacy } from '@mcp-inflight/core/adapter';
import { clientSupports, inputRequired } from '@mcp-inflight/server/input';

/** One host request driving an upstream call: where its progress goes, who may be asked for input. */
export interface Round {
  readonly endpoint: Endpoint;
  readonly ctx: RequestContext;
  readonly host: string;
}

interface Ask {
  readonly key: string;
  readonly method: string;
  readonly params: Record<string, unknown> | undefined;
  readonly resolve: (result: unknown) => void;
  readonly reject: (error: unknown) => void;
}

/** Sends one request upstream (the call's first, or a 2026-07-28 upstream's retry with answers). */
export type UpstreamSend = (params: Record<string, unknown> | undefined) => Promise<unknown>;

/**
 * The table a flow belongs to (the input broker's parked calls), told what the flow cannot do alone.
 * Callbacks, so the flow knows nothing of the table.
 */
export interface FlowOwner {
  /** Parks the flow while its host is asked; resolves with the signed state that resumes it. */
  park(flow: InputFlow): Promise<string>;
  /** The flow's upstream call is over: nothing of it may stay in the table. */
  ended(flow: InputFlow): void;
}

/** The most rounds the proxy drives against a 2026-07-28 upstream for a legacy host. */
const MAX_UPSTREAM_ROUNDS = 8;

/**
 * One relayed upstream call that may need input on the way, across however many host requests it takes.
 * Its deadline (`call`) has the proxy's ceiling from the host's first request; each host round has an
 * idle window of its own (client's `IdleWindow`), which does not run while the call is parked waiting for
 * the host. Made, then started: {@link InputFlow.start} sends the upstream call once the flow exists, so
 * the send's callbacks may use it.
 */
export class InputFlow {
  readonly call: DeadlineController;
  readonly principal: string;
  /** Its first request's client beyond the host label (a bearer token), bound into its requestState. */
  client: string | undefined;
  readonly method: string;
  readonly params: Record<string, unknown> | undefined;
  /** Requests from the upstream not yet answered, in arrival order. */
  readonly asks: Ask[] = [];
  round: Round | undefined;
  parkedId: string | undefined;
  timer: TimerHandle | undefined;
  done = false;
  readonly #owner: FlowOwner;
  /** The round's idle window: open while a host round runs, closed while parked or asking a person. */
  readonly #idle: IdleWindow;
  #wake: (() => void) | undefined;
  /** The upstream call itself (its result or error); `#upstream` is the same, settled into `#settled`. */
  #raw: Promise<unknown> = NOT_STARTED;
  #upstream: Promise<unknown> = NOT_STARTED;
  #settled: { ok: true; value: unknown } | { ok: false; error: unknown } | undefined;
  #nextKey = 0;
  /** The first host request, whose signal is the call's parent. */
  readonly #first: RequestContext;

  constructor(owner: FlowOwner, call: DeadlineController, first: Round, idleMs: number) {
    this.#owner = owner;
    this.call = call;
    this.#first = first.ctx;
    this.principal = first.host;
    this.method = first.ctx.method;
    this.params = first.ctx.params;
    this.#idle = new IdleWindow(call, idleMs);
  }

  /**
   * Sends the upstream call (once): a legacy upstream never sees retry fields; a 2026-07-28 one gets its
   * own back unchanged, and its `input_required` answers are driven here for a legacy host.
   */
  start(upstreamRevision: Revision | undefined, send: UpstreamSend): this {
    const legacyUpstream = upstreamRevision === undefined || isLegacy(upstreamRevision);
    this.#raw = legacyUpstream
      ? send(withoutRetry(this.#first.params))
      : this.#driveModern(send, this.#first.params);
    this.#upstream = this.#raw.then(
      (value) => this.#settle({ ok: true, value }),
      (error: unknown) => this.#settle({ ok: false, error }),
    );
    return this;
  }

  /** Accepted upstream progress: the round's idle window starts again. */
  touch(): void {
    this.#idle.touch();
  }

  /**
   * Runs one host round: resolves with the upstream's result, or with an `input_required` result for a
   * 2026-07-28 host when the upstream asked for input (the call is then parked until the host retries).
   */
  async drive(round: Round): Promise<unknown> {
    this.#startRound(round);
    try {
      // A legacy host is asked inline (as requests of its own), so its round is simply the upstream call;
      // the settle reaction was registered first, so the flow is settled when this await resumes.
      if (isLegacy(round.ctx.revision) && !this.#settled) return await this.#raw;
      for (;;) {
        const settled = this.#settled;
        if (settled) {
          if (settled.ok) return settled.value;
          throw settled.error;
        }
        if (this.asks.length > 0 && !isLegacy(round.ctx.revision)) return await this.#park();
        await new Promise<void>((resolve) => {
          this.#wake = resolve;
        });
      }
    } finally {
      this.#endRound();
    }
  }

  /** A request the upstream sent for this call. */
  ask(method: string, params: Record<string, unknown> | undefined): Promise<unknown> {
    const round = this.round;
    if (round && isLegacy(round.ctx.revision)) return this.#askLegacyHost(round, method, params);
    // A 2026-07-28 host may only be asked what it declared it can answer [MR8].
    const meta = (round?.ctx ?? this.#first).meta;
    if (clientSupports(meta, method as InputMethod) === false)
      return Promise.reject(
        new JsonRpcError(JsonRpcErrorCode.InternalError, `the host did not declare support for ${method}`),
      );
    return new Promise((resolve, reject) => {
      this.asks.push({ key: `input-${++this.#nextKey}`, method, params, resolve, reject });
      this.#wake?.();
    });
  }

  /** Answers the asks the host's retry answered (the others stay, to be asked again). */
  answer(responses: Record<string, Record<string, unknown>> | undefined): void {
    for (const ask of [...this.asks]) {
      const response = responses?.[ask.key];
      if (response === undefined) continue;
      this.asks.splice(this.asks.indexOf(ask), 1);
      ask.resolve(response);
    }
  }

  /** Ends the call: its pending asks fail with `why`, and the upstream call is cancelled with `cause`. */
  abandon(why: JsonRpcError, cause: InflightError): void {
    for (const ask of this.asks.splice(0)) ask.reject(why);
    this.call.cancel(cause);
  }

  #startRound(round: Round): void {
    this.round = round;
    // The host's cancel, its stream closing and shutdown end the call (and cancel it upstream).
    // The first round's signal is already the call's parent; a retry's is linked here.
    if (round.ctx !== this.#first) {
      const signal = round.ctx.signal;
      if (signal.aborted) this.call.cancel(signal.reason);
      else signal.addEventListener('abort', this.#onRoundAbort, { once: true });
    }
    this.#resumeIdle();
  }

  #endRound(): void {
    if (this.round && this.round.ctx !== this.#first)
      this.round.ctx.signal.removeEventListener('abort', this.#onRoundAbort);
    this.round = undefined;
    this.#wake = undefined;
    this.#pauseIdle();
  }

  #onRoundAbort = (): void => {
    this.call.cancel(this.round?.ctx.signal.reason);
  };

  #resumeIdle(): void {
    // A child of the call: when the call ends (a cancel, the ceiling) it is released at once, with it.
    if (!this.done) this.#idle.open();
  }

  #pauseIdle(): void {
    this.#idle.close();
  }

  async #park(): Promise<InputRequiredResult> {
    // From here the host is the one to act: no idle window until it retries (sealing takes a moment).
    this.#pauseIdle();
    const inputRequests: InputRequests = {};
    for (const ask of this.asks)
      inputRequests[ask.key] = { method: ask.method as 'elicitation/create', params: ask.params };
    const state = await this.#owner.park(this);
    return inputRequired({ inputRequests, requestState: state });
  }

  /** A legacy host is asked with a request of its own revision, on its call's stream; idle pauses meanwhile. */
  async #askLegacyHost(round: Round, method: string, params: Record<string, unknown> | undefined) {
    this.#pauseIdle();
    try {
      return await round.endpoint.request(method, params, {
        related: round.ctx.id,
        parent: this.call,
        revision: round.ctx.revision,
        // A person may take minutes to answer, with no progress: only the call's ceiling bounds it.
        idleMs: Number.POSITIVE_INFINITY,
        ceilingMs: Number.POSITIVE_INFINITY,
      });
    } finally {
      if (this.round === round) this.#resumeIdle();
    }
  }

  /**
   * A 2026-07-28 upstream answers `input_required` itself: a 2026-07-28 host gets it as is (the host's
   * retry is relayed unchanged); a legacy host is asked with real requests and the proxy retries upstream.
   */
  async #driveModern(send: UpstreamSend, params: Record<string, unknown> | undefined): Promise<unknown> {
    let retry = params;
    for (let n = 1; ; n++) {
      const result = await send(retry);
      const round = this.round;
      if (!isInputRequired(result) || !round || !isLegacy(round.ctx.revision)) return result;
      const interim = checkInputRequired(this.method, result);
      if (n >= MAX_UPSTREAM_ROUNDS)
        throw new JsonRpcError(JsonRpcErrorCode.InternalError, 'the upstream kept asking for input');
      const inputResponses: Record<string, unknown> = {};
      for (const [key, request] of Object.entries(interim.inputRequests ?? {}))
        inputResponses[key] = await this.#askLegacyHost(round, request.method, request.params);
      retry = { ...params, ...(interim.inputRequests ? { inputResponses } : {}) };
      if (interim.requestState !== undefined) retry.requestState = interim.requestState;
    }
  }

  #settle(outcome: { ok: true; value: unknown } | { ok: false; error: unknown }): void {
    this.#settled = outcome;
    this.done = true;
    // The upstream call is over: nothing more will be asked; asks it left unanswered are moot.
    for (const ask of this.asks.splice(0))
      ask.reject(new JsonRpcError(JsonRpcErrorCode.InternalError, 'the call ended'));
    this.#owner.ended(this);
    this.#pauseIdle();
    this.call.dispose();
    this.#wake?.();
  }

  /** Settles once the upstream call has (for tests and shutdown). */
  get settled(): Promise<unknown> {
    return this.#upstream;
  }
}

/** What a flow's upstream call is before {@link InputFlow.start}: never settles, never rejects. */
const NOT_STARTED: Promise<unknown> = new Promise<unknown>(() => {});

/** The params without a retry's own fields, so they never reach a legacy upstream. */
function withoutRetry(params: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (params === undefined || (!('inputResponses' in params) && !('requestState' in params))) return params;
  const { inputResponses: _i, requestState: _r, ...rest } = params;
  return rest;
}
