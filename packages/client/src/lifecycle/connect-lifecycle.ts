import type { Endpoint, TimerHandle } from '@mcp-inflight/core';
import {
  InflightError,
  isRevision,
  JsonRpcError,
  JsonRpcErrorCode,
  REVISIONS,
  type Revision,
} from '@mcp-inflight/core';
import {
  hasStreamableHttp,
  isLegacy,
  LATEST_LEGACY_REVISION,
  MODERN_REVISION,
  SERVER_INFO_META_KEY,
} from '@mcp-inflight/core/adapter';
import {
  type ClientIdentity,
  type ConnectOptions,
  NegotiationError,
  type ServerHandshake,
} from './handshake.js';

/**
 * What a transport adds to the handshake; everything else is the same on every transport.
 *
 * @example
 * ```ts
 * import type { LifecycleHooks } from '@mcp-inflight/client';
 * const hooks: LifecycleHooks = {}; // stdio adds nothing; HTTP sets its protocol-version header here
 * ```
 */
export interface LifecycleHooks {
  /** Told the legacy revision the server chose, before `notifications/initialized` goes out. */
  onLegacySession?(revision: Revision): void;
  /** Sends `notifications/initialized` and waits until it is accepted. @default `endpoint.notify` */
  sendInitialized?(): Promise<void>;
}

/**
 * The one client handshake, for every transport: a legacy revision is negotiated with `initialize`
 * [M17 M18]; `'auto'` and `'2026-07-28'` probe with `server/discover` first [M8 M14] and read the answer,
 * never keyed to one error code [M15]: a `DiscoverResult` offering 2026-07-28 is a modern server; a
 * modern `UnsupportedProtocolVersion` error lists what the server speaks (a legacy revision we speak
 * there means `initialize` with it); a header mismatch, a rejected envelope (HTTP 400 invalid params),
 * an auth or server failure, or our own abort ends the handshake; any other error, or silence within
 * `probeTimeoutMs`, means a legacy server [M14 H46]. `initialize` is never cancelled on the wire [CN7].
 * Sets `endpoint.revision`: no transport assigns it.
 *
 * @example
 * ```ts
 * import { connectLifecycle } from '@mcp-inflight/client';
 * import { Endpoint } from '@mcp-inflight/core';
 * const endpoint = new Endpoint({ role: 'client', transport: 'stdio', channel: { write: () => {} } });
 * const server = await connectLifecycle(endpoint, {
 *   clientInfo: { name: 'my-host', version: '1.0.0' },
 *   capabilities: {},
 * });
 * console.log(server.revision, server.era, server.serverInfo?.name);
 * ```
 */
export async function connectLifecycle(
  endpoint: Endpoint,
  identity: ClientIdentity,
  options: ConnectOptions = {},
  hooks: LifecycleHooks = {},
): Promise<ServerHandshake> {
  const requested = options.revision ?? 'auto';
  const supported = REVISIONS.filter((r) => endpoint.transport !== 'http' || hasStreamableHttp(r));
  if (requested !== 'auto' && !supported.includes(requested)) {
    const reason = `${requested} is not spoken over ${endpoint.transport}`;
    throw new NegotiationError(reason, requested, [], supported);
  }
  const shake: Handshaking = { endpoint, identity, options, hooks, supported };
  if (requested !== 'auto' && isLegacy(requested)) return initialize(shake, requested);
  const verdict = await probe(shake);
  if ('handshake' in verdict) {
    if (verdict.handshake.era === 'modern') endpoint.revision = MODERN_REVISION;
    return verdict.handshake;
  }
  if (requested === MODERN_REVISION) {
    // A refused probe says why (an HTTP 404 names the URL), not "offered []".
    const why = verdict.refusal
      ? `was refused (${verdict.refusal.message})`
      : `offered ${JSON.stringify(verdict.offered)}`;
    throw new NegotiationError(
      `server/discover ${why}, not ${MODERN_REVISION}`,
      requested,
      verdict.offered,
      supported,
      {
        cause: verdict.refusal,
      },
    );
  }
  const handshake = await initialize(shake, verdict.legacy);
  return { ...handshake, fallback: REFUSED };
}

/** What one handshake works with, the same from the probe to `notifications/initialized`. */
interface Handshaking {
  readonly endpoint: Endpoint;
  readonly identity: ClientIdentity;
  readonly options: ConnectOptions;
  readonly hooks: LifecycleHooks;
  /** The revisions spoken over the endpoint's transport. */
  readonly supported: readonly Revision[];
}

/** The fields of an `InitializeResult` or a `DiscoverResult` the handshake reads. */
interface HandshakeFields {
  protocolVersion?: unknown;
  supportedVersions?: unknown;
  serverInfo?: unknown;
  capabilities?: unknown;
  instructions?: unknown;
  _meta?: unknown;
}

/** The fields of a refusal's `data` the probe reads (`httpStatus`: set by the HTTP client). */
interface RefusalData {
  httpStatus?: unknown;
  supported?: unknown;
}

/**
 * A handshake (a modern server's, or a legacy one that answered `initialize` while the probe waited), or
 * the legacy revision to initialize with and what the server named.
 */
type ProbeVerdict =
  | { handshake: ServerHandshake }
  | { legacy: Revision; offered: readonly unknown[]; refusal?: JsonRpcError };

/** A fallback's reason when the probe was answered. */
const REFUSED = 'server/discover refused';

/** How long `server/discover` may go unanswered before `initialize` is tried as well. */
const DEFAULT_PROBE_MS = 5_000;
/** The handshake's one bound, probe and `initialize` together. */
const DEFAULT_CONNECT_MS = 30_000;

async function probe(shake: Handshaking): Promise<ProbeVerdict> {
  const { endpoint, options, supported } = shake;
  // The probe's own stop, so its cancel names the probe (not CEILING); the caller's abort still ends it.
  const stop = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
  const limitMs = options.timeoutMs ?? DEFAULT_CONNECT_MS;
  const discover = endpoint
    .request(
      'server/discover',
      {},
      { revision: MODERN_REVISION, idleMs: limitMs, ceilingMs: limitMs, progress: false, signal },
    )
    .then(ok, fail);
  let timer: TimerHandle | undefined;
  const grace = new Promise<undefined>((resolve) => {
    timer = endpoint.clock.setTimer(() => resolve(undefined), options.probeTimeoutMs ?? DEFAULT_PROBE_MS);
  });
  try {
    const first = await Promise.race([discover, grace]);
    if (first) return read(first, supported);
    // The grace is no verdict: a modern server still starting (`npx -y …`) has not read the probe yet.
    // So `initialize` goes out too and the first answer decides: a stdio pipe keeps order, so a server
    // answering `initialize` read the probe before it and ignored it: it is legacy [M14].
    const init = sendInitialize(shake, LATEST_LEGACY_REVISION).then(
      (value) => ({ init: value }),
      () => discover,
    );
    const next = await Promise.race([discover, init]);
    const verdict = 'init' in next ? undefined : read(next, supported);
    if (verdict && 'handshake' in verdict) return verdict;
    const answered = 'init' in next ? next : await init;
    if (!('init' in answered)) return verdict ?? read(answered, supported);
    stop.abort(new InflightError('CANCELLED', 'server/discover probe: initialize answered first'));
    const handshake = await initialize(shake, LATEST_LEGACY_REVISION, Promise.resolve(answered.init));
    return { handshake: { ...handshake, fallback: verdict ? REFUSED : 'server/discover unanswered' } };
  } finally {
    timer?.clear();
  }
}

type Settled = { value: unknown } | { error: unknown };
const ok = (value: unknown): Settled => ({ value });
const fail = (error: unknown): Settled => ({ error });

function read(settled: Settled, supported: readonly Revision[]): ProbeVerdict {
  if ('error' in settled) return fromRefusal(settled.error, supported);
  const result: Record<string, unknown> & HandshakeFields = asObject(settled.value);
  const offered = Array.isArray(result.supportedVersions) ? (result.supportedVersions as unknown[]) : [];
  if (!offered.includes(MODERN_REVISION)) {
    return { legacy: bestLegacy(offered, supported), offered };
  }
  const meta = asObject(result._meta);
  const handshake: ServerHandshake = {
    revision: MODERN_REVISION,
    era: 'modern',
    serverInfo: (meta[SERVER_INFO_META_KEY] ?? result.serverInfo) as ServerHandshake['serverInfo'],
    capabilities: asObject(result.capabilities),
    instructions: typeof result.instructions === 'string' ? result.instructions : undefined,
    result,
  };
  return { handshake };
}

/** Reads a failed probe: legacy unless the error says the server is modern or the exchange itself broke. */
function fromRefusal(error: unknown, supported: readonly Revision[]): ProbeVerdict {
  if (InflightError.is(error)) {
    // Silence for the whole connect limit: legacy, as the spec reads [M14]; our abort or a dead peer ends it.
    if (error.isTimeout && error.origin === 'local') return { legacy: LATEST_LEGACY_REVISION, offered: [] };
    throw error;
  }
  if (!(error instanceof JsonRpcError)) throw error;
  const data: RefusalData = asObject(error.data);
  const status = typeof data.httpStatus === 'number' ? data.httpStatus : undefined;
  if (status === 401 || status === 403 || (status !== undefined && status >= 500)) throw error;
  if (error.code === JsonRpcErrorCode.UnsupportedProtocolVersion) {
    const offered = Array.isArray(data.supported) ? (data.supported as unknown[]) : [];
    // A modern server that refuses our version and names none we speak: do not fall back [stdio compat].
    if (offered.includes(MODERN_REVISION) || !offered.some((v) => isUsableLegacy(v, supported))) {
      throw new NegotiationError(
        `${MODERN_REVISION} refused; offered ${JSON.stringify(offered)}`,
        MODERN_REVISION,
        offered,
        supported,
        { cause: error },
      );
    }
    return { legacy: bestLegacy(offered, supported), offered };
  }
  if (error.code === JsonRpcErrorCode.HeaderMismatch) throw error;
  if (error.code === JsonRpcErrorCode.InvalidParams && status === 400) throw error;
  return { legacy: LATEST_LEGACY_REVISION, offered: [], refusal: error };
}

/** Legacy `initialize`, then `notifications/initialized` [M18]. Never cancelled on the wire [CN7]. */
async function initialize(
  shake: Handshaking,
  revision: Revision,
  sent = sendInitialize(shake, revision),
): Promise<ServerHandshake> {
  const { endpoint, hooks, supported } = shake;
  const result: Record<string, unknown> & HandshakeFields = asObject(await sent);
  const chosen = result.protocolVersion;
  if (!isRevision(chosen) || !isLegacy(chosen) || !supported.includes(chosen)) {
    // The client SHOULD disconnect when it does not speak the server's choice [M17].
    throw new NegotiationError(
      `unsupported protocol version ${JSON.stringify(chosen)} on ${endpoint.transport}`,
      revision,
      [chosen],
      supported,
    );
  }
  endpoint.revision = chosen;
  hooks.onLegacySession?.(chosen);
  if (hooks.sendInitialized) await hooks.sendInitialized();
  else endpoint.notify('notifications/initialized');
  return {
    revision: chosen,
    era: 'legacy',
    serverInfo: result.serverInfo as ServerHandshake['serverInfo'],
    capabilities: asObject(result.capabilities),
    instructions: typeof result.instructions === 'string' ? result.instructions : undefined,
    result,
  };
}

function sendInitialize({ endpoint, identity, options }: Handshaking, revision: Revision): Promise<unknown> {
  const limitMs = options.timeoutMs ?? DEFAULT_CONNECT_MS;
  return endpoint.request(
    'initialize',
    { protocolVersion: revision, capabilities: identity.capabilities, clientInfo: identity.clientInfo },
    {
      revision,
      idleMs: limitMs,
      ceilingMs: limitMs,
      progress: false,
      ...(options.signal ? { signal: options.signal } : {}),
    },
  );
}

/** The newest legacy revision we speak among `offered`, else the newest we speak. */
function bestLegacy(offered: readonly unknown[], supported: readonly Revision[]): Revision {
  const usable = offered.filter((v): v is Revision => isUsableLegacy(v, supported));
  return usable.sort().at(-1) ?? LATEST_LEGACY_REVISION;
}

function isUsableLegacy(value: unknown, supported: readonly Revision[]): value is Revision {
  return isRevision(value) && isLegacy(value) && supported.includes(value);
}

function asObject(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}
