/**
 * What a late message was: progress for a token no longer routed, or a response to a finished request.
 *
 * @example
 * ```ts
 * import { absorbLateMessages, type LateKind } from '@mcp-inflight/sdk';
 * declare const client: object;
 * declare const metrics: { increment(name: string): void };
 * absorbLateMessages(client, { onLate: (kind: LateKind) => metrics.increment(`mcp.client.late.${kind}`) });
 * ```
 */
export type LateKind = 'progress' | 'response';

/**
 * Counters and control of a client's late-message filter; see {@link absorbLateMessages}.
 *
 * @example
 * ```ts
 * import { absorbLateMessages, type LateMessageFilter } from '@mcp-inflight/sdk';
 * declare const client: object;
 * const late: LateMessageFilter = absorbLateMessages(client);
 * console.log(`absorbed ${late.lateProgress} late progress, ${late.lateResponses} late responses`);
 * late.dispose(); // back to the SDK's own behaviour
 * ```
 */
export interface LateMessageFilter {
  /** Progress notifications absorbed because their request had ended (cancelled, timed out, answered). */
  readonly lateProgress: number;
  /** Responses absorbed because their request had ended (we cancelled it, then it answered anyway). */
  readonly lateResponses: number;
  /** Puts the client's own `onerror` property back as it is now, with no filter. */
  dispose(): void;
}

/**
 * Options for {@link absorbLateMessages}.
 *
 * @example
 * ```ts
 * import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
 * import { type AbsorbLateOptions, absorbLateMessages } from '@mcp-inflight/sdk';
 * declare const client: Client;
 * const options: AbsorbLateOptions = {
 *   onLate: (kind, error) => console.debug(`late ${kind}: ${error.message}`),
 * };
 * // On a client that has the filter already, this only adds the listener.
 * absorbLateMessages(client, options);
 * ```
 */
export interface AbsorbLateOptions {
  /** Sees each absorbed message (for logs or metrics); the client's `onerror` does not. */
  onLate?: (kind: LateKind, error: Error) => void;
}

// The two texts both SDK majors pass to onerror for stray traffic (v1 protocol.js, v2 _onprogress/_onresponse).
const LATE_PROGRESS = 'Received a progress notification for an unknown token';
const LATE_RESPONSE = 'Received a response for an unknown message ID';

interface OnErrorHolder {
  onerror?: ((error: Error) => void) | undefined;
}

interface Installed {
  filter: LateMessageFilter;
  onLate: Set<(kind: LateKind, error: Error) => void>;
}

const installed = new WeakMap<object, Installed>();

/**
 * Stops an SDK client from raising late traffic through `client.onerror`: progress for an ended request and
 * a response after we cancelled are absorbed and counted, as the spec asks ("SHOULD ignore" [CN12], races
 * "handled gracefully" [CN14]) and as the SDK's own matrix lists as a known failure. Every other error still
 * reaches `onerror`, including one assigned after this call. Idempotent per client;
 * {@link callWithDeadline} installs it for you.
 *
 * @example
 * ```ts
 * import { Client } from '@modelcontextprotocol/sdk/client/index.js';
 * import { absorbLateMessages } from '@mcp-inflight/sdk';
 *
 * const client = new Client({ name: 'host', version: '1.0.0' });
 * const late = absorbLateMessages(client);
 * client.onerror = (error) => console.error(error); // no longer sees "unknown token" noise
 * // later: late.lateProgress, late.lateResponses
 * ```
 */
export function absorbLateMessages(client: object, options: AbsorbLateOptions = {}): LateMessageFilter {
  const existing = installed.get(client);
  if (existing) {
    if (options.onLate) existing.onLate.add(options.onLate);
    return existing.filter;
  }
  const holder = client as OnErrorHolder;
  const onLate = new Set<(kind: LateKind, error: Error) => void>();
  if (options.onLate) onLate.add(options.onLate);
  let userOnError = holder.onerror;
  let lateProgress = 0;
  let lateResponses = 0;
  const filtered = (error: Error): void => {
    const text = typeof error?.message === 'string' ? error.message : '';
    const kind: LateKind | undefined = text.startsWith(LATE_PROGRESS)
      ? 'progress'
      : text.startsWith(LATE_RESPONSE)
        ? 'response'
        : undefined;
    if (kind === undefined) return userOnError?.(error);
    if (kind === 'progress') lateProgress++;
    else lateResponses++;
    for (const listener of onLate) listener(kind, error);
  };
  // An accessor, so that `client.onerror = fn` after this still lands behind the filter.
  Object.defineProperty(client, 'onerror', {
    configurable: true,
    enumerable: true,
    get: () => filtered,
    set: (fn: ((error: Error) => void) | undefined) => {
      userOnError = fn;
    },
  });
  const filter: LateMessageFilter = {
    get lateProgress() {
      return lateProgress;
    },
    get lateResponses() {
      return lateResponses;
    },
    dispose() {
      if (installed.get(client)?.filter !== filter) return;
      installed.delete(client);
      Object.defineProperty(client, 'onerror', {
        configurable: true,
        enumerable: true,
        writable: true,
        value: userOnError,
      });
    },
  };
  installed.set(client, { filter, onLate });
  return filter;
}
