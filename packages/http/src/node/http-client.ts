import { HttpClient as FetchHttpClient, sendByDefault } from '../client/http-client.js';
import { nodeRequester } from './node-requester.js';

/**
 * An MCP client over Streamable HTTP for Node: the client of `@mcp-inflight/http/fetch` (it is a subclass,
 * so `instanceof` holds for both), sending over `node:http` / `node:https` unless its options bring a
 * `fetch`. Progress routed per request, idle and ceiling limits, era-correct cancellation: aborting a
 * 2026-07-28 request closes its connection; a legacy cancel POSTs `notifications/cancelled`.
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
    sendByDefault(HttpClient, nodeRequester);
  }
}
