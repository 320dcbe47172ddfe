import { ManualClock } from '@mcp-inflight/core/testing';
import { describe, expect, it } from 'vitest';
import { settleWithin } from './read-body.js';

const flush = async () => {
  for (let i = 0; i < 5; i++) await Promise.resolve();
};

describe('settleWithin', () => {
  it('settles with the work, or at the bound, and never rejects', async () => {
    const clock = new ManualClock();
    await settleWithin(Promise.reject(new Error('refused')), 1_000, clock);
    expect(clock.pendingTimers).toBe(0);
    let settled = false;
    const bounded = settleWithin(new Promise(() => {}), 1_000, clock).then(() => {
      settled = true;
    });
    clock.advance(999);
    await flush();
    expect(settled).toBe(false);
    clock.advance(1);
    await bounded;
  });
});
