import { type Clock, InflightError, type RequestOptions, systemClock } from '@mcp-inflight/core';
import { outcomeOfError, outcomeOfResult } from './outcome.js';
import type { CallView } from './render.js';

/** Anything that sends MCP requests with core's request options (a stdio or HTTP client endpoint). */
export interface RequestSender {
  request(
    method: string,
    params: Record<string, unknown> | undefined,
    options: RequestOptions,
  ): Promise<unknown>;
}

/** One tool call to make. */
export interface CallSpec {
  tool: string;
  args: Record<string, unknown>;
  /** Shown next to the bar. @default `<tool>#<n>` */
  label?: string;
  /** A scripted user cancel: cancel this call after this many ms, as if the user pressed stop. */
  cancelAfterMs?: number;
}

/** Options for {@link runCalls}. */
export interface RunOptions {
  /** This host's idle limit per call (progress resets it). @default the sender's */
  idleMs?: number;
  /** This host's hard ceiling per call. @default the sender's */
  ceilingMs?: number;
  /** @default systemClock */
  clock?: Clock;
  /** A call's view changed (progress). */
  onUpdate?: (view: CallView) => void;
  /** A call ended; `view.outcome` says why. */
  onEnd?: (view: CallView) => void;
}

/** Calls in flight, with a way to cancel them all (Ctrl-C). */
export interface RunningCalls {
  readonly views: CallView[];
  /** Settles when every call has ended (never rejects: each view carries its outcome). */
  readonly done: Promise<CallView[]>;
  /** Cancels every call still running, as the user; returns how many there were. */
  cancelAll(why: string): number;
}

/**
 * Starts every call at once and tracks each in a {@link CallView}: progress as it arrives (asked for on
 * every call; the endpoint passes on only strictly increasing values), and an outcome that says why the
 * call ended. A user's cancel is the call's own `AbortSignal`, so the endpoint cancels on the wire the way
 * the revision and transport require (notification, or closing the request's stream) [CN25 CN24].
 *
 * @example
 * ```ts
 * import { runCalls } from './runner.js';
 * declare const client: import('./runner.js').RequestSender;
 * const running = runCalls(client, [{ tool: 'work', args: { steps: 5, intervalMs: 100 } }]);
 * process.once('SIGINT', () => running.cancelAll('Ctrl-C'));
 * const [view] = await running.done;
 * console.log(view?.outcome?.kind);
 * ```
 */
export function runCalls(sender: RequestSender, specs: CallSpec[], options: RunOptions = {}): RunningCalls {
  const clock = options.clock ?? systemClock;
  const controllers: AbortController[] = [];
  const views: CallView[] = specs.map((spec, i) => ({
    label: spec.label ?? `${spec.tool}#${i + 1}`,
    tool: spec.tool,
    updates: 0,
    startedAt: clock.now(),
  }));
  const done = Promise.all(
    specs.map((spec, i) => {
      const view = views[i] as CallView;
      const controller = new AbortController();
      controllers.push(controller);
      const timer =
        spec.cancelAfterMs === undefined
          ? undefined
          : clock.setTimer(
              () => controller.abort(InflightError.cancelled('the user pressed stop')),
              spec.cancelAfterMs,
            );
      const request: RequestOptions = {
        signal: controller.signal,
        onprogress: (p) => {
          view.progress = p.progress;
          if (p.total !== undefined) view.total = p.total;
          if (p.message !== undefined) view.message = p.message;
          view.updates++;
          options.onUpdate?.(view);
        },
      };
      if (options.idleMs !== undefined) request.idleMs = options.idleMs;
      if (options.ceilingMs !== undefined) request.ceilingMs = options.ceilingMs;
      return sender
        .request('tools/call', { name: spec.tool, arguments: spec.args }, request)
        .then(outcomeOfResult, outcomeOfError)
        .then((outcome) => {
          timer?.clear();
          view.endedAt = clock.now();
          view.outcome = outcome;
          options.onEnd?.(view);
          return view;
        });
    }),
  );
  return {
    views,
    done,
    cancelAll(why) {
      let n = 0;
      for (const [i, controller] of controllers.entries()) {
        if (views[i]?.outcome || controller.signal.aborted) continue;
        controller.abort(InflightError.cancelled(why));
        n++;
      }
      return n;
    },
  };
}
