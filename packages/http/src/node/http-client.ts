import { HttpClient as FetchHttpClient, sendByDefault } from '../client/http-client.js';
import { fetchRequester, type Requester } from '../client/requester.js';
import { nodeRequester } from './node-requester.js';

/**
 * An MCP client over Streamable HTTP for Node: the client of `@mcp-inflight/http/fetch` (it is a subclass,
 * so `instanceof` holds for both), sending over `node:http` / `node:https` unless its options bring a
 * `fetch` (on Deno, over Deno's `fetch`: see `defaultRequester` below). Progress routed per request, idle
 * and ceiling limits, era-correct cancellation: aborting a 2026-07-28 request closes its connection; a
 * legacy cancel POSTs `notifications/cancelled`.
 *
 * @example
 * ```ts
 * import { HttpClient } from '@mcp-inflight/http';
 * const client = new HttpClient({ url: 'http://127.0.0.1:3000/mcp' });
 * await client.connect();
 * const result = await client.callTool('work', { steps: 3 }, { onprogress: (p) => console.log(p.progress) });
 * await client.close();
 * ```
 */
export class HttpClient extends FetchHttpClient {
  static {
    sendByDefault(HttpClient, defaultRequester);
  }
}

/**
 * `node:http`, except on Deno, where the client sends through the global `fetch`. Deno's `node:http`
 * client (2.9: `maybeRetryRequest` in its `_http_client.js`, denoland/deno#36786) takes a request destroyed
 * before its response, on a keep-alive socket reused from the agent's pool, for one that met a stale
 * connection: it sends the request again on a new connection, clears `destroyed` and emits no error. A
 * 2026-07-28 cancel is that destroy [CN22], so the server saw the cancel and then the same call start
 * again and run. Deno's `fetch` closes the connection on abort and sends once; Bun's `node:http` does too.
 * Chosen per client: on Node that is one `in` test per client, nothing per request.
 */
function defaultRequester(): Requester {
  if ('deno' in process.versions)
    return fetchRequester((input: RequestInfo | URL, init?: RequestInit) => globalThis.fetch(input, init));
  return nodeRequester();
}
