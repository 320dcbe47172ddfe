import { JsonRpcError, JsonRpcErrorCode } from '@mcp-inflight/core';

/**
 * What a sealed `requestState` is bound to: presented with any other binding it is rejected [MR5]. The
 * principal is whoever the server authenticated (a user, a session, a proxy's host connection); the
 * request is the method and its salient params (see {@link bindingOf}).
 *
 * @example
 * ```ts
 * import type { StateBinding } from '@mcp-inflight/server/input';
 * const binding: StateBinding = { principal: 'user-42', method: 'tools/call', params: { name: 'deploy' } };
 * ```
 */
export interface StateBinding {
  /** The authenticated principal, when the server has one. */
  principal?: string;
  /** The originating request's method. */
  method: string;
  /** Its salient params (compared by content, key order aside). */
  params?: unknown;
}

/**
 * Options for {@link RequestStateSigner}.
 *
 * @example
 * ```ts
 * import type { RequestStateSignerOptions } from '@mcp-inflight/server/input';
 * const options: RequestStateSignerOptions = { ttlMs: 120_000 };
 * ```
 */
export interface RequestStateSignerOptions {
  /**
   * The HMAC-SHA256 secret (at least 32 bytes). Servers behind a load balancer share one so any instance
   * can verify a retry. @default a random key made once per process (a retry must reach the same process)
   */
  secret?: Uint8Array;
  /** How long a sealed state stays valid [MR5]. @default 600_000 (10 minutes) */
  ttlMs?: number;
  /** Wall-clock time in ms since the epoch (the expiry must mean the same on every instance). @default Date.now */
  now?: () => number;
}

/**
 * Longer states are refused before any crypto: nothing legitimate of ours is this large.
 *
 * @example
 * ```ts
 * import { MAX_REQUEST_STATE_CHARS } from '@mcp-inflight/server/input';
 * const tooLong = (state: string) => state.length > MAX_REQUEST_STATE_CHARS; // rejected with -32602
 * ```
 */
export const MAX_REQUEST_STATE_CHARS = 65_536;

const LABEL = 'mcp-inflight.requestState.v1';
const PREFIX = 'v1.';

let processKey: Promise<CryptoKey> | undefined;

/**
 * Seals and opens `requestState` so a server can trust what comes back: HMAC-SHA256 over the payload, its
 * expiry and its binding (principal, method, salient params), with WebCrypto (`globalThis.crypto.subtle`,
 * in Node 20+ and browsers). The client sees the payload (it is signed, not encrypted): keep secrets out
 * of it. Verification is WebCrypto's own `verify`, which compares in constant time. Anything that fails
 * (tampered, expired, bound to another principal or request, not ours at all) is rejected with -32602
 * (invalid params, `data.reason: 'invalid_request_state'`) [MR4b]. A state may be replayed within its
 * lifetime by the same principal on the same request; a server that needs single use records what it
 * consumed [MR5].
 *
 * @example
 * ```ts
 * import { bindingOf, RequestStateSigner } from '@mcp-inflight/server/input';
 * const signer = new RequestStateSigner({ ttlMs: 120_000 });
 * const binding = bindingOf('tools/call', { name: 'deploy', arguments: { env: 'prod' } });
 * const state = await signer.seal({ step: 2 }, binding);
 * const payload = await signer.open<{ step: number }>(state, binding); // { step: 2 }
 * ```
 */
export class RequestStateSigner {
  /** How long a sealed state stays valid, in ms. */
  readonly ttlMs: number;
  readonly #key: Promise<CryptoKey>;
  readonly #now: () => number;

  constructor(options: RequestStateSignerOptions = {}) {
    this.ttlMs = options.ttlMs ?? 600_000;
    if (!(this.ttlMs > 0)) throw new RangeError(`ttlMs must be positive, got ${this.ttlMs}`);
    this.#now = options.now ?? Date.now;
    const secret = options.secret;
    if (secret !== undefined && secret.byteLength < 32)
      throw new RangeError('the requestState secret must be at least 32 bytes');
    if (secret === undefined) {
      processKey ??= randomKey();
      this.#key = processKey;
    } else this.#key = importKey(secret);
  }

  /** Seals `payload` (any JSON value) for `binding`, valid for `ttlMs`. */
  async seal(payload: unknown, binding: StateBinding): Promise<string> {
    const body = toBase64Url(encoder.encode(JSON.stringify({ e: this.#now() + this.ttlMs, d: payload })));
    const mac = await crypto.subtle.sign('HMAC', await this.#key, signed(body, binding));
    return `${PREFIX}${body}.${toBase64Url(new Uint8Array(mac))}`;
  }

  /** Opens a state presented with `binding`; rejects with -32602 unless it is ours, intact, bound to it and live. */
  async open<T = unknown>(state: unknown, binding: StateBinding): Promise<T> {
    if (typeof state !== 'string' || state.length > MAX_REQUEST_STATE_CHARS || !state.startsWith(PREFIX))
      throw invalidState('not a requestState this server issued');
    const dot = state.indexOf('.', PREFIX.length);
    const body = state.slice(PREFIX.length, dot);
    const mac = dot === -1 ? undefined : fromBase64Url(state.slice(dot + 1));
    if (mac === undefined) throw invalidState('malformed');
    const ok = await crypto.subtle.verify('HMAC', await this.#key, mac, signed(body, binding));
    if (!ok) throw invalidState('failed verification');
    const bytes = fromBase64Url(body);
    let parsed: { e?: unknown; d?: unknown };
    try {
      parsed = JSON.parse(decoder.decode(bytes)) as { e?: unknown; d?: unknown };
    } catch {
      throw invalidState('malformed');
    }
    if (typeof parsed.e !== 'number' || !(this.#now() < parsed.e)) throw invalidState('expired');
    return parsed.d as T;
  }
}

/**
 * The binding for a request: its method and its salient params (`name`, `arguments`, `uri`), leaving out
 * `_meta` and the retry's own `inputResponses` and `requestState`.
 *
 * @example
 * ```ts
 * import { bindingOf } from '@mcp-inflight/server/input';
 * bindingOf('tools/call', { name: 'deploy', arguments: { env: 'prod' }, _meta: {} }, 'user-42');
 * // { method: 'tools/call', params: { name: 'deploy', arguments: { env: 'prod' } }, principal: 'user-42' }
 * ```
 */
export function bindingOf(
  method: string,
  params: Record<string, unknown> | undefined,
  principal?: string,
): StateBinding {
  const { _meta: _m, inputResponses: _i, requestState: _r, ...salient } = params ?? {};
  return principal === undefined ? { method, params: salient } : { method, params: salient, principal };
}

function invalidState(why: string): JsonRpcError {
  return new JsonRpcError(JsonRpcErrorCode.InvalidParams, `Invalid or expired requestState (${why})`, {
    reason: 'invalid_request_state',
  });
}

const encoder = /* @__PURE__ */ new TextEncoder();
const decoder = /* @__PURE__ */ new TextDecoder();

/** What the MAC covers: a label, the body (payload and expiry), and the binding in a canonical form. */
function signed(body: string, binding: StateBinding): Uint8Array<ArrayBuffer> {
  const bound = canonical([binding.principal ?? null, binding.method, binding.params ?? null]);
  return encoder.encode(`${LABEL}\n${body}\n${bound}`);
}

/** JSON with object keys sorted, so `{a, b}` and `{b, a}` bind alike. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

async function randomKey(): Promise<CryptoKey> {
  return importKey(crypto.getRandomValues(new Uint8Array(32)));
}

function importKey(secret: Uint8Array): Promise<CryptoKey> {
  const bytes = new Uint8Array(secret); // a copy on a plain ArrayBuffer, as WebCrypto wants
  return crypto.subtle.importKey('raw', bytes, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
}

function toBase64Url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(text: string): Uint8Array<ArrayBuffer> {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return new Uint8Array(0);
  const base64 = text.replace(/-/g, '+').replace(/_/g, '/');
  let binary: string;
  try {
    binary = atob(base64 + '='.repeat((4 - (base64.length % 4)) % 4));
  } catch {
    return new Uint8Array(0);
  }
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
