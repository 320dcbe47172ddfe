import {
  type Endpoint,
  InflightError,
  isLegacy,
  isRevision,
  JsonRpcError,
  JsonRpcErrorCode,
  LATEST_LEGACY_REVISION,
  MODERN_REVISION,
  type Revision,
  SERVER_INFO_META_KEY,
} from '@mcp-inflight/core';

/**
 * Who the client says it is, and what it offers.
 *
 * @example
 * ```ts
 * import { type ClientIdentity, spawnStdio } from '@mcp-inflight/stdio';
 * const identity: ClientIdentity = {
 *   clientInfo: { name: 'my-host', version: '3.2.0' },
 *   capabilities: { sampling: {} }, // sent in initialize, or in every 2026-07-28 request's _meta
 * };
 * const client = spawnStdio('node server.js', identity);
 * ```
 */
export interface ClientIdentity {
  clientInfo: { name: string; version: string; [key: string]: unknown };
  capabilities: Record<string, unknown>;
}

/**
 * Options for `StdioClient.connect()`.
 *
 * @example
 * ```ts
 * import { type ConnectOptions, spawnStdio } from '@mcp-inflight/stdio';
 * const client = spawnStdio('node server.js');
 * const options: ConnectOptions = {
 *   revision: '2026-07-28',
 *   fallback: false, // a legacy server is an error here, not a fallback to initialize
 *   probeTimeoutMs: 2_000,
 *   signal: AbortSignal.timeout(10_000), // stops the wait; initialize itself is never cancelled on the wire
 * };
 * await client.connect(options);
 * ```
 */
export interface ConnectOptions {
  /**
   * The revision to speak. A legacy revision is negotiated with `initialize`; `2026-07-28` probes with
   * `server/discover` first and, unless `fallback` is false, falls back to `initialize` for a legacy
   * server [M14 M15]. @default '2025-11-25'
   */
  revision?: Revision;
  /** With `2026-07-28`: fall back to the newest legacy revision when the server is not modern. @default true */
  fallback?: boolean;
  /** Aborts the handshake. `initialize` is never cancelled on the wire [CN7]; the call just stops waiting. */
  signal?: AbortSignal;
  /** Limit for each handshake request (idle and ceiling). @default 30 000 */
  timeoutMs?: number;
  /** How long `server/discover` may take before the server is taken as legacy [stdio: Backward Compatibility]. @default 5 000 */
  probeTimeoutMs?: number;
}

/**
 * What the handshake settled.
 *
 * @example
 * ```ts
 * import { type ServerHandshake, spawnStdio } from '@mcp-inflight/stdio';
 * const client = spawnStdio('node server.js');
 * const server: ServerHandshake = await client.connect({ revision: '2026-07-28' });
 * if (server.era === 'legacy') console.error(`a legacy server: ${server.revision}, after initialize`);
 * console.error(server.serverInfo?.name ?? 'an unnamed server', Object.keys(server.capabilities));
 * ```
 */
export interface ServerHandshake {
  /** The revision the connection speaks from now on. */
  revision: Revision;
  /** `modern` for 2026-07-28 (per-request `_meta`), `legacy` for an `initialize` session. */
  era: 'legacy' | 'modern';
  serverInfo: { name: string; version: string; [key: string]: unknown } | undefined;
  capabilities: Record<string, unknown>;
  instructions: string | undefined;
  /** The result as the server sent it (an `InitializeResult` or a `DiscoverResult`). */
  result: Record<string, unknown>;
}

/**
 * Negotiates a revision with a server over an existing client endpoint, as the spec's stdio
 * backward-compatibility section describes. Sets `endpoint.revision`.
 */
export async function handshake(
  endpoint: Endpoint,
  identity: ClientIdentity,
  options: ConnectOptions,
): Promise<ServerHandshake> {
  const revision = options.revision ?? LATEST_LEGACY_REVISION;
  if (isLegacy(revision)) return initialize(endpoint, identity, revision, options);
  const discovered = await probe(endpoint, options);
  if (discovered) return discovered;
  if (options.fallback === false) {
    throw new Error('the server did not answer server/discover as a 2026-07-28 server, and fallback is off');
  }
  return initialize(endpoint, identity, LATEST_LEGACY_REVISION, options);
}

/** Probes with `server/discover`; `undefined` means "legacy server: fall back" [M14 M15]. */
async function probe(endpoint: Endpoint, options: ConnectOptions): Promise<ServerHandshake | undefined> {
  const limitMs = options.probeTimeoutMs ?? 5_000;
  let result: Record<string, unknown>;
  try {
    const value = await endpoint.request(
      'server/discover',
      {}, // the endpoint stamps the 2026-07-28 envelope, identity included
      {
        revision: MODERN_REVISION,
        idleMs: limitMs,
        ceilingMs: limitMs,
        ...(options.signal ? { signal: options.signal } : {}),
      },
    );
    result = asObject(value);
  } catch (error) {
    // A modern server that does not speak our version: do not fall back [stdio: Backward Compatibility].
    if (error instanceof JsonRpcError && error.code === JsonRpcErrorCode.UnsupportedProtocolVersion)
      throw error;
    // Any other error, or silence, means legacy; but our own abort or a dead server ends the connect.
    if (error instanceof InflightError && !error.isTimeout) throw error;
    if (error instanceof JsonRpcError || error instanceof InflightError) return undefined;
    throw error;
  }
  const supported = Array.isArray(result.supportedVersions) ? result.supportedVersions : [];
  if (!supported.includes(MODERN_REVISION)) return undefined;
  endpoint.revision = MODERN_REVISION;
  const meta = asObject(result._meta);
  return {
    revision: MODERN_REVISION,
    era: 'modern',
    serverInfo: (meta[SERVER_INFO_META_KEY] ?? result.serverInfo) as ServerHandshake['serverInfo'],
    capabilities: asObject(result.capabilities),
    instructions: typeof result.instructions === 'string' ? result.instructions : undefined,
    result,
  };
}

/** Legacy `initialize`, then `notifications/initialized` [M18]. Never cancelled on the wire [CN7]. */
async function initialize(
  endpoint: Endpoint,
  identity: ClientIdentity,
  revision: Revision,
  options: ConnectOptions,
): Promise<ServerHandshake> {
  const limitMs = options.timeoutMs ?? 30_000;
  const value = await endpoint.request(
    'initialize',
    { protocolVersion: revision, capabilities: identity.capabilities, clientInfo: identity.clientInfo },
    { revision, idleMs: limitMs, ceilingMs: limitMs, ...(options.signal ? { signal: options.signal } : {}) },
  );
  const result = asObject(value);
  const chosen = result.protocolVersion;
  if (!isRevision(chosen) || !isLegacy(chosen)) {
    // The client SHOULD disconnect when it does not speak the server's choice [M17].
    throw new Error(
      `the server chose protocol version ${JSON.stringify(chosen)}, which this client does not speak`,
    );
  }
  endpoint.revision = chosen;
  endpoint.notify('notifications/initialized');
  return {
    revision: chosen,
    era: 'legacy',
    serverInfo: result.serverInfo as ServerHandshake['serverInfo'],
    capabilities: asObject(result.capabilities),
    instructions: typeof result.instructions === 'string' ? result.instructions : undefined,
    result,
  };
}

function asObject(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}
