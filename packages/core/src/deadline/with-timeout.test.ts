import { describe, expect, it } from 'vitest';
import { ManualClock } from '../clock/manual-clock.js';
import { InflightError } from '../errors/inflight-error.js';
import { withTimeout } from './with-timeout.js';

const never = (): Promise<never> => new Promise<never>(() => {});

describe('withTimeout', () => {
  it('rejects with a CEILING InflightError when the ManualClock passes the limit', async () => {
    const clock = new ManualClock();
    const bounded = withTimeout(never(), 250, { clock });
    clock.advance(249);
    let settled = false;
    bounded.catch(() => {
      settled = true;
    });
    await Promise.resolve();
    expect(settled).toBe(false);
    clock.advance(1);
    const error = await bounded.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InflightError);
    expect((error as InflightError).code).toBe('CEILING');
    expect((error as InflightError).details.limitMs).toBe(250);
    expect((error as InflightError).wireReason()).toContain('250 ms');
  });

  it('resolves with the value when the work finishes in time, and leaves no timer behind', async () => {
    const clock = new ManualClock();
    let finish!: (value: string) => void;
    const work = new Promise<string>((resolve) => {
      finish = resolve;
    });
    const bounded = withTimeout(work, 1_000, { clock });
    clock.advance(500);
    finish('done');
    await expect(bounded).resolves.toBe('done');
    expect(clock.pendingTimers).toBe(0);
  });

  it('passes a rejection of the work through untouched', async () => {
    const clock = new ManualClock();
    const boom = new Error('boom');
    await expect(withTimeout(Promise.reject(boom), 1_000, { clock })).rejects.toBe(boom);
    expect(clock.pendingTimers).toBe(0);
  });

  it('rejects with the signal reason when the signal aborts first', async () => {
    const clock = new ManualClock();
    const controller = new AbortController();
    const bounded = withTimeout(never(), 1_000, { clock, signal: controller.signal });
    const why = InflightError.cancelled('user pressed stop');
    controller.abort(why);
    await expect(bounded).rejects.toBe(why);
    expect(clock.pendingTimers).toBe(0);
    clock.advance(1_000); // the timer was cleared: nothing fires late
  });

  it('rejects at once with the reason of a signal that already aborted', async () => {
    const clock = new ManualClock();
    const why = new Error('already gone');
    await expect(withTimeout(never(), 1_000, { clock, signal: AbortSignal.abort(why) })).rejects.toBe(why);
  });

  it('never times out with Infinity', async () => {
    const clock = new ManualClock();
    const bounded = withTimeout(Promise.resolve(7), Number.POSITIVE_INFINITY, { clock });
    expect(clock.pendingTimers).toBe(0);
    await expect(bounded).resolves.toBe(7);
  });

  it('accepts a bare thenable', async () => {
    const clock = new ManualClock();
    // biome-ignore lint/suspicious/noThenProperty: a bare thenable is exactly what this test needs
    const thenable: PromiseLike<number> = { then: (onFulfilled) => Promise.resolve(3).then(onFulfilled) };
    await expect(withTimeout(thenable, 100, { clock })).resolves.toBe(3);
  });
});
