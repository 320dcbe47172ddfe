// In-memory wiring for relay tests: real core Endpoints joined by channels that copy every message
// through JSON (as a wire would) and deliver it on a later microtask. On 'http' with 2026-07-28, closing
// an outbound request's stream reaches the server as abortInbound, the way the HTTP adapter reports it.
import {
  Endpoint,
  InflightError,
  ProgressRelay,
  type RequestId,
  type Revision,
  type TransportKind,
} from '@mcp-inflight/core';
import type { JsonRpcMessage } from '@mcp-inflight/core/adapter';
import type { ManualClock } from '@mcp-inflight/core/testing';
import type { UpstreamConnection } from '../src/upstream-link.js';

export interface Wire {
  client: Endpoint;
  server: Endpoint;
  /** Everything the client wrote, in order. */
  toServer: JsonRpcMessage[];
  /** Everything the server wrote, in order. */
  toClient: JsonRpcMessage[];
  /** Ids whose request stream the client closed (2026-07-28 HTTP cancel). */
  closedStreams: RequestId[];
}

export interface WireOptions {
  clock: ManualClock;
  transport: TransportKind;
  /** The client's session revision (both ends agree on it, as after initialize or a pin). */
  revision: Revision;
  /** The server endpoint's progress coalescing interval. @default 50 (core's default) */
  serverMinIntervalMs?: number;
  /** What the client declares (2026-07-28: in every request's `_meta`). @default {} */
  clientCapabilities?: Record<string, unknown>;
}

export function wire(options: WireOptions): Wire {
  const { clock, transport, revision } = options;
  const toServer: JsonRpcMessage[] = [];
  const toClient: JsonRpcMessage[] = [];
  const closedStreams: RequestId[] = [];
  let server!: Endpoint;
  let client!: Endpoint;
  const deliver = (to: () => Endpoint, log: JsonRpcMessage[], message: JsonRpcMessage | JsonRpcMessage[]) => {
    const copy = JSON.parse(JSON.stringify(message)) as JsonRpcMessage;
    log.push(copy);
    queueMicrotask(() => to().receive(copy));
  };
  client = new Endpoint({
    role: 'client',
    transport,
    clock,
    revision,
    clientCapabilities: options.clientCapabilities ?? {},
    channel: {
      write: (message) => deliver(() => server, toServer, message),
      cancelRequest: (id, notification) => {
        if (notification) return deliver(() => server, toServer, notification);
        closedStreams.push(id);
        queueMicrotask(() =>
          server.abortInbound(id, new InflightError('DISCONNECTED', 'the client closed the request stream')),
        );
      },
    },
  });
  server = new Endpoint({
    role: 'server',
    transport,
    clock,
    revision: revision === '2026-07-28' ? undefined : revision,
    progressRelay: new ProgressRelay({ clock, minIntervalMs: options.serverMinIntervalMs ?? 50 }),
    channel: { write: (message) => deliver(() => client, toClient, message) },
  });
  return { client, server, toServer, toClient, closedStreams };
}

/** Lets queued deliveries and handler continuations run (no time passes on the manual clock). */
export async function settle(rounds = 20): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

/** An UpstreamConnection over the client end of `w`; `kill()` ends it the way a dead process would. */
export function memoryUpstream(w: Wire, revision: Revision): UpstreamConnection & { kill(): void } {
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  const kill = () => {
    w.client.close(new InflightError('UPSTREAM_CLOSED', 'the upstream process exited'));
    w.server.close();
    resolveClosed();
  };
  return {
    endpoint: w.client,
    identity: {
      serverInfo: { name: 'memory-upstream', version: '1.0.0' },
      capabilities: { tools: { listChanged: true }, logging: {} },
    },
    revision,
    request: (method, params, options) => w.client.request(method, params, options),
    closed,
    close: async () => kill(),
    kill,
  };
}

/** Progress notifications in `log`, optionally for one token. */
export function progressOf(log: JsonRpcMessage[], token?: unknown): Array<Record<string, unknown>> {
  return log
    .filter((m) => m.method === 'notifications/progress')
    .map((m) => m.params as Record<string, unknown>)
    .filter((p) => token === undefined || p.progressToken === token);
}
