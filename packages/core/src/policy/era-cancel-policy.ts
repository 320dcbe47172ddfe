import { hasStreamableHttp, isLegacy, REVISIONS, type Revision } from '../revisions/revisions.js';

/**
 * The two transports. 2024-11-05's HTTP+SSE is out of scope; its clients reach us over stdio.
 *
 * @example
 * ```ts
 * import { eraCancelPolicy, type TransportKind } from '@mcp-inflight/core';
 * const transport: TransportKind = 'http';
 * eraCancelPolicy('2026-07-28', transport).disconnectIsCancel().value; // true
 * eraCancelPolicy('2025-06-18', transport).disconnectIsCancel().value; // false: only the notification
 * ```
 */
export type TransportKind = 'stdio' | 'http';
/**
 * Which side of the connection we are.
 */
export type Role = 'client' | 'server';

/**
 * How an outbound request is cancelled on the wire.
 *
 * @example
 * ```ts
 * import { type CancelMethod, eraCancelPolicy } from '@mcp-inflight/core';
 * const policy = eraCancelPolicy('2025-11-25', 'http');
 * const how: CancelMethod = policy.outboundCancel('client', { method: 'tools/call', task: true }).value;
 * // how === 'tasks/cancel': a task is cancelled with a request, not the notification
 * if (how === 'none') console.log('stop waiting, send nothing');
 * ```
 */
export type CancelMethod =
  /** send `notifications/cancelled {requestId, reason}` */
  | 'notification'
  /** close that request's response stream; send nothing (2026-07-28 HTTP) */
  | 'close-stream'
  /** send a `tasks/cancel` request (task-augmented requests) */
  | 'tasks/cancel'
  /** this request may not be cancelled at all */
  | 'none';

/**
 * An answer with the rule it rests on (a key of the rules digest, e.g. `CN7`).
 */
export interface PolicyAnswer<T> {
  /** The answer. */
  readonly value: T;
  /** The rule it rests on (a key of the rules digest, e.g. `CN7`). */
  readonly rule: string;
}

/**
 * Facts about the request being cancelled.
 */
export interface OutboundRequest {
  /** The request's method. */
  method: string;
  /** Whether the request is task-augmented (2025-11-25 `params.task`, or a 2026-07-28 task result). */
  task?: boolean;
}

/**
 * What cancellation and progress may do, for one revision on one transport. Each answer cites the rule it
 * implements. Use {@link eraCancelPolicy} to get the shared instance.
 *
 * @example
 * ```ts
 * import { eraCancelPolicy } from '@mcp-inflight/core';
 * const policy = eraCancelPolicy('2026-07-28', 'http');
 * policy.outboundCancel('client', { method: 'tools/call' }).value; // 'close-stream'
 * policy.disconnectIsCancel().value;                                // true
 * eraCancelPolicy('2025-06-18', 'stdio').outboundCancel('client', { method: 'initialize' }).value; // 'none'
 * ```
 */
export class EraCancelPolicy {
  /** The revision the policy answers for. */
  readonly revision: Revision;
  /** The transport the policy answers for. */
  readonly transport: TransportKind;
  readonly #legacy: boolean;

  constructor(revision: Revision, transport: TransportKind) {
    this.revision = revision;
    this.transport = transport;
    this.#legacy = isLegacy(revision);
  }

  /** How `role` cancels a request it issued; `'none'` when it may not. */
  outboundCancel(role: Role, request: OutboundRequest): PolicyAnswer<CancelMethod> {
    if (!this.#legacy && role === 'server') return answer('none', 'L1'); // 2026-07-28 servers issue no requests
    // Never `initialize`, in any revision: under 2026-07-28 it selects legacy semantics [M10], where CN7 holds.
    if (request.method === 'initialize') return answer('none', role === 'client' ? 'CN7' : 'CN4');
    if (request.task && this.#hasTasks) return answer('tasks/cancel', this.#legacy ? 'CN16' : 'T11');
    if (this.#legacy) return answer('notification', this.#legacyCancelRule);
    return this.transport === 'http' ? answer('close-stream', 'CN24') : answer('notification', 'CN25');
  }

  /**
   * Whether `role` may send `notifications/cancelled` that references `referenced` (a request it issued,
   * or for a 2026-07-28 server, a `subscriptions/listen` it is ending). Pass the request itself to say it
   * is task-augmented: tasks are cancelled with `tasks/cancel`, never this notification [CN16 T11].
   */
  maySendCancelled(role: Role, referenced: string | OutboundRequest): PolicyAnswer<boolean> {
    const request = typeof referenced === 'string' ? { method: referenced } : referenced;
    if (this.#legacy) {
      // A client never cancels `initialize`; a server never issued one to reference [CN4].
      if (request.method === 'initialize') return answer(false, role === 'client' ? 'CN7' : 'CN4');
      if (request.task && this.#hasTasks) return answer(false, 'CN16');
      return answer(true, 'CN1');
    }
    if (role === 'server') {
      // Only to tear down a listen stream [CN6]. The schema speaks of stdio [CN21], the cancellation page of
      // every transport [CN3]; a server sends it after the listen response, which a client reads first [L11].
      if (request.method !== 'subscriptions/listen') return answer(false, 'CN6');
      return answer(true, this.transport === 'stdio' ? 'CN21' : 'CN3');
    }
    if (request.method === 'initialize') return answer(false, 'CN7');
    if (request.task) return answer(false, 'T11');
    return this.transport === 'stdio' ? answer(true, 'CN25') : answer(false, 'CN22');
  }

  /** Tasks exist in 2025-11-25 (core) and in 2026-07-28 (the tasks extension). */
  get #hasTasks(): boolean {
    return this.revision === '2025-11-25' || !this.#legacy;
  }

  /**
   * Legacy revisions cancel with the notification on every transport [CN1]; on Streamable HTTP the
   * transport page says so too, because a disconnect is not a cancel there [H14]. (2024-11-05 HTTP+SSE
   * has no such text.)
   */
  get #legacyCancelRule(): string {
    return this.transport === 'http' && hasStreamableHttp(this.revision) ? 'H14' : 'CN1';
  }

  /** Whether a dropped HTTP response stream cancels its request (2026-07-28: yes; legacy: no). */
  disconnectIsCancel(): PolicyAnswer<boolean> {
    if (this.transport === 'stdio') return answer(true, 'S8'); // the one channel is gone: nothing can answer
    if (!this.#legacy) return answer(true, 'CN24');
    // 2024-11-05 HTTP+SSE does not define a disconnect; there, only the notification cancels [CN1].
    return answer(false, hasStreamableHttp(this.revision) ? 'H13' : 'CN1');
  }

  /** Whether `role` may send `notifications/progress` (legacy: either side; 2026-07-28: server only). */
  maySendProgress(role: Role): PolicyAnswer<boolean> {
    if (this.#legacy) return answer(true, 'PG1');
    return answer(role === 'server', 'PG2');
  }
}

function answer<T>(value: T, rule: string): PolicyAnswer<T> {
  return { value, rule };
}

// Keyed by revision, then transport: a lookup builds no string key (one runs per cancel sent).
const INSTANCES = /* @__PURE__ */ new Map<string, { stdio: EraCancelPolicy; http: EraCancelPolicy }>(
  /* @__PURE__ */ REVISIONS.map((revision) => [
    revision,
    { stdio: new EraCancelPolicy(revision, 'stdio'), http: new EraCancelPolicy(revision, 'http') },
  ]),
);

/**
 * The shared {@link EraCancelPolicy} for a revision and transport.
 *
 * @example
 * ```ts
 * import { eraCancelPolicy } from '@mcp-inflight/core';
 * eraCancelPolicy('2025-11-25', 'stdio').maySendProgress('client').value; // true
 * ```
 */
export function eraCancelPolicy(revision: Revision, transport: TransportKind): EraCancelPolicy {
  const pair = INSTANCES.get(revision);
  const policy = transport === 'stdio' ? pair?.stdio : transport === 'http' ? pair?.http : undefined;
  if (!policy) throw new RangeError(`no policy for revision ${revision} on ${transport}`);
  return policy;
}
