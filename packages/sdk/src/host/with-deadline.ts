import { type DeadlineController, InflightError } from '@mcp-inflight/core';
import { LATEST_LEGACY_REVISION } from '@mcp-inflight/core/adapter';
import { type RelayOptions, sharedRelay } from '../relay-for.js';
import type { Progress, SdkRequestOptions } from '../shapes.js';
import { runRequestLifecycle } from './request-lifecycle.js';

/**
 * Options for {@link withDeadline} and {@link callWithDeadline}.
 *
 * @example
 * ```ts
 * import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
 * import { DeadlineController } from '@mcp-inflight/core';
 * import { type DeadlineCallOptions, withDeadline } from '@mcp-inflight/sdk';
 * declare const client: Client;
 * const turn = new DeadlineController({ ceilingMs: 120_000 }); // the whole user turn
 * const options: DeadlineCallOptions = {
 *   deadline: turn, // no call outlives the turn, and its progress keeps the turn alive
 *   idleMs: 15_000,
 *   onprogress: ({ progress, total }) => console.log(`${progress}/${total ?? '?'}`),
 * };
 * const search = { name: 'search', arguments: { q: 'mcp' } };
 * const found = await withDeadline((sdk) => client.callTool(search, undefined, sdk), options);
 * turn.dispose();
 * ```
 */
export interface DeadlineCallOptions extends RelayOptions {
  /** Ends the call when this long passes with no accepted progress. `Infinity` turns it off. @default 60_000 */
  idleMs?: number;
  /** Ends the call this long after it started, whatever progress says [TO8]. `Infinity` turns it off. @default 600_000 */
  ceilingMs?: number;
  /** The caller's cancel: aborting it ends the call as CANCELLED (never as a timeout), with its reason kept. */
  signal?: AbortSignal;
  /** An enclosing deadline: this call never outlives it, and its progress counts as activity there too. */
  deadline?: DeadlineController;
  /** Receives progress: finite, strictly increasing values only [PG6], nothing after the call ends [PG12]. */
  onprogress?: (progress: Progress) => void;
}

/**
 * Runs one SDK request under a real deadline. `run` gets the SDK options to spread into any SDK call
 * (`callTool`, `request`, `readResource`…): a signal our deadline aborts, an `onprogress` so that progress
 * is always asked for and resets the idle window (SDK #2076), and an SDK timeout so large that ours decides.
 * When a limit fires or the caller aborts, the SDK cancels on the wire the way the era wants (a
 * `notifications/cancelled` whose reason names the limit [TO4a], or on 2026-07-28 HTTP a closed stream
 * [CN24]) and the call rejects at once with an {@link InflightError}: CANCELLED, IDLE_TIMEOUT or CEILING; a
 * dropped connection rejects as DISCONNECTED. Other errors (tool errors, protocol errors) pass unchanged.
 *
 * @example
 * ```ts
 * import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
 * import { withDeadline } from '@mcp-inflight/sdk';
 *
 * async function read(client: Client, uri: string) {
 *   return withDeadline((sdk) => client.readResource({ uri }, sdk), { idleMs: 5_000, ceilingMs: 30_000 });
 * }
 * ```
 */
export function withDeadline<T>(
  run: (sdk: SdkRequestOptions) => PromiseLike<T>,
  options: DeadlineCallOptions = {},
): Promise<T> {
  const onprogress = options.onprogress;
  const openRoute = () =>
    sharedRelay(options).open({
      token: 0, // local delivery: the SDK already stripped the wire token
      revision: LATEST_LEGACY_REVISION,
      minIntervalMs: 0, // a local callback wants every accepted value; the route still filters them [PG6]
      send: onprogress ? (params) => onprogress(progressOf(params)) : () => {},
    });
  return runRequestLifecycle(run, options, {
    openRoute,
    signal: options.signal,
    fromAbort: (reason) => InflightError.from(reason),
    closedAs: 'DISCONNECTED',
  });
}

function progressOf(params: Progress): Progress {
  const progress: Progress = { progress: params.progress };
  if (params.total !== undefined) progress.total = params.total;
  if (params.message !== undefined) progress.message = params.message;
  return progress;
}
