import type {
  CallToolResult,
  Endpoint,
  EndpointStats,
  NotificationHandler,
  RequestHandler,
  RequestOptions,
  Revision,
} from '@mcp-inflight/core';
import {
  checkContent,
  filterFor,
  isLegacy,
  LIST_CHANGED,
  LISTEN_ACK_METHOD,
  MODERN_REVISION,
  offeredBy,
  RESOURCE_UPDATED,
} from '@mcp-inflight/core/adapter';
import { connectLifecycle, type LifecycleHooks } from './connect-lifecycle.js';
import type { ClientIdentity, ConnectOptions, ServerHandshake } from './handshake.js';
import { ListenLoop } from './listen-loop.js';

/**
 * The one client shape: the stdio client and the HTTP client both implement it, so host code written
 * once runs on either. Every limit, local or enforced by the server, rejects with an `InflightError`
 * (`origin` says which side); other failures with a `JsonRpcError`; a failed handshake with a
 * `NegotiationError`.
 *
 * @example
 * ```ts
 * import type { McpClient } from '@mcp-inflight/client';
 * import { InflightError } from '@mcp-inflight/core';
 * async function run(client: McpClient): Promise<string> {
 *   await client.connect(); // 'auto': 2026-07-28 if the server speaks it, else initialize
 *   try {
 *     const result = await client.callTool('work', { steps: 5, intervalMs: 100 }, {
 *       idleMs: 2_000,
 *       ceilingMs: 30_000,
 *       onprogress: (p) => console.log(`${p.progress}/${p.total}`),
 *     });
 *     return result.isError ? 'tool error' : 'done';
 *   } catch (error) {
 *     if (InflightError.is(error)) return `${error.code} (${error.origin})`; // one catch, local or remote
 *     throw error;
 *   } finally {
 *     await client.close();
 *   }
 * }
 * ```
 */
export interface McpClient {
  /** The core endpoint underneath (role `client`). */
  readonly endpoint: Endpoint;
  /** What `connect()` settled, once it has. */
  readonly server: ServerHandshake | undefined;
  /** The revision in use, once connected. */
  readonly revision: Revision | undefined;
  /**
   * Settles when the connection is over for every call: the peer went away (a stdio child exited) or
   * `close()` finished. One broken exchange (an HTTP request whose socket dropped) does not settle it.
   */
  readonly closed: Promise<void>;
  /**
   * Negotiates a revision (see `connectLifecycle`). Later calls return the same handshake; a failed or
   * aborted one may be tried again. `request()` connects with the defaults when nobody has.
   */
  connect(options?: ConnectOptions): Promise<ServerHandshake>;
  /** Sends a request within its deadline. */
  request<T = unknown>(
    method: string,
    params?: Record<string, unknown>,
    options?: RequestOptions,
  ): Promise<T>;
  /** `tools/call` with a typed result. */
  callTool(name: string, args?: Record<string, unknown>, options?: RequestOptions): Promise<CallToolResult>;
  /** Sends a notification; resolves once the transport has taken it. */
  notify(method: string, params?: Record<string, unknown>): Promise<void>;
  /** Serves a request the server sends outside a call (`roots/list`, legacy `elicitation/create`…). */
  onRequest(method: string, handler: RequestHandler): this;
  /**
   * Receives a notification the server sends (`notifications/tools/list_changed`…). On 2026-07-28 a
   * handler for a list change makes the client ask for it on its `subscriptions/listen` stream, which it
   * keeps open by itself (and reopens after a drop); earlier revisions deliver them unasked.
   */
  onNotification(method: string, handler: NotificationHandler): this;
  /**
   * Asks for `notifications/resources/updated` about `uri`: on 2026-07-28 the URI joins the listen
   * stream's filter [LS2]; on earlier revisions it is `resources/subscribe`.
   */
  subscribeResource(uri: string): Promise<void>;
  /** Stops asking for updates about `uri` (`resources/unsubscribe` on earlier revisions). */
  unsubscribeResource(uri: string): Promise<void>;
  /** The endpoint's counters. */
  stats(): EndpointStats;
  /** Ends everything in flight and the connection. Safe to call twice. */
  close(): Promise<void>;
}

/**
 * What a transport supplies to {@link LifecycleClient}: how bytes move, nothing about MCP.
 *
 * @example
 * ```ts
 * import type { ClientTransport } from '@mcp-inflight/client';
 * const transport: ClientTransport = { notify: async () => {}, close: async () => {} }; // moves no bytes
 * ```
 */
export interface ClientTransport extends LifecycleHooks {
  /** Sends a notification (after the handshake). */
  notify(method: string, params: Record<string, unknown> | undefined): Promise<void>;
  /** Ends the transport once the endpoint has settled everything. */
  close(): Promise<void>;
  /** Settles when the transport is gone by itself (a child exited). @default only after `close()` */
  closed?: Promise<void>;
  /** `false` keeps the client from opening 2026-07-28 listen streams by itself. @default true */
  listen?: boolean;
  /** The server's advice (an SSE `retry`) for the pause before a listen stream is reopened, if any. */
  listenRetryMs?: () => number | undefined;
}

/**
 * The {@link McpClient} behaviour every transport shares, written once: the handshake, connecting on
 * first use, typed tool calls, handlers for what the server sends. Transports construct it with their
 * endpoint and a {@link ClientTransport}.
 *
 * @example
 * ```ts
 * import { LifecycleClient } from '@mcp-inflight/client';
 * import { Endpoint } from '@mcp-inflight/core';
 * const endpoint = new Endpoint({ role: 'client', transport: 'stdio', channel: { write: () => {} } });
 * const client = new LifecycleClient(endpoint, { clientInfo: { name: 'my-host', version: '1.0.0' }, capabilities: {} }, {
 *   notify: async () => {},
 *   close: async () => {},
 * });
 * await client.close();
 * ```
 */
export class LifecycleClient implements McpClient {
  readonly endpoint: Endpoint;
  #identity: ClientIdentity;
  #transport: ClientTransport;
  #server: ServerHandshake | undefined;
  #connecting: Promise<ServerHandshake> | undefined;
  #closing: Promise<void> | undefined;
  #closedByCall: { promise: Promise<void>; resolve: () => void };
  /** Notification methods the application handles, and resource URIs it asked about: the listen filter. */
  #handled = new Set<string>();
  #resources = new Set<string>();
  #listening: ListenLoop | undefined;
  readonly closed: Promise<void>;

  constructor(endpoint: Endpoint, identity: ClientIdentity, transport: ClientTransport) {
    this.endpoint = endpoint;
    this.#identity = identity;
    this.#transport = transport;
    let resolve!: () => void;
    const promise = new Promise<void>((r) => {
      resolve = r;
    });
    this.#closedByCall = { promise, resolve };
    this.closed = transport.closed ? Promise.race([transport.closed, promise]) : promise;
    // The listen stream's first message [L9]: expected, not an unhandled notification.
    endpoint.setNotificationHandler(LISTEN_ACK_METHOD, () => {});
  }

  get server(): ServerHandshake | undefined {
    return this.#server;
  }

  get revision(): Revision | undefined {
    return this.endpoint.revision;
  }

  connect(options: ConnectOptions = {}): Promise<ServerHandshake> {
    if (this.#closing) return Promise.reject(new Error('the client is closed'));
    this.#connecting ??= connectLifecycle(this.endpoint, this.#identity, options, this.#transport).then(
      (settled) => {
        this.#server = settled;
        this.#listen();
        return settled;
      },
      (error: unknown) => {
        this.#connecting = undefined; // a failed or aborted handshake may be tried again
        throw error;
      },
    );
    return this.#connecting;
  }

  // Plain promises, not async functions: a call once connected is the endpoint's promise itself, with no
  // promise and no await of ours around it.
  request<T = unknown>(
    method: string,
    params?: Record<string, unknown>,
    options?: RequestOptions,
  ): Promise<T> {
    if (this.#server) return this.endpoint.request(method, params, options) as Promise<T>;
    return this.connect().then(() => this.endpoint.request(method, params, options) as Promise<T>);
  }

  callTool(name: string, args?: Record<string, unknown>, options?: RequestOptions): Promise<CallToolResult> {
    return this.request<CallToolResult>('tools/call', { name, arguments: args ?? {} }, options).then(
      checkedBlocks,
    );
  }

  async notify(method: string, params?: Record<string, unknown>): Promise<void> {
    if (!this.#server) await this.connect();
    await this.#transport.notify(method, params);
  }

  onRequest(method: string, handler: RequestHandler): this {
    this.endpoint.setRequestHandler(method, handler);
    return this;
  }

  onNotification(method: string, handler: NotificationHandler): this {
    this.endpoint.setNotificationHandler(method, handler);
    if (LIST_CHANGED[method] !== undefined || method === RESOURCE_UPDATED) {
      this.#handled.add(method);
      this.#listen();
    }
    return this;
  }

  async subscribeResource(uri: string): Promise<void> {
    if (!this.#server) await this.connect();
    if (this.revision !== undefined && isLegacy(this.revision)) {
      await this.endpoint.request('resources/subscribe', { uri });
      return;
    }
    this.#resources.add(uri);
    this.#listen();
  }

  async unsubscribeResource(uri: string): Promise<void> {
    if (!this.#server) await this.connect();
    if (this.revision !== undefined && isLegacy(this.revision)) {
      await this.endpoint.request('resources/unsubscribe', { uri });
      return;
    }
    if (this.#resources.delete(uri)) this.#listen();
  }

  /** Opens, or reopens with the current filter, the 2026-07-28 listen stream (a no-op elsewhere). */
  #listen(): void {
    if (
      !this.#server ||
      this.#closing ||
      this.revision !== MODERN_REVISION ||
      this.#transport.listen === false
    )
      return;
    this.#listening ??= new ListenLoop({
      endpoint: this.endpoint,
      // Only what the server declares it can send (its listChanged and subscribe capabilities).
      filter: () => offeredBy(filterFor(this.#handled, [...this.#resources]), this.#server?.capabilities),
      retryMs: this.#transport.listenRetryMs,
    });
    this.#listening.refresh();
  }

  stats(): EndpointStats {
    return this.endpoint.stats;
  }

  close(): Promise<void> {
    this.#listening?.stop();
    this.#closing ??= this.#transport.close().finally(this.#closedByCall.resolve);
    return this.#closing;
  }
}

/** The types promise narrowable blocks: a block we cannot vouch for is handed on as `unknown`. */
function checkedBlocks(result: CallToolResult): CallToolResult {
  if (Array.isArray(result?.content)) result.content = result.content.map(checkContent);
  return result;
}
