import type { Readable, Writable } from 'node:stream';
import type { Endpoint } from '@mcp-inflight/core';
import {
  connectStdio,
  type StdioConnection,
  type StdioConnectionOptions,
} from '../connection/connect-stdio.js';

/**
 * Options for {@link serveStdio}: the streams (process stdio by default) and any connection option.
 *
 * @example
 * ```ts
 * import { PassThrough } from 'node:stream';
 * import { type StdioOptions, serveStdio } from '@mcp-inflight/stdio';
 * // In a test: the server on in-memory streams instead of the process's stdio.
 * const toServer = new PassThrough();
 * const fromServer = new PassThrough();
 * const options: StdioOptions = { input: toServer, output: fromServer, handlerCeilingMs: 30_000 };
 * const server = serveStdio((endpoint) => {
 *   endpoint.setRequestHandler('demo/echo', (params) => params);
 * }, options);
 * toServer.write('{"jsonrpc":"2.0","id":1,"method":"demo/echo","params":{"text":"hi"}}\n');
 * ```
 */
export interface StdioOptions extends Omit<StdioConnectionOptions, 'input' | 'output' | 'role' | 'setup'> {
  /** @default process.stdin */
  input?: Readable;
  /** @default process.stdout */
  output?: Writable;
  /**
   * The server's listen streams (`ListenStreams` from `@mcp-inflight/server/listen`): served on the endpoint
   * after `setup`, and ended gracefully by `close()` (the listen response, then `notifications/cancelled`
   * [L11 CN21]) before in-flight handlers are shut down.
   */
  listenStreams?: {
    /** Serves `subscriptions/listen` on the endpoint. */
    serve(endpoint: Endpoint): void;
    /** Ends the endpoint's streams on the server's initiative. */
    end(endpoint?: Endpoint, why?: string): number;
  };
}

/**
 * A server on stdio: the endpoint, a promise that settles when the client goes (stdin ends), and a
 * graceful `close()`.
 *
 * @example
 * ```ts
 * import { serveStdio, type StdioServer } from '@mcp-inflight/stdio';
 * const server: StdioServer = serveStdio((endpoint) => {
 *   endpoint.setRequestHandler('demo/echo', (params) => params);
 * });
 * process.once('SIGINT', () => void server.close('interrupted')); // in-flight handlers end with SHUTDOWN
 * await server.closed; // the client went (stdin ended) or close() finished
 * ```
 */
export type StdioServer = StdioConnection;

/**
 * Serves one MCP server endpoint on the process's stdin and stdout. `setup` registers handlers before
 * the first line is read. Every revision is served on the one connection: legacy clients through
 * `initialize`, 2026-07-28 clients per request through `_meta` (register both handshakes with core's
 * `serveLifecycle`). When stdin ends, every handler is aborted with DISCONNECTED and `closed` resolves,
 * so the process can exit [spec: servers SHOULD exit promptly when stdin closes]. Write logs to stderr:
 * stdout carries only MCP messages.
 *
 * @example
 * ```ts
 * import { serveLifecycle } from '@mcp-inflight/core';
 * import { serveStdio } from '@mcp-inflight/stdio';
 * const server = serveStdio((endpoint) => {
 *   serveLifecycle(endpoint, { serverInfo: { name: 'demo', version: '1.0.0' }, capabilities: { tools: {} } });
 *   endpoint.setRequestHandler('tools/call', async (params, ctx) => {
 *     for (let step = 1; step <= 3 && !ctx.signal.aborted; step++) ctx.progress(step, 3, `step ${step}`);
 *     return { content: [{ type: 'text', text: 'done' }] };
 *   });
 * });
 * await server.closed;
 * ```
 */
export function serveStdio(setup: (endpoint: Endpoint) => void, options: StdioOptions = {}): StdioServer {
  const { input = process.stdin, output = process.stdout, listenStreams, ...rest } = options;
  const connection = connectStdio({
    ...rest,
    input,
    output,
    role: 'server',
    setup: (endpoint) => {
      setup(endpoint);
      listenStreams?.serve(endpoint);
    },
  });
  if (!listenStreams) return connection;
  const close = connection.close.bind(connection);
  connection.close = (why = 'the connection is closing') => {
    listenStreams.end(connection.endpoint, why);
    return close(why);
  };
  return connection;
}
