import { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Endpoint } from '@mcp-inflight/core';
import { JsonRpcErrorCode } from '@mcp-inflight/core';

// Fair shares between hosts [rule 14]: the proxy's one core `Admission` puts each host in a share of its
// own (a stdio connection, a legacy session, a 2026-07-28 client), caps what one share runs, and starts
// waiting calls round robin, so one host's calls cannot take the upstream from another.

/**
 * Default bound on relayed calls one host runs at once (`--max-host-in-flight`): 100, a tenth of the
 * default `--max-in-flight`, so one host's long calls never hold the upstream gate, and the upstream runs
 * few enough of them that another host's calls keep their pace (bench/fairness.mjs: 500 left a quiet
 * host a sixth to a quarter of its call rate beside a 1,200-call flood; 100 kept 0.6x, p95 1.9x).
 *
 * @example
 * ```ts
 * import { createProxy, DEFAULT_MAX_HOST_IN_FLIGHT } from '@mcp-inflight/proxy';
 * createProxy({ upstream: 'http://127.0.0.1:3000/mcp', maxHostInFlight: DEFAULT_MAX_HOST_IN_FLIGHT / 5 });
 * ```
 */
export const DEFAULT_MAX_HOST_IN_FLIGHT = 100;

/**
 * Default bound on legacy HTTP sessions one client keeps alive at once (`--max-client-sessions`): 100, a
 * tenth of the default `--max-sessions`, so one client cannot open them all.
 *
 * @example
 * ```ts
 * import { DEFAULT_MAX_CLIENT_SESSIONS } from '@mcp-inflight/proxy';
 * console.log(`one client: at most ${DEFAULT_MAX_CLIENT_SESSIONS} legacy sessions`);
 * ```
 */
export const DEFAULT_MAX_CLIENT_SESSIONS = 100;

/**
 * Who an HTTP request comes from: its bearer token when inbound auth is on (hosts behind one address
 * stay apart), else its peer address. A token is kept in memory only, never logged.
 */
export function clientOf(req: IncomingMessage, authOn: boolean): string {
  if (authOn) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
    if (match) return `token ${match[1]}`;
  }
  return `address ${req.socket.remoteAddress ?? 'unknown'}`;
}

/**
 * Whether a POST may open a legacy session: it carries no session id, and no 2026-07-28 header (a
 * 2026-07-28 request opens none). Read from headers only, before the body.
 */
export function mayOpenSession(req: IncomingMessage): boolean {
  return (
    req.method === 'POST' &&
    req.headers['mcp-session-id'] === undefined &&
    req.headers['mcp-protocol-version'] !== '2026-07-28'
  );
}

/**
 * Legacy sessions per client: the request being served carries its client into the endpoint's setup
 * (async context), each new session is counted against its client, and a client at the cap is refused
 * before its `initialize` is read. Closed sessions leave their count when it is next read.
 */
export class ClientSessions {
  /** Sessions one client may keep alive at once. */
  readonly max: number;
  readonly #serving = new AsyncLocalStorage<string>();
  readonly #byClient = new Map<string, Set<Endpoint>>();
  #sweepAt = 64;

  constructor(max: number) {
    this.max = max;
  }

  /** Runs `serve` (one HTTP request's handling) as `client`'s. */
  serve(client: string, serve: () => void): void {
    this.#serving.run(client, serve);
  }

  /** The client of the request being served, if any. */
  get current(): string | undefined {
    return this.#serving.getStore();
  }

  /** Counts a new session of the current client. */
  add(endpoint: Endpoint, client: string): void {
    const set = this.#byClient.get(client) ?? new Set<Endpoint>();
    this.#byClient.set(client, set);
    set.add(endpoint);
    if (this.#byClient.size < this.#sweepAt) return;
    for (const key of [...this.#byClient.keys()]) this.#live(key); // clients long gone leave (rule 8)
    this.#sweepAt = Math.max(64, 2 * this.#byClient.size);
  }

  /** Whether `client` has `max` sessions alive. */
  full(client: string): boolean {
    return this.#live(client) >= this.max;
  }

  #live(client: string): number {
    const set = this.#byClient.get(client);
    if (!set) return 0;
    for (const endpoint of set) if (endpoint.closed) set.delete(endpoint);
    if (set.size === 0) this.#byClient.delete(client);
    return set.size;
  }

  /** Answers 503 with `-32010`, naming the flag. */
  refuse(res: ServerResponse): void {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: JsonRpcErrorCode.Overloaded,
        message: `Service Unavailable: this client has ${this.max} legacy sessions open (--max-client-sessions ${this.max}); end one with DELETE or let it expire`,
      },
    });
    res
      .writeHead(503, {
        'content-type': 'application/json',
        'retry-after': '1',
      })
      .end(body);
  }
}
