import type { CancelCode, Endpoint, ProgressToken, RequestId } from '@mcp-inflight/core';
import type { Direction } from '@mcp-inflight/core/adapter';

/**
 * What one of the proxy's endpoints reported on its typed event stream (`endpoint.events`), as a log
 * event. `leg` names the endpoint: `upstream #N` for the upstream connection, or the host's label
 * (`stdio`, `http session <id>`, `http request`). Progress events are not logged (they would flood the
 * log); the call events count them.
 */
export type EndpointLogEvent = { type: 'endpoint'; leg: string } & (
  | { event: 'cancel-sent'; id: RequestId; method: string; cause: CancelCode; how: string; reason: string }
  | { event: 'cancel-received'; id: RequestId; method: string; reason?: string }
  | {
      event: 'deadline-fired';
      direction: Direction;
      id: RequestId;
      method: string;
      cause: CancelCode;
      message: string;
    }
  | { event: 'late'; kind: 'response' | 'result' | 'progress'; key: RequestId | ProgressToken }
  | { event: 'error'; context: string; message: string }
);

/**
 * Logs the cancels, deadlines, late messages and errors of one endpoint. Returns the function that stops
 * listening. Subscribing makes the endpoint's emitter; an endpoint nobody logs emits nothing.
 *
 * @example
 * ```ts
 * import type { Endpoint } from '@mcp-inflight/core';
 * import { logEndpointEvents } from './endpoint-log.js';
 * declare const upstream: Endpoint;
 * const stop = logEndpointEvents(upstream, 'upstream #1', (event) => console.error(JSON.stringify(event)));
 * stop();
 * ```
 */
export function logEndpointEvents(
  endpoint: Endpoint,
  leg: string,
  log: (event: EndpointLogEvent) => void,
): () => void {
  const events = endpoint.events;
  const base = { type: 'endpoint', leg } as const;
  const onCancelSent = (
    id: RequestId,
    method: string,
    cause: { code: CancelCode; wireReason(): string },
    how: string,
  ) => log({ ...base, event: 'cancel-sent', id, method, cause: cause.code, how, reason: cause.wireReason() });
  const onCancelReceived = (id: RequestId, method: string, reason: string | undefined) =>
    log(
      reason === undefined
        ? { ...base, event: 'cancel-received', id, method }
        : { ...base, event: 'cancel-received', id, method, reason },
    );
  const onDeadline = (
    direction: Direction,
    id: RequestId,
    method: string,
    cause: { code: CancelCode; message: string },
  ) =>
    log({
      ...base,
      event: 'deadline-fired',
      direction,
      id,
      method,
      cause: cause.code,
      message: cause.message,
    });
  const onLate = (kind: 'response' | 'result' | 'progress', key: RequestId | ProgressToken) =>
    log({ ...base, event: 'late', kind, key });
  const onError = (error: unknown, context: string) =>
    log({
      ...base,
      event: 'error',
      context,
      message: error instanceof Error ? error.message : String(error),
    });
  events.on('cancel-sent', onCancelSent);
  events.on('cancel-received', onCancelReceived);
  events.on('deadline-fired', onDeadline);
  events.on('late', onLate);
  events.on('error', onError);
  return () => {
    events.off('cancel-sent', onCancelSent);
    events.off('cancel-received', onCancelReceived);
    events.off('deadline-fired', onDeadline);
    events.off('late', onLate);
    events.off('error', onError);
  };
}
