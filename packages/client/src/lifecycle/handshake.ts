import type { Revision } from '@mcp-inflight/core';

/**
 * Who a client says it is, and what it offers.
 *
 * @example
 * ```ts
 * import type { ClientIdentity } from '@mcp-inflight/client';
 * const identity: ClientIdentity = {
 *   clientInfo: { name: 'my-host', version: '3.2.0' },
 *   capabilities: { sampling: {} }, // sent in initialize, or in every 2026-07-28 request's _meta
 * };
 * ```
 */
export interface ClientIdentity {
  /** The client's name and version (`Implementation`), plus any other fields to send. */
  clientInfo: {
    /** The implementation's name. */
    name: string;
    /** Its version. */
    version: string;
    [key: string]: unknown;
  };
  /** The client's capabilities. */
  capabilities: Record<string, unknown>;
}

/**
 * Options for a client's `connect()`, the same on every transport.
 *
 * @example
 * ```ts
 * import type { ConnectOptions } from '@mcp-inflight/client';
 * const options: ConnectOptions = {
 *   revision: '2026-07-28', // only the modern revision: a legacy server is a NegotiationError
 *   probeTimeoutMs: 2_000,
 *   signal: AbortSignal.timeout(10_000), // stops the wait; initialize itself is never cancelled on the wire
 * };
 * ```
 */
export interface ConnectOptions {
  /**
   * `'auto'` probes with 2026-07-28 `server/discover` and falls back to `initialize` when the server is
   * legacy [M14 M15 H46]. `'2026-07-28'` accepts only a modern server. A legacy revision goes straight to
   * `initialize` with it. @default 'auto'
   */
  revision?: Revision | 'auto';
  /** Stops waiting for the handshake. `initialize` is never cancelled on the wire [CN7]. */
  signal?: AbortSignal;
  /**
   * The handshake's bound: `server/discover` and `initialize` each end within it (idle and ceiling).
   * @default 30 000
   */
  timeoutMs?: number;
  /**
   * How long `server/discover` may go unanswered before the server may be legacy [M14]. A server still
   * starting has not read it yet, so after this grace `initialize` goes out as well and the first answer
   * decides (a stdio pipe keeps order): a slow modern start stays modern, and a legacy server that ignores
   * unknown requests pays this grace once. @default 5 000
   */
  probeTimeoutMs?: number;
}

/**
 * What the handshake settled, the same on every transport.
 *
 * @example
 * ```ts
 * import type { McpClient } from '@mcp-inflight/client';
 * declare const client: McpClient;
 * const handshake = await client.connect();
 * console.log(handshake.revision, handshake.era);
 * ```
 */
export interface ServerHandshake {
  /** The revision the connection speaks from now on. */
  revision: Revision;
  /** `modern` for 2026-07-28 (per-request `_meta`), `legacy` for an `initialize` session. */
  era: 'legacy' | 'modern';
  /** The server's name and version, if it sent them. */
  serverInfo:
    | {
        /** The implementation's name. */
        name: string;
        /** Its version. */
        version: string;
        [key: string]: unknown;
      }
    | undefined;
  /** The server's capabilities. */
  capabilities: Record<string, unknown>;
  /** The server's instructions for the model, if any. */
  instructions: string | undefined;
  /** The result as the server sent it (an `InitializeResult` or a `DiscoverResult`). */
  result: Record<string, unknown>;
  /** Why an `'auto'` handshake fell back to a legacy revision (for logs); absent otherwise. */
  fallback?: string;
}

/** Brand shared by every copy of this class (a CJS and an ESM build in one app). */
const NEGOTIATION_BRAND = /* @__PURE__ */ Symbol.for('@mcp-inflight/core.NegotiationError');

/**
 * The client and the server share no revision: the handshake ends with the versions on both sides, so
 * a host can say what to upgrade.
 *
 * @example
 * ```ts
 * import { type McpClient, NegotiationError } from '@mcp-inflight/client';
 * declare const client: McpClient;
 * try {
 *   await client.connect({ revision: '2026-07-28' });
 * } catch (error) {
 *   if (NegotiationError.is(error)) console.error(`server offers ${error.offered}, we speak ${error.supported}`);
 * }
 * ```
 */
export class NegotiationError extends Error {
  /** Always `'NegotiationError'`. */
  override readonly name = 'NegotiationError';
  /** What we asked for. */
  readonly requested: Revision | 'auto';
  /** What the server offered or chose (empty when it named nothing). */
  readonly offered: readonly unknown[];
  /** What this client speaks on its transport. */
  readonly supported: readonly Revision[];

  constructor(
    message: string,
    requested: Revision | 'auto',
    offered: readonly unknown[],
    supported: readonly Revision[],
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.requested = requested;
    this.offered = offered;
    this.supported = supported;
    Object.defineProperty(this, NEGOTIATION_BRAND, { value: true });
  }

  /** True for a NegotiationError from any copy of this package. */
  static is(value: unknown): value is NegotiationError {
    return typeof value === 'object' && value !== null && NEGOTIATION_BRAND in value;
  }
}
