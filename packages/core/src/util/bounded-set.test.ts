import { describe, expect, it } from 'vitest';
import { BoundedSet } from './bounded-set.js';

describe('BoundedSet', () => {
  it('forgets the oldest member past its limit; re-adding makes a member the newest', () => {
    const set = new BoundedSet<number | string>(2);
    set.add(1);
    set.add('1');
    set.add(1); // now newest
    set.add(2);
    expect([set.has(1), set.has('1'), set.has(2), set.size]).toEqual([true, false, true, 2]);
    set.delete(1);
    expect(set.has(1)).toBe(false);
  });
});
