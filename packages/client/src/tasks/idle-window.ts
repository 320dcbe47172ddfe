import { DeadlineController } from '@mcp-inflight/core';

/**
 * A task call's idle window: a child of the call's deadline, open while the call waits on the server
 * (progress and status changes touch it) and closed while the caller gathers input, which is not
 * idleness. Reopening starts a fresh window. When it runs out it ends the call with its own reason.
 *
 * @example
 * ```ts
 * import { DeadlineController } from '@mcp-inflight/core';
 * import { IdleWindow } from '@mcp-inflight/client/tasks';
 * const call = new DeadlineController({ idleMs: 60_000, ceilingMs: 600_000 });
 * const idle = new IdleWindow(call, 5_000);
 * idle.open(); // waiting on the server: progress touches it
 * idle.touch();
 * idle.close(); // gathering input from the user: not idleness
 * ```
 */
export class IdleWindow {
  readonly #call: DeadlineController;
  readonly #idleMs: number;
  #current: DeadlineController | undefined;

  constructor(call: DeadlineController, idleMs: number) {
    this.#call = call;
    this.#idleMs = idleMs;
  }

  /** The open window (opened now if closed): the parent of a request whose progress should touch it. */
  open(): DeadlineController {
    this.#current ??= new DeadlineController({
      idleMs: this.#idleMs,
      clock: this.#call.clock,
      parent: this.#call,
      onAbort: (reason) => this.#call.cancel(reason),
    });
    return this.#current;
  }

  /** Activity: the window starts again (nothing while closed). */
  touch(): void {
    this.#current?.touch();
  }

  /** Stops the window without ending the call; `open()` starts a new one. */
  close(): void {
    this.#current?.dispose();
    this.#current = undefined;
  }
}
