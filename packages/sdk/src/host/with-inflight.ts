import { type ClientLike, isV2Client, type SdkRequestOptions } from '../shapes.js';
import { absorbLateMessages } from './late-messages.js';
import { keepProgressOrder } from './progress-order.js';
import { type DeadlineCallOptions, withDeadline } from './with-deadline.js';

/**
 * The defaults {@link withInflight} gives every call of one client. A call overrides them in the SDK
 * options it already passes: `timeout` is its idle window (progress always resets it), `maxTotalTimeout`
 * its ceiling, `signal` its cancel, `onprogress` its progress callback.
 *
 * @example
 * ```ts
 * import type { InflightClientDefaults } from '@mcp-inflight/sdk';
 * const defaults: InflightClientDefaults = { idleMs: 15_000, ceilingMs: 300_000 };
 * ```
 */
export interface InflightClientDefaults
  extends Omit<DeadlineCallOptions, 'signal' | 'onprogress' | 'deadline'> {
  /** Install `absorbLateMessages` on the client, so late traffic stays off `onerror`. @default true */
  absorbLate?: boolean;
}

/** Marks the SDK options we made, so `callTool`'s own inner `request` (SDK v1) is not wrapped twice. */
const OURS = Symbol('mcp-inflight: under a deadline already');
const WRAPPED = Symbol.for('mcp-inflight: withInflight defaults');

type Method = (...args: unknown[]) => Promise<unknown>;
type PerCall = Partial<SdkRequestOptions> & {
  maxTotalTimeout?: number;
  [OURS]?: true;
  [key: string]: unknown;
};

/**
 * Gives an official SDK `Client` (v1 or v2) our request lifecycle on every `callTool` and `request` it
 * makes, without changing a call site: an idle window that progress resets (progress is always asked for),
 * a ceiling on its own timer, a caller's abort as `CANCELLED` (never a timeout), and the cancel on the wire
 * the way the era wants, as {@link withDeadline} does for one call. Limits reject with an `InflightError`.
 * Call it once, after or before `connect` (`initialize` is left alone: it is never cancelled [CN7]);
 * calling it again replaces the defaults. Returns the same client.
 *
 * @example
 * ```ts
 * import { Client } from '@modelcontextprotocol/sdk/client/index.js';
 * import { withInflight } from '@mcp-inflight/sdk';
 * const client = withInflight(new Client({ name: 'host', version: '1.0.0' }), { idleMs: 10_000 });
 * // Unchanged call sites; `timeout` is this call's idle window, `maxTotalTimeout` its ceiling.
 * const stop = new AbortController();
 * const result = await client.callTool({ name: 'work', arguments: { steps: 5 } }, undefined, {
 *   signal: stop.signal,
 *   maxTotalTimeout: 60_000,
 * });
 * ```
 */
export function withInflight<C extends ClientLike>(client: C, defaults: InflightClientDefaults = {}): C {
  const target = client as unknown as Record<PropertyKey, unknown>;
  const held = target[WRAPPED] as { defaults: InflightClientDefaults } | undefined;
  if (held) {
    held.defaults = defaults;
    return client;
  }
  const state = { defaults };
  target[WRAPPED] = state;
  if (defaults.absorbLate !== false) absorbLateMessages(client);
  keepProgressOrder(client);
  const v2 = isV2Client(client);
  const wrap = (original: Method, optionsAt: (args: unknown[]) => number): Method =>
    function wrapped(...args) {
      const at = optionsAt(args);
      const given = args[at] as PerCall | undefined;
      const method = (args[0] as { method?: unknown } | undefined)?.method;
      if (given?.[OURS] || method === 'initialize') return original.apply(client, args);
      const {
        signal,
        onprogress,
        timeout,
        maxTotalTimeout,
        resetTimeoutOnProgress: _r,
        ...rest
      } = given ?? {};
      const options: DeadlineCallOptions = { ...state.defaults };
      if (timeout !== undefined) options.idleMs = timeout;
      if (maxTotalTimeout !== undefined) options.ceilingMs = maxTotalTimeout;
      if (signal) options.signal = signal;
      if (onprogress) options.onprogress = onprogress;
      return withDeadline((sdk) => {
        const call = [...args];
        call[at] = { ...rest, ...sdk, [OURS]: true };
        return original.apply(client, call);
      }, options);
    };
  const request = client.request as unknown as Method;
  // v1: request(request, schema, options); v2: request(request, options) or (request, schema, options).
  target.request = wrap(request, (args) => (!v2 || isSchema(args[1]) ? 2 : 1));
  const callTool = client.callTool as unknown as Method | undefined;
  // v1: callTool(params, schema?, options); v2: callTool(params, options).
  if (typeof callTool === 'function') target.callTool = wrap(callTool, () => (v2 ? 1 : 2));
  return client;
}

function isSchema(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  return '~standard' in value || 'safeParse' in value || 'parse' in value;
}
