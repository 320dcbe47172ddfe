import { isTokenOrId } from '../schemas/guards.js';
import type { ProgressToken } from '../schemas/types.js';

/**
 * Thrown by {@link TokenRegistry.register} for a token that is active already (PC-02: unique among active).
 *
 * @example
 * ```ts
 * import { DuplicateTokenError, TokenRegistry } from '@mcp-inflight/core';
 * const registry = new TokenRegistry<string>();
 * registry.register('job-1', 'first caller');
 * try {
 *   registry.register('job-1', 'second caller');
 * } catch (error) {
 *   if (error instanceof DuplicateTokenError) console.log(`${error.token} is taken: mint a token instead`);
 * }
 * ```
 */
export class DuplicateTokenError extends Error {
  /** Always `'DuplicateTokenError'`. */
  override readonly name = 'DuplicateTokenError';
  /** The token that is in use. */
  readonly token: ProgressToken;

  constructor(token: ProgressToken) {
    super(`progress token ${JSON.stringify(token)} is already in use by an active request`);
    this.token = token;
  }
}

/**
 * A minted or registered token that releases itself: `using lease = registry.lease(owner)`.
 *
 * @example
 * ```ts
 * import { TokenRegistry } from '@mcp-inflight/core';
 * import { type TokenLease } from '@mcp-inflight/core/adapter';
 * const registry = new TokenRegistry<{ hostToken: string }>({ prefix: 'up-' });
 * {
 *   using lease: TokenLease<{ hostToken: string }> = registry.lease({ hostToken: 'h1' });
 *   lease.token; // 'up-0'
 * } // released here, even if the block throws
 * registry.size; // 0
 * ```
 */
export interface TokenLease<Owner> {
  /** The leased token. */
  readonly token: ProgressToken;
  /** Who holds it. */
  readonly owner: Owner;
  /** Releases the token; a second call is a no-op. */
  release(): void;
  /** Same as `release()`, for `using`. */
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
  // Each binding is its own object, so a lease can tell its entry from a later one for the same token
  // even when the owners are equal primitives.
  #entries = new Map<ProgressToken, { readonly owner: Owner }>();
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
    return this.#entries.size;
  }

  /** Mints a token unique among the active ones and binds it to `owner`. */
  mint(owner: Owner): ProgressToken {
    return this.#mint({ owner });
  }

  #mint(entry: { readonly owner: Owner }): ProgressToken {
    let token: ProgressToken;
    do {
      const n = this.#next;
      this.#next = n >= Number.MAX_SAFE_INTEGER ? 0 : n + 1;
      token = this.#prefix === undefined ? n : `${this.#prefix}${n}`;
    } while (this.#entries.has(token));
    this.#entries.set(token, entry);
    return token;
  }

  /**
   * Binds a caller-chosen token to `owner`.
   * @throws TypeError if the token is not a string or a safe integer.
   * @throws DuplicateTokenError if the token is active already.
   */
  register(token: ProgressToken, owner: Owner): void {
    if (!isTokenOrId(token))
      throw new TypeError(`a progress token is a string or an integer, got ${String(token)}`);
    if (this.#entries.has(token)) throw new DuplicateTokenError(token);
    this.#entries.set(token, { owner });
  }

  /** The owner of an active token, or `undefined`. Never coerces: `"1"` does not find `1`. */
  resolve(token: unknown): Owner | undefined {
    return this.#entries.get(token as ProgressToken)?.owner;
  }

  /** Whether the token is active. */
  has(token: unknown): boolean {
    return this.#entries.has(token as ProgressToken);
  }

  /** Ends a token; returns whether it was active. */
  release(token: ProgressToken): boolean {
    return this.#entries.delete(token);
  }

  /** Mints a token and returns a handle that releases only that entry, once. */
  lease(owner: Owner): TokenLease<Owner> {
    const entry = { owner };
    const token = this.#mint(entry);
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      // Only our own entry: a later registration of the same token is someone else's, even for an equal owner.
      if (this.#entries.get(token) === entry) this.#entries.delete(token);
    };
    return { token, owner, release, [Symbol.dispose]: release };
  }
}
