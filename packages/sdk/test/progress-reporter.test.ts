import { ProgressRelay } from '@mcp-inflight/core';
import { ManualClock } from '@mcp-inflight/core/testing';
import { describe, expect, it } from 'vitest';
import { progressReporter, withProgress } from '../src/index.js';
import { fakeV1Extra, fakeV2Ctx, settle } from './support/fakes.js';

function setup() {
  const clock = new ManualClock();
  const relay = new ProgressRelay({ clock, minIntervalMs: 50 });
  return { clock, relay };
}

describe('progressReporter', () => {
  it('is a no-op without a token [PS3]', () => {
    const { relay } = setup();
    const { extra, sent } = fakeV1Extra(undefined);
    const progress = progressReporter(extra, { progressRelay: relay });
    expect(progress.active).toBe(false);
    expect(progress.token).toBeUndefined();
    expect(progress.report(1, 2)).toBe(false);
    progress.finish();
    expect(sent).toEqual([]);
    expect(relay.stats.openRoutes).toBe(0);
  });

  it('treats a null or float token as no token, and 0 and "" as real tokens [PG3]', () => {
    const { relay } = setup();
    expect(
      progressReporter(fakeV1Extra({ progressToken: null }).extra, { progressRelay: relay }).active,
    ).toBe(false);
    expect(progressReporter(fakeV1Extra({ progressToken: 1.5 }).extra, { progressRelay: relay }).active).toBe(
      false,
    );
    for (const token of [0, '']) {
      const { extra, sent } = fakeV1Extra({ progressToken: token });
      const progress = progressReporter(extra, { progressRelay: relay });
      progress.report(1);
      progress.finish();
      expect(sent).toEqual([{ progressToken: token, progress: 1 }]);
    }
  });

  it('passes only finite, strictly increasing values [PG6]', () => {
    const { relay } = setup();
    const { extra, sent } = fakeV1Extra({ progressToken: 't' });
    const progress = progressReporter(extra, { progressRelay: relay, minIntervalMs: 0 });
    expect([5, 3, 5, Number.NaN, Number.POSITIVE_INFINITY, 6].map((v) => progress.report(v))).toEqual([
      true,
      false,
      false,
      false,
      false,
      true,
    ]);
    expect(sent.map((p) => p.progress)).toEqual([5, 6]);
  });

  it('coalesces a burst to one per interval, keeping the latest (trailing edge)', () => {
    const { clock, relay } = setup();
    const { extra, sent } = fakeV1Extra({ progressToken: 7 });
    const progress = progressReporter(extra, { progressRelay: relay });
    for (let i = 1; i <= 1000; i++) progress.report(i, 1000, `step ${i}`);
    expect(sent).toEqual([{ progressToken: 7, progress: 1, total: 1000, message: 'step 1' }]);
    clock.advance(50);
    expect(sent).toEqual([
      { progressToken: 7, progress: 1, total: 1000, message: 'step 1' },
      { progressToken: 7, progress: 1000, total: 1000, message: 'step 1000' },
    ]);
    expect(relay.stats.coalesced).toBe(998);
  });

  it('finish() flushes what is pending, then sends nothing more [PG12]', () => {
    const { clock, relay } = setup();
    const { extra, sent } = fakeV1Extra({ progressToken: 1 });
    const progress = progressReporter(extra, { progressRelay: relay });
    progress.report(1);
    progress.report(2);
    progress.finish();
    expect(sent.map((p) => p.progress)).toEqual([1, 2]);
    expect(progress.active).toBe(false);
    expect(progress.report(3)).toBe(false);
    clock.advance(1_000);
    expect(sent.map((p) => p.progress)).toEqual([1, 2]);
    expect(clock.pendingTimers).toBe(0);
  });

  it('goes quiet when the request is cancelled, dropping what is pending [CN9]', () => {
    const { clock, relay } = setup();
    const controller = new AbortController();
    const { extra, sent } = fakeV1Extra({ progressToken: 1 }, controller.signal);
    const progress = progressReporter(extra, { progressRelay: relay });
    progress.report(1);
    progress.report(2);
    controller.abort('stop');
    expect(progress.active).toBe(false);
    expect(progress.report(3)).toBe(false);
    clock.advance(1_000);
    expect(sent.map((p) => p.progress)).toEqual([1]);
    expect(relay.stats.late).toBe(1);
  });

  it('never throws into the tool when sending fails, sync or async', async () => {
    const { relay } = setup();
    const errors: unknown[] = [];
    const extra = {
      signal: new AbortController().signal,
      _meta: { progressToken: 1 },
      sendNotification: (): Promise<void> => {
        throw new Error('sync boom');
      },
    };
    const progress = progressReporter(extra, {
      progressRelay: relay,
      minIntervalMs: 0,
      onSendError: (e) => errors.push(e),
    });
    expect(() => progress.report(1)).not.toThrow();
    const rejecting = { ...extra, sendNotification: () => Promise.reject(new Error('async boom')) };
    const second = progressReporter(rejecting, {
      progressRelay: relay,
      minIntervalMs: 0,
      onSendError: (e) => errors.push(e),
    });
    expect(() => second.report(1)).not.toThrow();
    await settle();
    expect(errors.map((e) => (e as Error).message)).toEqual(['sync boom', 'async boom']);
  });

  it('reads v2 ctx.mcpReq, and the revision from its 2026-07-28 envelope', () => {
    const { relay } = setup();
    const { ctx, sent } = fakeV2Ctx(
      { progressToken: 'abc' },
      { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' },
    );
    const progress = progressReporter(ctx, { progressRelay: relay, minIntervalMs: 0 });
    progress.report(1, 4, 'one');
    expect(sent).toEqual([{ progressToken: 'abc', progress: 1, total: 4, message: 'one' }]);
  });

  it('drops `message` for a 2024-11-05 host, keeps `total` [PS6]', () => {
    const { relay } = setup();
    const { extra, sent } = fakeV1Extra({ progressToken: 1 });
    const progress = progressReporter(extra, {
      progressRelay: relay,
      minIntervalMs: 0,
      revision: '2024-11-05',
    });
    progress.report(1, 4, 'one');
    expect(sent).toEqual([{ progressToken: 1, progress: 1, total: 4 }]);
  });

  it('works with `using`: the scope end finishes it', () => {
    const { relay } = setup();
    const { extra, sent } = fakeV1Extra({ progressToken: 1 });
    let kept: ReturnType<typeof progressReporter> | undefined;
    {
      using progress = progressReporter(extra, { progressRelay: relay });
      progress.report(1);
      progress.report(2);
      kept = progress;
    }
    expect(kept.active).toBe(false);
    expect(sent.map((p) => p.progress)).toEqual([1, 2]);
  });
});

describe('withProgress', () => {
  it('flushes the last value before the result goes out', async () => {
    const { relay } = setup();
    const { extra, sent } = fakeV1Extra({ progressToken: 1 });
    const order: string[] = [];
    const handler = withProgress(
      async (args: { steps: number }, _extra: typeof extra, progress) => {
        for (let i = 1; i <= args.steps; i++) progress.report(i, args.steps);
        return 'result';
      },
      { progressRelay: relay },
    );
    const result = await handler({ steps: 100 }, extra);
    order.push(`sent ${sent.length}`, result);
    expect(sent.map((p) => p.progress)).toEqual([1, 100]);
    expect(order).toEqual(['sent 2', 'result']);
    expect(relay.stats.openRoutes).toBe(0);
  });

  it('closes without flushing when the handler throws, and rethrows', async () => {
    const { clock, relay } = setup();
    const { extra, sent } = fakeV1Extra({ progressToken: 1 });
    let leaked: { report(v: number): boolean } | undefined;
    const handler = withProgress(
      async (_args: unknown, _extra: typeof extra, progress) => {
        progress.report(1);
        progress.report(2);
        leaked = progress;
        throw new Error('tool failed');
      },
      { progressRelay: relay },
    );
    await expect(handler({}, extra)).rejects.toThrow('tool failed');
    clock.advance(1_000);
    expect(leaked?.report(3)).toBe(false);
    expect(sent.map((p) => p.progress)).toEqual([1]);
  });
});
