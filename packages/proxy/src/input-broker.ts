import {
  type Clock,
  type DeadlineController,
  type Endpoint,
  InflightError,
  JsonRpcError,
  JsonRpcErrorCode,
  type RequestContext,
} from '@mcp-inflight/core';
import { bindingOf, inputRetryOf, RequestStateSigner } from '@mcp-inflight/server/input';
import { type FlowOwner, InputFlow, type Round } from './input-flow.js';

/** The server-to-client requests a legacy upstream may send during a call that the proxy carries to a host. */
export const ASKED_METHODS = ['elicitation/create', 'sampling/createMessage'] as const;

/** Options for {@link InputBroker}. */
export interface InputBrokerOptions {
  /**
   * How long an upstream call waits, parked, for a 2026-07-28 host to retry with its answers; then its
   * pending requests fail and the call is cancelled upstream. Also the lifetime of the requestState.
   * @default 300_000
   */
  holdMs?: number;
  /** The most calls parked at once; an ask beyond it is refused (the upstream gets an error). @default 1_000 */
  maxParked?: number;
  /** @default the system clock */
  clock: Clock;
  /** Signs the requestState the proxy hands out. @default a signer with a key made for this process */
  signer?: RequestStateSigner;
  /**
   * Who the request being served comes from beyond its host label (the proxy: its bearer token), bound
   * into the requestState, so another principal's retry gets -32602 as a forged one does. Never logged.
   * @default none
   */
  principal?: () => string | undefined;
}

/**
 * Carries server-to-client requests from a legacy upstream to the host whose call they belong to: a legacy
 * host gets them as requests of its own revision, a 2026-07-28 host as an `input_required` result whose
 * retry answers them (multi round-trip requests [MR1]). The `requestState` handed out is signed, bound to
 * the host, the request and the parked call, single-use and short-lived [MR4b MR5]; parked calls live in
 * a bounded table and expire. The broker owns that table; which calls are in flight is the call relay's
 * table, read through `liveFlows` (the flows of the calls in flight, parked ones aside).
 */
export class InputBroker implements FlowOwner {
  /** How long a parked call waits for its host's retry (ms). */
  readonly holdMs: number;
  /** Parked calls held at most. */
  readonly maxParked: number;
  /** Signs and checks the `requestState` handed to 2026-07-28 hosts. */
  readonly signer: RequestStateSigner;
  readonly #clock: Clock;
  readonly #principal: () => string | undefined;
  /** The flows of the relayed calls in flight now (the call relay's table; a parked flow is in none). */
  readonly #liveFlows: () => Iterable<InputFlow>;
  readonly #parked = new Map<string, InputFlow>();
  #nextId = 0;
  /** Asks refused: no call to attribute them to, or the parked table was full. */
  refused = 0;
  /** Parked calls that expired with no retry. */
  expired = 0;

  constructor(options: InputBrokerOptions, liveFlows: () => Iterable<InputFlow>) {
    this.#liveFlows = liveFlows;
    this.holdMs = options.holdMs ?? 300_000;
    this.maxParked = options.maxParked ?? 1_000;
    this.#clock = options.clock;
    this.#principal = options.principal ?? (() => undefined);
    this.signer = options.signer ?? new RequestStateSigner({ ttlMs: this.holdMs });
  }

  /** Calls parked now, waiting for their host's retry. */
  get parked(): number {
    return this.#parked.size;
  }

  /** Upstream calls not over that requests could belong to: those of calls in flight, and the parked. */
  get live(): number {
    let live = this.#parked.size;
    for (const flow of this.#liveFlows()) if (!flow.done && flow.parkedId === undefined) live++;
    return live;
  }

  /** Serves the upstream's server-to-client requests on its client endpoint. */
  serveUpstream(upstream: Endpoint): void {
    for (const method of ASKED_METHODS)
      upstream.setRequestHandler(method, (params) => this.#onAsk(method, params));
  }

  /** A new relayed call's flow, owned by this broker; the caller starts it (`flow.start`). */
  open(call: DeadlineController, first: Round, idleMs: number): InputFlow {
    const flow = new InputFlow(this, call, first, idleMs);
    flow.client = this.#principal();
    return flow;
  }

  /**
   * The parked call a host's retry resumes. Its `requestState` must be one this proxy issued, intact, for
   * this host and this request, live, and not used before; else -32602 [MR4b].
   */
  async claim(host: string, ctx: RequestContext): Promise<InputFlow> {
    const { inputResponses, requestState } = inputRetryOf(ctx.params);
    const { p } = await this.signer.open<{ p: string }>(
      requestState,
      bindingOf(ctx.method, ctx.params, principalOf(host, this.#principal())),
    );
    const flow = this.#parked.get(p);
    if (!flow || flow.done)
      throw new JsonRpcError(
        JsonRpcErrorCode.InvalidParams,
        'Invalid or expired requestState (already used or expired)',
        {
          reason: 'invalid_request_state',
        },
      );
    this.#unpark(flow);
    flow.answer(inputResponses);
    return flow;
  }

  /** Parks a flow whose host is being asked; returns the signed state that resumes it. */
  async park(flow: InputFlow): Promise<string> {
    if (this.#parked.size >= this.maxParked) {
      this.refused++;
      flow.abandon(
        new JsonRpcError(JsonRpcErrorCode.InternalError, 'the proxy has too many calls waiting for input'),
        new InflightError('CANCELLED', 'the proxy has too many calls waiting for input'),
      );
      throw new JsonRpcError(JsonRpcErrorCode.Overloaded, 'too many calls waiting for input; retry later');
    }
    const id = `${++this.#nextId}.${Math.random().toString(36).slice(2, 10)}`;
    flow.parkedId = id;
    this.#parked.set(id, flow);
    flow.timer = this.#clock.setTimer(() => this.#expire(flow), this.holdMs);
    return this.signer.seal(
      { p: id },
      bindingOf(flow.method, flow.params, principalOf(flow.principal, flow.client)),
    );
  }

  /** A flow whose upstream call is over. */
  ended(flow: InputFlow): void {
    this.#unpark(flow);
  }

  /** Cancels every parked call (they have no host request to answer). */
  shutdown(cause: InflightError): void {
    for (const flow of [...this.#parked.values()])
      flow.abandon(new JsonRpcError(JsonRpcErrorCode.InternalError, cause.message), cause);
  }

  #unpark(flow: InputFlow): void {
    flow.timer?.clear();
    flow.timer = undefined;
    if (flow.parkedId !== undefined) this.#parked.delete(flow.parkedId);
    flow.parkedId = undefined;
  }

  #expire(flow: InputFlow): void {
    this.expired++;
    this.#unpark(flow);
    const why = `no retry from the host within ${this.holdMs} ms`;
    flow.abandon(new JsonRpcError(JsonRpcErrorCode.InternalError, why), InflightError.idle(this.holdMs));
  }

  /**
   * Legacy stdio carries nothing that ties a server's request to a call, so it goes to the one call in
   * flight that is not already waiting for an answer; with none or several, it is refused.
   */
  #onAsk(method: string, params: Record<string, unknown> | undefined): Promise<unknown> {
    let only: InputFlow | undefined;
    let candidates = 0;
    for (const flow of this.#liveFlows())
      if (!flow.done && flow.asks.length === 0 && candidates++ === 0) only = flow;
    if (candidates !== 1 || !only) {
      this.refused++;
      const why =
        candidates === 0
          ? 'no call in flight to ask for'
          : 'several calls in flight: cannot tell which one asks';
      return Promise.reject(
        new JsonRpcError(JsonRpcErrorCode.InternalError, `the proxy cannot relay ${method}: ${why}`),
      );
    }
    return only.ask(method, params);
  }
}

/** The principal a requestState is bound to: the host's label, and its client when there is one. */
function principalOf(host: string, client: string | undefined): string {
  return client === undefined ? host : `${host}\n${client}`;
}
