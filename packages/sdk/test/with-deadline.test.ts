import { getEventListeners } from 'node:events';
import { DeadlineController, InflightError, ProgressRelay } from '@mcp-inflight/core';
import { ManualClock } from '@mcp-inflight/core/testing';
import { describe, expect, it } from 'vitest';
import { type Progress, withDeadline } from '../src/index.js';
import { fakeSdkCall, settle } from './support/fakes.js';

function setup() {
  const clock = new ManualClock();
  return { clock, relay: new ProgressRelay({ clock }) };
}

async function rejection(promise: Promise<unknown>): Promise<InflightError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(InflightError);
  return error as InflightError;
}

describe('withDeadline', () => {
  it('hands the SDK an always-on onprogress, an effectively infinite timeout, and no reset of its own', () => {
    const { clock, relay } = setup();
    const call = fakeSdkCall();
    void withDeadline(call.run, { clock, progressRelay: relay });
    expect(typeof call.sdk.onprogress).toBe('function');
    expect(call.sdk.timeout).toBe(2 ** 31 - 1);
    expect(call.sdk.resetTimeoutOnProgress).toBe(false);
    call.resolve('ok');
  });

  it('fires the ceiling on its own timer with no progress at all, and cancels with a reason naming it (SDK #2695)', async () => {
    const { clock, relay } = setup();
    const call = fakeSdkCall();
    const result = rejection(
      withDeadline(call.run, { clock, progressRelay: relay, idleMs: 10_000, ceilingMs: 300 }),
    );
    clock.advance(299);
    expect(call.sdk.signal.aborted).toBe(false);
    clock.advance(1);
    expect(call.sdk.signal.aborted).toBe(true);
    expect(call.sdk.signal.reason).toMatch(/^CEILING: hard ceiling of 300 ms/);
    const error = await result;
    expect(error.code).toBe('CEILING');
    expect(error.details.limitMs).toBe(300);
  });

  it('keeps the ceiling even while progress flows', async () => {
    const { clock, relay } = setup();
    const call = fakeSdkCall();
    const result = rejection(
      withDeadline(call.run, { clock, progressRelay: relay, idleMs: 100, ceilingMs: 500 }),
    );
    for (let t = 1; t <= 20; t++) {
      clock.advance(50);
      call.sdk.onprogress({ progress: t });
    }
    expect((await result).code).toBe('CEILING');
  });

  it('lets progress reset the idle window with no progress callback (SDK #2076)', async () => {
    const { clock, relay } = setup();
    const call = fakeSdkCall<string>();
    const result = withDeadline(call.run, { clock, progressRelay: relay, idleMs: 200, ceilingMs: 5_000 });
    for (let step = 1; step <= 12; step++) {
      clock.advance(50);
      call.sdk.onprogress({ progress: step, total: 12 });
    }
    expect(call.sdk.signal.aborted).toBe(false);
    call.resolve('done');
    await expect(result).resolves.toBe('done');
  });

  it('ends an idle call as IDLE_TIMEOUT, and a repeated value is not activity', async () => {
    const { clock, relay } = setup();
    const call = fakeSdkCall();
    const result = rejection(withDeadline(call.run, { clock, progressRelay: relay, idleMs: 200 }));
    call.sdk.onprogress({ progress: 1 });
    clock.advance(150);
    call.sdk.onprogress({ progress: 1 }); // not increasing: refused, no touch
    clock.advance(50);
    expect(call.sdk.signal.reason).toMatch(/^IDLE_TIMEOUT: idle limit of 200 ms/);
    const error = await result;
    expect(error.code).toBe('IDLE_TIMEOUT');
    expect(error.details.progressCount).toBe(1);
  });

  it("reports a user's abort as CANCELLED, not as the SDK's -32001 timeout (SDK #2165)", async () => {
    const { clock, relay } = setup();
    const call = fakeSdkCall();
    const stop = new AbortController();
    const result = rejection(withDeadline(call.run, { clock, progressRelay: relay, signal: stop.signal }));
    stop.abort('user pressed stop');
    expect(call.sdk.signal.reason).toBe('CANCELLED: cancelled by the caller: user pressed stop');
    const error = await result;
    expect(error.code).toBe('CANCELLED');
    expect(error.cause).toBe('user pressed stop');
    expect(error.isTimeout).toBe(false);
  });

  it('keeps the code of an InflightError the caller aborts with', async () => {
    const { clock, relay } = setup();
    const call = fakeSdkCall();
    const stop = new AbortController();
    const result = rejection(withDeadline(call.run, { clock, progressRelay: relay, signal: stop.signal }));
    stop.abort(new InflightError('SHUTDOWN'));
    expect((await result).code).toBe('SHUTDOWN');
  });

  it('sends nothing for a call whose signal is already aborted', async () => {
    const { clock, relay } = setup();
    const call = fakeSdkCall();
    const error = await rejection(
      withDeadline(call.run, { clock, progressRelay: relay, signal: AbortSignal.abort('early') }),
    );
    expect(error.code).toBe('CANCELLED');
    expect(call.calls).toBe(0);
  });

  it('reads a closed connection as DISCONNECTED, in both SDK shapes', async () => {
    const { clock, relay } = setup();
    for (const closed of [
      Object.assign(new Error('MCP error -32000: Connection closed'), { code: -32000 }),
      Object.assign(new Error('Connection closed'), { code: 'CONNECTION_CLOSED' }),
    ]) {
      const call = fakeSdkCall();
      const result = rejection(withDeadline(call.run, { clock, progressRelay: relay }));
      call.reject(closed);
      const error = await result;
      expect(error.code).toBe('DISCONNECTED');
      expect(error.cause).toBe(closed);
    }
  });

  it('reads a proxy error that carries a cause back into that cause', async () => {
    const { clock, relay } = setup();
    const call = fakeSdkCall();
    const result = rejection(withDeadline(call.run, { clock, progressRelay: relay }));
    call.reject(
      Object.assign(new Error('MCP error -32000: the upstream connection closed'), {
        code: -32000,
        data: { cause: 'UPSTREAM_CLOSED' },
      }),
    );
    const error = await result;
    expect(error.code).toBe('UPSTREAM_CLOSED');
    expect(error.message).toBe('the upstream connection closed');
  });

  it('passes other errors through unchanged', async () => {
    const { clock, relay } = setup();
    const call = fakeSdkCall();
    const toolError = Object.assign(new Error('MCP error -32602: Tool nope not found'), { code: -32602 });
    const result = withDeadline(call.run, { clock, progressRelay: relay });
    call.reject(toolError);
    await expect(result).rejects.toBe(toolError);
  });

  it('gives onprogress only increasing values, without the token, and nothing after the end [PG12]', async () => {
    const { clock, relay } = setup();
    const call = fakeSdkCall<string>();
    const seen: Progress[] = [];
    const result = withDeadline(call.run, { clock, progressRelay: relay, onprogress: (p) => seen.push(p) });
    call.sdk.onprogress({ progress: 1, total: 3, message: 'a' });
    call.sdk.onprogress({ progress: 1, total: 3 });
    call.sdk.onprogress({ progress: 2 });
    call.resolve('done');
    await result;
    call.sdk.onprogress({ progress: 3 });
    expect(seen).toEqual([{ progress: 1, total: 3, message: 'a' }, { progress: 2 }]);
  });

  it('never lets a throwing onprogress reach the SDK', () => {
    const { clock, relay } = setup();
    const call = fakeSdkCall();
    void withDeadline(call.run, {
      clock,
      progressRelay: relay,
      onprogress: () => {
        throw new Error('ui bug');
      },
    });
    expect(() => call.sdk.onprogress({ progress: 1 })).not.toThrow();
    call.resolve(undefined);
  });

  it('leaves no timer, listener or route behind when it settles [rule 8]', async () => {
    const { clock, relay } = setup();
    const stop = new AbortController();
    const call = fakeSdkCall();
    const result = withDeadline(call.run, { clock, progressRelay: relay, signal: stop.signal });
    expect(getEventListeners(stop.signal, 'abort')).toHaveLength(1);
    call.resolve('ok');
    await result;
    expect(getEventListeners(stop.signal, 'abort')).toHaveLength(0);
    expect(clock.pendingTimers).toBe(0);
    expect(relay.stats.openRoutes).toBe(0);
    // Aborting after completion sends no cancel (SDK v1 still does).
    stop.abort();
    expect(call.sdk.signal.aborted).toBe(false);
  });

  it('never outlives an enclosing deadline, and its progress is activity there too', async () => {
    const { clock, relay } = setup();
    const parent = new DeadlineController({ clock, idleMs: 100, ceilingMs: 1_000 });
    const call = fakeSdkCall();
    const result = rejection(
      withDeadline(call.run, {
        clock,
        progressRelay: relay,
        deadline: parent,
        idleMs: 10_000,
        ceilingMs: 10_000,
      }),
    );
    for (let t = 1; t <= 5; t++) {
      clock.advance(80);
      call.sdk.onprogress({ progress: t });
    }
    expect(parent.signal.aborted).toBe(false); // 400 ms in: kept alive by the child's progress
    clock.advance(600);
    const error = await result;
    expect(error.code).toBe('IDLE_TIMEOUT');
    expect(error.details.limitMs).toBe(100);
    await settle();
  });
});
