import { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Endpoint } from '@mcp-inflight/core';
import { JsonRpcErrorCode } from '@mcp-inflight/core';
import type { Admission } from '@mcp-inflight/core/adapter';

// Fair shares between clients [rule 14]: the proxy's one core `Admission` puts each client in a share of
// its own (a stdio connection; over HTTP a bearer token, else the address plus the clientInfo name the
// host declares), caps what one share runs, and starts waiting calls round robin, so one client's calls
// cannot take the upstream from another; its handshakes, pings and task polls run in core's control lane.

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
 * Default bound on clients one address has at once without auth (`--max-address-clients`): 16 clientInfo
 * names, each a share of its own; requests naming more go to the address's one share, so a host that
 * invents names cannot take more of the upstream. Hosts behind one NAT: give each a token (`--auth-token-file`).
 *
 * @example
 * ```ts
 * import { DEFAULT_MAX_ADDRESS_CLIENTS } from '@mcp-inflight/proxy';
 * console.log(`one address: at most ${DEFAULT_MAX_ADDRESS_CLIENTS} clients apart`);
 * ```
 */
export const DEFAULT_MAX_ADDRESS_CLIENTS = 16;

/** Longest clientInfo name kept in a share's key; a longer one is cut there (a key is kept per client). */
const MAX_NAME_CHARS = 128;

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

/** The client of the HTTP request being served (its async context), for its setup and its handlers. */
const serving = new AsyncLocalStorage<string>();

/**
 * The bearer token's client of the request being served, if auth is on: what a requestState the proxy
 * hands out is bound to, so another token's retry is refused as a forged one is.
 */
export function servedToken(): string | undefined {
  const client = serving.getStore();
  return client?.startsWith('token ') ? client : undefined;
}

/**
 * The clientInfo name a request declares: in `_meta` on 2026-07-28 [M4], in a legacy `initialize`'s
 * params. Cut at 128 characters; anything but a non-empty string is none.
 */
export function clientNameOf(params: Record<string, unknown> | undefined): string | undefined {
  const meta = params?._meta as Record<string, unknown> | undefined;
  const info = (meta?.['io.modelcontextprotocol/clientInfo'] ?? params?.clientInfo) as
    | { name?: unknown }
    | undefined;
  const name = info?.name;
  return typeof name === 'string' && name !== '' ? name.slice(0, MAX_NAME_CHARS) : undefined;
}

/**
 * The share each HTTP host's calls run in: its token with auth on; else its address plus the clientInfo
 * name it declares (two host apps on one machine differ there), at most `maxPerAddress` names apart per
 * address, further ones in the address's own share. A name is read from each 2026-07-28 request's `_meta`,
 * and from a legacy session's `initialize`. A host that lies about its clientInfo is what auth is for.
 */
export class ClientShares {
  /** Clients one address has apart at once. */
  readonly maxPerAddress: number;
  readonly #admission: Admission;
  readonly #names = new Map<string, Set<string>>();
  #sweepAt = 64;

  constructor(admission: Admission, maxPerAddress: number) {
    this.#admission = admission;
    this.maxPerAddress = maxPerAddress;
  }

  /** Puts `endpoint` (a legacy session, or one 2026-07-28 request) of `client` in its share. */
  assign(endpoint: Endpoint, client: string, legacy: boolean): void {
    if (client.startsWith('token ')) return this.#admission.assign(endpoint, client);
    let named: string | undefined;
    // A legacy session names itself once, in its `initialize`; a 2026-07-28 request on every request.
    const key = (params: Record<string, unknown> | undefined): string => {
      if (!legacy || named === undefined) named = clientNameOf(params);
      return this.keyOf(client, named);
    };
    this.#admission.assign(endpoint, key);
  }

  /** The share of `address`'s client named `name`: its own, or past the cap the address's. */
  keyOf(address: string, name: string | undefined): string {
    if (name === undefined) return address;
    const key = `${address} app ${name}`;
    const names = this.#names.get(address) ?? new Set<string>();
    if (names.has(key)) return key;
    this.#names.set(address, names);
    // Names with nothing running or waiting leave, so the cap counts clients at work (rule 8).
    if (names.size >= this.maxPerAddress)
      for (const held of names) if (this.#admission.inFlightOf(held) === 0) names.delete(held);
    if (names.size >= this.maxPerAddress) return address;
    names.add(key);
    if (this.#names.size > this.#sweepAt) this.#sweep();
    return key;
  }

  /** Addresses long gone leave (rule 8); amortized, as the table is swept when it has doubled. */
  #sweep(): void {
    for (const [address, names] of this.#names) {
      for (const key of names) if (this.#admission.inFlightOf(key) === 0) names.delete(key);
      if (names.size === 0) this.#names.delete(address);
    }
    this.#sweepAt = Math.max(64, 2 * this.#names.size);
  }
}

/**
 * Legacy sessions per client: the request being served carries its client into the endpoint's setup
 * (async context), each new session is counted against its client, and a client at the cap is refused
 * before its `initialize` is read. Closed sessions leave their count when it is next read. With auth on,
 * a session is its token's: another token naming it is answered as for an unknown session.
 */
export class ClientSessions {
  /** Sessions one client may keep alive at once. */
  readonly max: number;
  readonly #byClient = new Map<string, Set<Endpoint>>();
  readonly #owners = new Map<string, { client: string; endpoint: Endpoint }>();
  #sweepAt = 64;

  constructor(max: number) {
    this.max = max;
  }

  /** Runs `serve` (one HTTP request's handling) as `client`'s. */
  serve(client: string, serve: () => void): void {
    serving.run(client, serve);
  }

  /** The client of the request being served, if any. */
  get current(): string | undefined {
    return serving.getStore();
  }

  /** Counts a new session of the current client. */
  add(endpoint: Endpoint, client: string, sessionId: string): void {
    const set = this.#byClient.get(client) ?? new Set<Endpoint>();
    this.#byClient.set(client, set);
    set.add(endpoint);
    this.#owners.set(sessionId, { client, endpoint });
    if (this.#byClient.size + this.#owners.size < this.#sweepAt) return;
    for (const key of [...this.#byClient.keys()]) this.#live(key); // clients long gone leave (rule 8)
    for (const [id, owner] of this.#owners) if (owner.endpoint.closed) this.#owners.delete(id);
    this.#sweepAt = Math.max(64, 2 * (this.#byClient.size + this.#owners.size));
  }

  /**
   * With auth on, a session id another token opened reads as one that does not exist (404, as for a
   * forged one), so nothing tells a token that another's session is there [issue 45].
   */
  bind(req: IncomingMessage, client: string): void {
    const id = req.headers['mcp-session-id'];
    const owner = typeof id === 'string' ? this.#owners.get(id) : undefined;
    if (owner === undefined || owner.client === client) return;
    if (owner.endpoint.closed) this.#owners.delete(id as string);
    req.headers['mcp-session-id'] = NOT_A_SESSION;
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

/** What a session id another token opened is replaced with: no session has it, so the answer is a 404. */
const NOT_A_SESSION = 'not-a-session-of-this-client';
