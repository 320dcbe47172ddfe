import { isTokenOrId } from '../schemas/guards.js';
import type { ProgressToken } from '../schemas/types.js';
import type { IdTable } from '../util/id-table.js';

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
 * Progress tokens of the outbound requests in flight, each resolved to its owner in O(1). It is the table
 * every `Endpoint` routes outbound progress through: a call's token is minted here (or registered, when the
 * caller brings one), looked up for each `notifications/progress`, and released when the call settles. A
 * proxy's upstream calls get tokens minted here, never the hosts' own: a host's tokens are unique only among
 * that host's requests [PG4].
 *
 * Tokens compare exactly: `0` and `""` are real tokens, and `"1"` is not `1` (a Map keyed by the token
 * itself; never `Number(token)`).
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
  readonly #entries: Map<ProgressToken, Owner> | IdTable<Owner>;
  #next = 0;

  /**
   * @param table Where the tokens are kept. A registry with a token minted and released per call (an
   * `Endpoint`'s) is given an `IdTable` from `@mcp-inflight/core/adapter`: a Map churned that way is
   * carried through young collections on Node 20 (see IdTable). The default Map keeps this primitive's
   * bundle small.
   */
  constructor(table: Map<ProgressToken, Owner> | IdTable<Owner> = new Map()) {
    this.#entries = table;
  }

  /** Tokens active now. */
  get size(): number {
    return this.#entries.size;
  }

  /** A token unique among the active ones, bound to `owner` until {@link TokenRegistry.release}. */
  mint(owner: Owner): ProgressToken {
    let token: number;
    do {
      token = this.#next;
      this.#next = token >= Number.MAX_SAFE_INTEGER ? 0 : token + 1;
    } while (this.#entries.has(token));
    this.#entries.set(token, owner);
    return token;
  }

  /**
   * Binds a token the caller brought.
   *
   * @throws {TypeError} when `token` is not a string or an integer
   * @throws {DuplicateTokenError} when `token` is active already [PG4]
   */
  register(token: ProgressToken, owner: Owner): void {
    if (!isTokenOrId(token))
      throw new TypeError(`a progress token is a string or an integer, got ${String(token)}`);
    if (this.#entries.has(token)) throw new DuplicateTokenError(token);
    this.#entries.set(token, owner);
  }

  /** The owner of an active token, compared exactly; `undefined` for any other value. */
  resolve(token: unknown): Owner | undefined {
    return this.#entries.get(token as ProgressToken);
  }

  /** Ends a token's binding; returns whether it was active. */
  release(token: ProgressToken): boolean {
    return this.#entries.delete(token);
  }
}
