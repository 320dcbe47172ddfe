import { DeadlineController } from '../deadline/deadline-controller.js';

/**
 * A task call's idle window: a child of the call's deadline, open while the call waits on the server
 * (progress and status changes touch it) and closed while the caller gathers input, which is not
 * idleness. Reopening starts a fresh window. When it runs out it ends the call with its own reason.
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
