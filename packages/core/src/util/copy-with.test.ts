import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { copyWith } from './copy-with.js';

describe('copyWith', () => {
  it('copies the source and sets the fields last, leaving the source alone', () => {
    const params = { name: 'echo', arguments: { text: 'hi' }, _meta: { trace: 'a' } };
    const copy = copyWith(params, { _meta: { progressToken: 3 } });
    expect(copy).toEqual({ name: 'echo', arguments: { text: 'hi' }, _meta: { progressToken: 3 } });
    expect(copy.arguments).toBe(params.arguments); // shallow, as a spread is
    expect(params._meta).toEqual({ trace: 'a' });
    expect(Object.keys(copyWith({ a: 1, b: 2 }, { c: 3, a: 4 }))).toEqual(['a', 'b', 'c']);
  });

  it('takes no source as an empty one', () => {
    expect(copyWith(undefined, { _meta: {} })).toEqual({ _meta: {} });
  });

  it("copies a parsed '__proto__' key as data, as a spread does", () => {
    const parsed = JSON.parse('{"__proto__":{"polluted":true},"x":1}') as Record<string, unknown>;
    const copy = copyWith(parsed, { y: 2 }) as Record<string, unknown>;
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(JSON.stringify(copy)).toBe('{"__proto__":{"polluted":true},"x":1,"y":2}');
  });

  it('gives every copy of one shape the same hidden class once optimized (a spread copy gets its own)', () => {
    // V8's own answer, in a child with natives syntax: %HaveSameMap on two copies made after warm-up.
    const script = `
      const copyWith = ${copyWith.toString()};
      const spread = (source, fields) => ({ ...source, ...fields });
      const make = () => ({ name: 'echo', arguments: { text: 'x' } });
      const verdict = (fn) => {
        for (let i = 0; i < 200000; i++) fn(make(), { _meta: { progressToken: i } });
        return %HaveSameMap(fn(make(), { _meta: 1 }), fn(make(), { _meta: 2 }));
      };
      console.log(JSON.stringify({ copyWith: verdict(copyWith), spread: verdict(spread) }));`;
    const out = execFileSync(process.execPath, ['--allow-natives-syntax', '-e', script], {
      encoding: 'utf8',
    });
    const verdicts = JSON.parse(out) as { copyWith: boolean; spread: boolean };
    expect(verdicts.copyWith).toBe(true);
    // The check itself sees the difference on the engine Node 20 ships (V8 11), where it was measured.
    if (process.versions.v8.startsWith('11.')) expect(verdicts.spread).toBe(false);
  });
});
