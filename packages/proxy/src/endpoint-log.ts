import type { CancelCode, Endpoint, ProgressToken, RequestId } from '@mcp-inflight/core';
import type { Direction } from '@mcp-inflight/core/adapter';

/**
 * What one of the proxy's endpoints reported on its typed event stream (`endpoint.events`), as a log
 * event. `leg` names the endpoint: `upstream #N` for the upstream connection, or the host's label
 * (`stdio`, `http session <id>`, `http request`). Progress events are not logged (they would flood the
 * log); the call events count them.
 */
export type EndpointLogEvent = {
  /** Always `endpoint`. */
  type: 'endpoint';
  /** Which endpoint: `upstream #N` or the host's label. */
  leg: string;
} & (
  | {
      /** This endpoint cancelled one of its requests on the wire. */
      event: 'cancel-sent';
      /** The request's id on this leg. */
      id: RequestId;
      /** The request's method. */
      method: string;
      /** Why. */
      cause: CancelCode;
      /** `notification` or `close-stream`. */
      how: string;
      /** The wire reason sent. */
      reason: string;
    }
  | {
      /** The peer cancelled one of its requests. */
      event: 'cancel-received';
      /** The request's id on this leg. */
      id: RequestId;
      /** The request's method. */
      method: string;
      /** The peer's reason, if it gave one. */
      reason?: string;
    }
  | {
      /** An idle limit or ceiling ended a request. */
      event: 'deadline-fired';
      /** `inbound` (the peer's request) or `outbound` (ours). */
      direction: Direction;
      /** The request's id on this leg. */
      id: RequestId;
      /** The request's method. */
      method: string;
      /** `IDLE_TIMEOUT` or `CEILING`. */
      cause: CancelCode;
      /** The limit's message. */
      message: string;
    }
  | {
      /** A message after its request ended, absorbed. */
      event: 'late';
      /** What came late. */
      kind: 'response' | 'result' | 'progress';
      /** Its request id or progress token. */
      key: RequestId | ProgressToken;
    }
  | {
      /** A failure that did not stop the endpoint. */
      event: 'error';
      /** Where it happened. */
      context: string;
      /** What happened. */
      message: string;
    }
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
