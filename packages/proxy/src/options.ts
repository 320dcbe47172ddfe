import { readFileSync } from 'node:fs';
import { isRevision, type Revision } from '@mcp-inflight/core';
import { DEFAULT_MAX_IN_FLIGHT } from '@mcp-inflight/core/adapter';
import {
  DEFAULT_MAX_ADDRESS_CLIENTS,
  DEFAULT_MAX_CLIENT_SESSIONS,
  DEFAULT_MAX_HOST_IN_FLIGHT,
} from './fair-shares.js';
import { type FlagValues, parseFlags, UsageError } from './flags.js';
import { BEARER_TOKEN } from './http-routes.js';
import type { UpstreamTarget } from './upstream-client.js';

/** What the command line can name as the upstream. */
export interface CliUpstream {
  /** `stdio` (`--upstream-stdio`) or `http` (`--upstream-http`). */
  kind: 'stdio' | 'http';
  /** `--upstream-revision` @default 'auto' */
  revision: Revision | 'auto';
}

/** How hosts reach the proxy. */
export type Listen =
  | {
      /** One host on this process's stdin/stdout. */
      kind: 'stdio';
    }
  | {
      /** Hosts over HTTP. */
      kind: 'http';
      /** The port (0: a free one). */
      port: number;
    };

/** Everything the proxy CLI takes. */
export interface ProxyOptions {
  /** `--upstream-stdio CMD` or `--upstream-http URL`, with `--upstream-revision`. */
  upstream: UpstreamTarget & CliUpstream;
  /** `--http PORT`, else stdio. */
  listen: Listen;
  /** `--host ADDR`: the interface the HTTP listener binds. @default '127.0.0.1' */
  host: string;
  /** `--path PATH`: the MCP endpoint's path. @default '/mcp' */
  path: string;
  /** `--allowed-origins a,b|*`: browser origins allowed to call. @default loopback origins */
  allowedOrigins?: readonly string[] | '*';
  /** `--allowed-hosts a,b|*`: names the `Host` header may carry. @default loopback names on loopback */
  allowedHosts?: readonly string[] | '*';
  /** `--idle-timeout MS` @default 60_000 */
  idleMs: number;
  /** `--max-timeout MS` @default 600_000 */
  ceilingMs: number;
  /** `--log text|json|quiet` (stderr) @default 'text' */
  log: 'text' | 'json' | 'quiet';
  /** `--log-arguments`: call events carry the tool's arguments (cut at 200 characters). @default false */
  logArguments: boolean;
  /** `--max-sessions N`: legacy HTTP host sessions alive at once; one more gets 503. @default 1_000 */
  maxSessions: number;
  /** `--session-idle MS`: a legacy HTTP host session ends after this long without contact. @default 300_000 */
  sessionIdleMs: number;
  /**
   * `--input-timeout MS`: how long an upstream call waits, parked, for a 2026-07-28 host to answer the
   * upstream's elicitation or sampling request with its retry. @default 300_000
   */
  inputHoldMs: number;
  /**
   * `--progress-interval MS`: at most one progress update per MS per call to a host, the latest kept; `0`
   * passes every accepted value. Absent: the relay's default (50 ms).
   */
  minIntervalMs?: number;
  /** `--header "Name: value"` and `--header-from-env "Name: ENV_VAR"`: sent on every upstream request. */
  headers: Record<string, string>;
  /** `--pass-header NAME`: hosts' headers sent with their own upstream calls (lowercase). @default [] */
  passHeaders: readonly string[];
  /** `--auth-token-file FILE`: the bearer tokens hosts must send (one per line). @default none */
  authTokens?: readonly string[];
  /** `--connect-timeout MS`: the bound on the upstream handshake, probe and initialize. @default 30_000 */
  connectTimeoutMs: number;
  /** `--admin-port PORT`: health, readiness and metrics on 127.0.0.1:PORT. @default none */
  adminPort?: number;
  /** `--drain-timeout MS`: on SIGTERM, how long calls in flight may finish. @default 10_000 */
  drainMs: number;
  /**
   * `--request-state-secret-file FILE`: the secret (at least 32 bytes, a trailing newline dropped) that
   * signs the requestState handed to hosts, shared by every proxy instance. @default a key per process
   */
  requestStateSecret?: Uint8Array;
  /**
   * `--redis URL`: record which instance relays each 2026-07-28 task in Redis, so a task request that
   * lands on another proxy instance is forwarded to it. @default none
   */
  redisUrl?: string;
  /**
   * `--max-in-flight N`: relayed calls running at once over every host, in front of the upstream's own
   * gate; more wait their turn, hosts taken round robin. @default 1_000 (`DEFAULT_MAX_IN_FLIGHT`)
   */
  maxInFlight: number;
  /** `--max-host-in-flight N`: relayed calls one host runs at once; its others wait. @default 100 */
  maxHostInFlight: number;
  /**
   * `--max-client-sessions N`: legacy HTTP sessions one client (its bearer token with auth on, else its
   * address) keeps alive at once; one more `initialize` gets 503. @default 100
   */
  maxClientSessions: number;
  /**
   * `--max-address-clients N`: without auth, clientInfo names one address keeps apart, each a share of its
   * own; requests naming more share the address's one. @default 16
   */
  maxAddressClients: number;
  /** `--max-connections N`: HTTP connections open at once; one more gets 503 naming the flag. @default 4_096 */
  maxConnections: number;
  /**
   * `--max-idle-connections-per-address N`: HTTP connections from one address serving no request (silent,
   * or kept alive between requests); one more from that address gets 503 naming the flag. @default 256
   */
  maxIdleConnectionsPerAddress: number;
}

/**
 * Reads the proxy's command line (flags.ts). Throws a {@link UsageError} saying what is
 * wrong; `--help` is the caller's to check first.
 *
 * @example
 * ```ts
 * import { parseProxyArgs } from '@mcp-inflight/proxy/cli';
 * parseProxyArgs(['--upstream-stdio', 'node server.js', '--http', '0', '--idle-timeout', '800']).idleMs; // 800
 * ```
 */
export function parseProxyArgs(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): ProxyOptions {
  const flags = new Flags(parseFlags(argv));
  const upstream = upstreamOf(flags);
  const log = flags.str('log') ?? 'text';
  if (log !== 'text' && log !== 'json' && log !== 'quiet') {
    throw new UsageError(`--log takes text, json or quiet, not ${log}`);
  }
  const http = flags.str('http');
  const path = flags.str('path') ?? '/mcp';
  if (!path.startsWith('/')) throw new UsageError(`--path must start with /, not ${JSON.stringify(path)}`);
  const headers = headersOf(flags, env, upstream);
  const passHeaders = passHeadersOf(flags, upstream, http);
  const tokenFile = flags.str('auth-token-file');
  const secretFile = flags.str('request-state-secret-file');
  const redis = flags.str('redis');
  if (redis !== undefined && !/^rediss?:\/\/./.test(redis))
    throw new UsageError(`--redis takes a redis:// or rediss:// URL, not ${JSON.stringify(redis)}`);
  const minInterval = flags.str('progress-interval');
  const adminPort = flags.str('admin-port');
  const origins = flags.str('allowed-origins');
  const hosts = flags.str('allowed-hosts');
  return {
    upstream,
    listen:
      http === undefined ? { kind: 'stdio' } : { kind: 'http', port: integer('--http', http, 0, 65_535) },
    host: flags.str('host') ?? '127.0.0.1',
    path,
    ...(origins === undefined ? {} : { allowedOrigins: commaList(origins) }),
    ...(hosts === undefined ? {} : { allowedHosts: commaList(hosts) }),
    idleMs: flags.whole('idle-timeout', 60_000),
    ceilingMs: flags.whole('max-timeout', 600_000),
    log,
    logArguments: flags.values['log-arguments'] === true,
    maxSessions: flags.whole('max-sessions', 1_000),
    sessionIdleMs: flags.whole('session-idle', 300_000),
    inputHoldMs: flags.whole('input-timeout', 300_000),
    ...(minInterval === undefined ? {} : { minIntervalMs: integer('--progress-interval', minInterval, 0) }),
    headers,
    passHeaders,
    ...(tokenFile === undefined ? {} : { authTokens: readTokens(tokenFile) }),
    connectTimeoutMs: flags.whole('connect-timeout', 30_000),
    ...(adminPort === undefined ? {} : { adminPort: integer('--admin-port', adminPort, 0, 65_535) }),
    drainMs: flags.whole('drain-timeout', 10_000, 0),
    ...(secretFile === undefined ? {} : { requestStateSecret: readSecret(secretFile) }),
    ...(redis === undefined ? {} : { redisUrl: redis }),
    maxInFlight: flags.whole('max-in-flight', DEFAULT_MAX_IN_FLIGHT),
    maxHostInFlight: flags.whole('max-host-in-flight', DEFAULT_MAX_HOST_IN_FLIGHT),
    maxClientSessions: flags.whole('max-client-sessions', DEFAULT_MAX_CLIENT_SESSIONS),
    maxAddressClients: flags.whole('max-address-clients', DEFAULT_MAX_ADDRESS_CLIENTS),
    maxConnections: flags.whole('max-connections', 4_096),
    maxIdleConnectionsPerAddress: flags.whole('max-idle-connections-per-address', 256),
  };
}

/** The parsed flags, read by name. */
class Flags {
  constructor(readonly values: FlagValues) {}

  /** A string flag's value, if given. */
  str(name: string): string | undefined {
    return this.values[name] as string | undefined;
  }

  /** A repeatable flag's values. */
  list(name: string): string[] {
    return (this.values[name] as string[] | undefined) ?? [];
  }

  /** A whole-number flag, `fallback` when not given. */
  whole(name: string, fallback: number, min = 1, max = Number.MAX_SAFE_INTEGER): number {
    const text = this.str(name);
    return text === undefined ? fallback : integer(`--${name}`, text, min, max);
  }
}

/** `--upstream-stdio` or `--upstream-http` (exactly one), with `--upstream-revision`. */
function upstreamOf(flags: Flags): ProxyOptions['upstream'] {
  const upstreamStdio = flags.str('upstream-stdio');
  const upstreamHttp = flags.str('upstream-http');
  if ((upstreamStdio === undefined) === (upstreamHttp === undefined)) {
    throw new UsageError('give exactly one of --upstream-stdio and --upstream-http');
  }
  const rev = flags.str('upstream-revision') ?? 'auto';
  if (rev !== 'auto' && !isRevision(rev))
    throw new UsageError(`--upstream-revision: unknown revision ${rev}`);
  const revision: Revision | 'auto' = rev;
  return upstreamStdio !== undefined
    ? { kind: 'stdio', commandLine: upstreamStdio, revision }
    : { kind: 'http', url: validUrl(upstreamHttp as string), revision };
}

/** `--header` and `--header-from-env` (read from `env` now): an HTTP upstream's headers. */
function headersOf(
  flags: Flags,
  env: NodeJS.ProcessEnv,
  upstream: ProxyOptions['upstream'],
): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const h of flags.list('header')) {
    const [name, value] = headerParts('--header', h);
    headers[name] = value;
  }
  for (const h of flags.list('header-from-env')) {
    const [name, variable] = headerParts('--header-from-env', h);
    const value = env[variable];
    if (value === undefined) throw new UsageError(`--header-from-env: env ${variable} is not set`);
    headers[name] = value;
  }
  if (Object.keys(headers).length > 0 && upstream.kind !== 'http') {
    throw new UsageError('--header and --header-from-env need an HTTP upstream (--upstream-http)');
  }
  return headers;
}

/** `--pass-header` names, lowercased; they need HTTP on both sides. */
function passHeadersOf(flags: Flags, upstream: ProxyOptions['upstream'], http: string | undefined): string[] {
  const passHeaders = flags.list('pass-header').map((name) => {
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name))
      throw new UsageError(`--pass-header takes a header name, not ${JSON.stringify(name)}`);
    return name.toLowerCase();
  });
  if (passHeaders.length > 0 && (upstream.kind !== 'http' || http === undefined)) {
    throw new UsageError('--pass-header needs an HTTP upstream (--upstream-http) and HTTP hosts (--http)');
  }
  return passHeaders;
}

/** The secret's bytes, without the newline an editor or `echo` leaves; at least 32 of them. */
function readSecret(file: string): Uint8Array {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    throw new UsageError(
      `--request-state-secret-file: cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`,
    );
  }
  let end = bytes.length;
  if (bytes[end - 1] === 0x0a) end--;
  if (bytes[end - 1] === 0x0d) end--;
  if (end < 32)
    throw new UsageError(
      `--request-state-secret-file: ${file} holds ${end} bytes; the secret must be at least 32`,
    );
  return new Uint8Array(bytes.subarray(0, end));
}

function integer(flag: string, text: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(n) || n < min || n > max) {
    throw new UsageError(`${flag} takes a whole number from ${min} to ${max}, not ${JSON.stringify(text)}`);
  }
  return n;
}

/** `"Name: value"` into its two parts; the name must be a valid header name. */
function headerParts(flag: string, text: string): [string, string] {
  const colon = text.indexOf(':');
  const name = colon < 0 ? '' : text.slice(0, colon).trim();
  const value = colon < 0 ? '' : text.slice(colon + 1).trim();
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name) || value === '' || /[\r\n]/.test(value)) {
    throw new UsageError(`${flag} takes "Name: value", not ${JSON.stringify(text)}`);
  }
  return [name, value];
}

function commaList(text: string): readonly string[] | '*' {
  if (text.trim() === '*') return '*';
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

function readTokens(file: string): string[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(
      `--auth-token-file: cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`,
    );
  }
  const tokens: string[] = [];
  for (const [index, raw] of text
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)
    .entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    // A line the bearer check can never match would lock its host out unseen: refuse it, naming the
    // line but never the token.
    if (!BEARER_TOKEN.test(line)) {
      const what = /\s/.test(line) ? 'a space' : 'a character other than visible ASCII';
      throw new UsageError(
        `--auth-token-file: line ${index + 1} of ${file} holds ${what}, so no Authorization header can match it; a token is one word of visible ASCII, and a comment is a line of its own starting with #`,
      );
    }
    tokens.push(line);
  }
  if (tokens.length === 0) throw new UsageError(`--auth-token-file: ${file} holds no token`);
  return tokens;
}

function validUrl(text: string): string {
  try {
    const url = new URL(text);
    if (url.protocol === 'http:' || url.protocol === 'https:') return url.href;
  } catch {
    // fall through to the error below
  }
  throw new UsageError(`--upstream-http needs an http(s) URL, not ${JSON.stringify(text)}`);
}
