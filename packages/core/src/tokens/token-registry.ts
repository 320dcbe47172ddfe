import type { ProgressToken } from '../schemas/schemas.js';
import { isTokenOrId } from '../schemas/fast-check.js';

/** Thrown by {@link TokenRegistry.register} for a token that is active already (PC-02: unique among active). */
export class DuplicateTokenError extends Error {
  override readonly name = 'DuplicateTokenError';
  constructor(readonly token: ProgressToken) {
    super(`progress token ${JSON.stringify(token)} is already in use by an active request`);
  }
}

/** A minted or registered token that releases itself: `using lease = registry.lease(owner)`. */
export interface TokenLease<Owner> {
  readonly token: ProgressToken;
  readonly owner: Owner;
  release(): void;
  [Symbol.dispose](): void;
}

/**
 * Progress tokens of the active requests, each resolved to its owner in O(1). A proxy mints its own
 * upstream token per call and stores (host connection, host token) as the owner, because a host's
 * tokens are unique only among that host's requests [PG4].
 *
 * Tokens compare exactly: `0` and `""` are real tokens, and `"1"` is not `1` (a Map keyed by the
 * token itself; never `Number(token)`).
 *
 * @example
 * ```ts
 * import { TokenRegistry } from '@mcp-inflight/core';
 * const registry = new TokenRegistry<{ hostToken: string | number }>();
 * const token = registry.mint({ hostToken: 'abc' });
 * registry.resolve(token); // { hostToken: 'abc' }
 * registry.release(token);
 * ```
 */
export class TokenRegistry<Owner = unknown> {
  #owners = new Map<ProgressToken, Owner>();
  #next = 0;
  readonly #prefix: string | undefined;

  /**
   * @param options.prefix mint string tokens `${prefix}${n}` instead of integers, so that minted tokens
   * can never meet caller-chosen integer ones.
   */
  constructor(options: { prefix?: string } = {}) {
    this.#prefix = options.prefix;
  }

  /** Active tokens. */
  get size(): number {
    return this.#owners.size;
  }

  /** Mints a token unique among the active ones and binds it to `owner`. */
  mint(owner: Owner): ProgressToken {
    let token: ProgressToken;
    do {
      const n = this.#next;
      this.#next = n >= Number.MAX_SAFE_INTEGER ? 0 : n + 1;
      token = this.#prefix === undefined ? n : `${this.#prefix}${n}`;
    } while (this.#owners.has(token));
    this.#owners.set(token, owner);
    return token;
  }

  /**
   * Binds a caller-chosen token to `owner`.
   * @throws TypeError if the token is not a string or a safe integer.
   * @throws DuplicateTokenError if the token is active already.
   */
  register(token: ProgressToken, owner: Owner): void {
    if (!isTokenOrId(token)) throw new TypeError(`a progress token is a string or an integer, got ${String(token)}`);
    if (this.#owners.has(token)) throw new DuplicateTokenError(token);
    this.#owners.set(token, owner);
  }

  /** The owner of an active token, or `undefined`. Never coerces: `"1"` does not find `1`. */
  resolve(token: unknown): Owner | undefined {
    return this.#owners.get(token as ProgressToken);
  }

  /** Whether the token is active. */
  has(token: unknown): boolean {
    return this.#owners.has(token as ProgressToken);
  }

  /** Ends a token; returns whether it was active. */
  release(token: ProgressToken): boolean {
    return this.#owners.delete(token);
  }

  /** Mints a token and returns a handle that releases only that entry, once. */
  lease(owner: Owner): TokenLease<Owner> {
    const token = this.mint(owner);
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      // Only our own entry: a later registration of the same token is someone else's.
      if (this.#owners.get(token) === owner) this.#owners.delete(token);
    };
    return { token, owner, release, [Symbol.dispose]: release };
  }
}
