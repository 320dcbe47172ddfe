import type { ConnectOptions } from '@mcp-inflight/client';
import { LifecycleClient, type ServerHandshake } from '@mcp-inflight/client';
import { HttpSession } from './http-session.js';
import type { HttpClientOptions } from './options.js';
import type { Requester } from './requester.js';

export type { HttpClientOptions } from './options.js';
export type { HttpClientWarning } from './param-headers.js';

/**
 * An MCP client over Streamable HTTP: the {@link @mcp-inflight/client!McpClient} every transport implements,
 * built on core's `Endpoint`: progress routed per request, idle and ceiling limits, and era-correct
 * cancellation (abort the request's stream on 2026-07-28; POST `notifications/cancelled` on legacy
 * revisions). This one, from `@mcp-inflight/http/fetch`, uses only `fetch`, so it runs in browsers too;
 * the one from `@mcp-inflight/http` is the same client on `node:http` unless given a `fetch`.
 *
 * On 2026-07-28 it keeps the tools it lists: a call to a listed tool carries an `Mcp-Param-{Name}` header
 * for each parameter its input schema marks with `x-mcp-header` (Base64 when needed), a tool whose
 * annotations are invalid is left out of every `tools/list` result (`request('tools/list')` too) and
 * reported to `onWarning`, and a call refused with HeaderMismatch `-32020` lists the tools again and is
 * sent once more. A call to a tool this client has not listed goes out without parameter headers (a server
 * that declares some refuses it with `-32020`, and the retry lists first).
 *
 * @example
 * ```ts
 * import { HttpClient } from '@mcp-inflight/http';
 * const client = new HttpClient({ url: 'http://127.0.0.1:3000/mcp' });
 * const server = await client.connect(); // 2026-07-28 when the server speaks it, else initialize
 * const result = await client.callTool('work', { steps: 3, intervalMs: 100 }, {
 *   onprogress: (p) => console.log(`${p.progress}/${p.total}`),
 *   idleMs: 5_000,
 * });
 * await client.close();
 * ```
 */
export class HttpClient extends LifecycleClient {
  #session: HttpSession;

  constructor(options: HttpClientOptions) {
    // The session is built first and whole, and nothing here reads `this` before super() returns.
    const session = new HttpSession(options, DEFAULT_REQUESTERS.get(new.target));
    super(session.endpoint, session.identity, session);
    this.#session = session;
  }

  /** The legacy session id, if any (2026-07-28 has none). */
  get sessionId(): string | undefined {
    return this.#session.channel.sessionId;
  }

  /** Settles the revision; `revision` defaults to the one given at construction, else `'auto'`. */
  override connect(options: ConnectOptions = {}): Promise<ServerHandshake> {
    const revision = options.revision ?? this.#session.options.revision;
    return super.connect(revision === undefined ? options : { ...options, revision });
  }
}

/** The requester a subclass sends through when no `fetch` is given: the Node entry's client, `node:http`. */
const DEFAULT_REQUESTERS = new WeakMap<typeof HttpClient, () => Requester>();

/** Makes `client` (a subclass) send through `requester` unless its options bring a `fetch`. */
export function sendByDefault(client: typeof HttpClient, requester: () => Requester): void {
  DEFAULT_REQUESTERS.set(client, requester);
}
