import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ProgressToken } from '../schemas/types.js';
import { DuplicateTokenError, TokenRegistry } from './token-registry.js';

describe('TokenRegistry: minting', () => {
  it('mints tokens unique among the active ones and resolves each to its owner', () => {
    const registry = new TokenRegistry<{ host: string; hostToken: ProgressToken }>();
    const owners = Array.from({ length: 1_000 }, (_, i) => ({ host: `h${i % 3}`, hostToken: i % 7 }));
    const tokens = owners.map((owner) => registry.mint(owner));
    expect(new Set(tokens).size).toBe(1_000);
    for (const [i, token] of tokens.entries()) expect(registry.resolve(token)).toBe(owners[i]);
    expect(registry.size).toBe(1_000);
  });

  it('skips tokens a caller registered, so a minted token never shadows one in use', () => {
    const registry = new TokenRegistry<string>();
    registry.register(0, 'caller-0');
    registry.register(1, 'caller-1');
    const minted = registry.mint('minted');
    expect(minted).toBe(2);
    expect(registry.resolve(0)).toBe('caller-0');
  });

  it('stays unique among active tokens under random mint, register and release', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.record({ op: fc.constant('mint' as const) }),
            fc.record({ op: fc.constant('register' as const), token: fc.integer({ min: 0, max: 20 }) }),
            fc.record({ op: fc.constant('release' as const), pick: fc.nat() }),
          ),
          { maxLength: 100 },
        ),
        (ops) => {
          const registry = new TokenRegistry<number>();
          const active = new Map<ProgressToken, number>();
          ops.forEach((step, owner) => {
            if (step.op === 'mint') {
              const token = registry.mint(owner);
              expect(active.has(token)).toBe(false);
              active.set(token, owner);
            } else if (step.op === 'register') {
              if (active.has(step.token))
                expect(() => registry.register(step.token, owner)).toThrow(DuplicateTokenError);
              else {
                registry.register(step.token, owner);
                active.set(step.token, owner);
              }
            } else if (active.size > 0) {
              const token = [...active.keys()][step.pick % active.size]!;
              expect(registry.release(token)).toBe(true);
              active.delete(token);
            }
          });
          expect(registry.size).toBe(active.size);
          for (const [token, owner] of active) expect(registry.resolve(token)).toBe(owner);
        },
      ),
    );
  });
});

describe('TokenRegistry: registration and exact comparison', () => {
  it('throws DuplicateTokenError for an active token and keeps the first owner', () => {
    const registry = new TokenRegistry<string>();
    registry.register('abc', 'first');
    let error: unknown;
    try {
      registry.register('abc', 'second');
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(DuplicateTokenError);
    expect(error).toBeInstanceOf(Error);
    expect((error as DuplicateTokenError).token).toBe('abc');
    expect((error as DuplicateTokenError).name).toBe('DuplicateTokenError');
    expect(registry.resolve('abc')).toBe('first');
    registry.release('abc');
    expect(() => registry.register('abc', 'again')).not.toThrow();
  });

  it('treats 0 and "" as real tokens', () => {
    const registry = new TokenRegistry<string>();
    registry.register(0, 'zero');
    registry.register('', 'empty');
    expect(registry.resolve(0)).toBe('zero');
    expect(registry.resolve('')).toBe('empty');
    expect(registry.release(0)).toBe(true);
    expect(registry.resolve('')).toBe('empty');
  });

  it('compares exactly: "1" does not resolve 1, nor 1 resolve "1"', () => {
    const registry = new TokenRegistry<string>();
    registry.register(1, 'number');
    expect(registry.resolve('1')).toBeUndefined();
    expect(registry.size).toBe(1);
    registry.register('1', 'string');
    expect(registry.resolve(1)).toBe('number');
    expect(registry.resolve('1')).toBe('string');
    expect(registry.resolve(1.0)).toBe('number');
    expect(registry.resolve(true)).toBeUndefined();
    expect(registry.release('1')).toBe(true);
    expect(registry.resolve(1)).toBe('number');
  });

  it('accepts negative integers and rejects floats, null, NaN, booleans, objects and unsafe integers', () => {
    const registry = new TokenRegistry<string>();
    registry.register(-42, 'negative');
    expect(registry.resolve(-42)).toBe('negative');
    for (const bad of [1.5, null, undefined, Number.NaN, Number.POSITIVE_INFINITY, true, {}, [], 2 ** 53]) {
      expect(() => registry.register(bad as ProgressToken, 'x')).toThrow(TypeError);
    }
    expect(registry.size).toBe(1);
  });

  it('release reports whether the token was active', () => {
    const registry = new TokenRegistry<string>();
    const token = registry.mint('o');
    expect(registry.release(token)).toBe(true);
    expect(registry.release(token)).toBe(false);
    expect(registry.size).toBe(0);
  });
});
