import type { DeadlineController } from './deadline-controller.js';

function noop(): void {}

/**
 * Links a caller's signal to a deadline that already has a parent deadline (a controller takes one parent):
 * the signal's abort cancels the deadline with the signal's reason. Returns the unlink, to call when the
 * deadline settles so the signal keeps no listener for it.
 */
export function linkSignal(signal: AbortSignal, deadline: DeadlineController): () => void {
  if (signal.aborted) {
    deadline.cancel(signal.reason);
    return noop;
  }
  const onAbort = (): void => deadline.cancel(signal.reason);
  signal.addEventListener('abort', onAbort, { once: true });
  return () => signal.removeEventListener('abort', onAbort);
}
