import { describe, expect, it } from 'vitest';
import { ManualClock } from '../clock/manual-clock.js';
import { KeptString } from '../endpoint/kept-strings.js';
import type { Revision } from '../revisions/revisions.js';
import type { ProgressParams } from '../schemas/types.js';
import { DEFAULT_MIN_INTERVAL_MS, ProgressRelay } from './progress-relay.js';

function setup(options: { revision?: Revision; minIntervalMs?: number; relayIntervalMs?: number } = {}) {
  const clock = new ManualClock();
  const relay = new ProgressRelay({ clock, minIntervalMs: options.relayIntervalMs });
  const sent: Array<ProgressParams & { at: number }> = [];
  const route = relay.open({
    token: 'down-7',
    revision: options.revision ?? '2025-06-18',
    send: (params) => sent.push({ ...params, at: clock.now() }),
    minIntervalMs: options.minIntervalMs,
  });
  return { clock, relay, route, sent, values: () => sent.map((p) => p.progress) };
}

describe('ProgressRoute: what passes', () => {
  it('passes only strictly increasing values', () => {
    const { route, values, relay } = setup({ minIntervalMs: 0 });
    expect([1, 1, 0.5, 2, 2, 1.5, 3].map((v) => route.push(v))).toEqual([
      true,
      false,
      false,
      true,
      false,
      false,
      true,
    ]);
    expect(values()).toEqual([1, 2, 3]);
    expect(route.lastProgress).toBe(3);
    expect(relay.stats.dropped).toBe(4);
  });

  it('drops values that are not finite numbers (NaN, Infinity, strings, null)', () => {
    const { route, values, relay } = setup({ minIntervalMs: 0 });
    const reasons: string[] = [];
    relay.on('dropped', (reason) => reasons.push(reason));
    for (const bad of [
      Number.NaN,
      Number.POSITIVE_INFINITY,
      Number.NEGATIVE_INFINITY,
      '5',
      null,
      undefined,
      {},
    ]) {
      expect(route.push(bad)).toBe(false);
    }
    route.push(0);
    expect(values()).toEqual([0]);
    expect(reasons).toEqual(Array(7).fill('not-finite'));
  });

  it('drops an update whose total is not a finite number', () => {
    const { route, values, relay } = setup({ minIntervalMs: 0 });
    const reasons: string[] = [];
    relay.on('dropped', (reason) => reasons.push(reason));
    route.push(1, Number.NaN);
    route.push(1, '10');
    route.push(1, 10);
    expect(values()).toEqual([1]);
    expect(reasons).toEqual(['bad-total', 'bad-total']);
  });

  it('keeps total, and keeps message for revisions that have it', () => {
    for (const revision of ['2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'] as const) {
      const { route, sent } = setup({ revision, minIntervalMs: 0 });
      route.push(3, 10, 'three of ten');
      expect(sent).toEqual([
        { progressToken: 'down-7', progress: 3, total: 10, message: 'three of ten', at: 0 },
      ]);
    }
  });

  it('strips message for 2024-11-05, where it does not exist, without dropping the update', () => {
    const { route, sent } = setup({ revision: '2024-11-05', minIntervalMs: 0 });
    route.push(1, 10, 'one');
    route.push(2, 10, 42);
    expect(sent).toEqual([
      { progressToken: 'down-7', progress: 1, total: 10, at: 0 },
      { progressToken: 'down-7', progress: 2, total: 10, at: 0 },
    ]);
  });

  it('drops an update whose message is not a string where message exists', () => {
    const { route, values, relay } = setup({ revision: '2025-06-18', minIntervalMs: 0 });
    const reasons: string[] = [];
    relay.on('dropped', (reason) => reasons.push(reason));
    expect(route.push(1, undefined, 42)).toBe(false);
    expect(values()).toEqual([]);
    expect(reasons).toEqual(['bad-message']);
  });

  it("passes a relay's kept message on as it is, coalesced like any other, and still drops other objects", () => {
    const { route, sent, clock } = setup({ revision: '2025-11-25', minIntervalMs: 50 });
    const first = new KeptString('"first"');
    const latest = new KeptString('"\\u00e9"');
    expect(route.push(1, 3, first)).toBe(true);
    route.push(2, 3, new KeptString('"dropped by coalescing"'));
    route.push(2.5, 3, latest);
    clock.advance(50);
    expect(sent.map((p) => p.message)).toEqual([first, latest]); // the objects themselves: never decoded
    expect(route.push(3, 3, { json: '"look-alike"' })).toBe(false);
  });

  it('omits total and message when the update has none', () => {
    const { route, sent } = setup({ minIntervalMs: 0 });
    route.push(0.25);
    expect(sent).toEqual([{ progressToken: 'down-7', progress: 0.25, at: 0 }]);
  });
});

describe('ProgressRoute: coalescing', () => {
  it(`with the default interval (${DEFAULT_MIN_INTERVAL_MS} ms) sends the first at once and the latest when the interval timer fires`, () => {
    const { clock, route, sent, relay } = setup();
    route.push(1, 100, 'a');
    expect(sent.map((p) => [p.progress, p.at])).toEqual([[1, 0]]);
    clock.advance(10);
    route.push(2, 100, 'b');
    clock.advance(10);
    route.push(3, 100, 'c');
    clock.advance(10);
    route.push(4, 100, 'd');
    expect(sent.length).toBe(1);
    expect(clock.pendingTimers).toBe(1);
    clock.advance(20);
    // The trailing edge: the latest value, with its own total and message.
    expect(sent.at(-1)).toEqual({ progressToken: 'down-7', progress: 4, total: 100, message: 'd', at: 50 });
    expect(relay.stats.coalesced).toBe(2);
    expect(clock.pendingTimers).toBe(0);
  });

  it('holds at most one send per interval under a flood, and never loses the last value', () => {
    const { clock, route, sent } = setup({ minIntervalMs: 100 });
    for (let i = 1; i <= 1_000; i++) {
      route.push(i);
      clock.advance(1);
    }
    clock.advance(100);
    expect(sent.length).toBeLessThanOrEqual(1_000 / 100 + 1);
    expect(sent.at(-1)!.progress).toBe(1_000);
    for (let i = 1; i < sent.length; i++) expect(sent[i]!.at - sent[i - 1]!.at).toBeGreaterThanOrEqual(100);
  });

  it('sends at once again after a quiet interval', () => {
    const { clock, route, sent } = setup({ minIntervalMs: 50 });
    route.push(1);
    clock.advance(200);
    route.push(2);
    expect(sent.map((p) => p.at)).toEqual([0, 200]);
  });

  it('a per-route interval overrides the relay interval', () => {
    const { route, values } = setup({ relayIntervalMs: 1_000, minIntervalMs: 0 });
    route.push(1);
    route.push(2);
    expect(values()).toEqual([1, 2]);
  });
});

describe('ProgressRoute: results and closing', () => {
  it('flushes the pending value before the result: settle() sends it, then closes', () => {
    const { route, values, relay, clock } = setup();
    route.push(1);
    route.push(2);
    expect(values()).toEqual([1]);
    expect(route.settle({ content: [] })).toBe(true);
    expect(values()).toEqual([1, 2]);
    expect(route.closed).toBe(true);
    expect(relay.stats.openRoutes).toBe(0);
    expect(clock.pendingTimers).toBe(0);
  });

  it('keeps a 2025-11-25 route open past a CreateTaskResult ({task: {...}}), whose token lives on [PG14]', () => {
    const { route, values } = setup({ revision: '2025-11-25', minIntervalMs: 0 });
    route.push(1);
    expect(route.settle({ task: { taskId: 't-1', status: 'working' } })).toBe(false);
    expect(route.closed).toBe(false);
    route.push(2);
    expect(values()).toEqual([1, 2]);
    route.finish();
    expect(route.push(3)).toBe(false);
    expect(values()).toEqual([1, 2]);
  });

  it('closes on a task-shaped result in every other revision, and on a non-task result in 2025-11-25', () => {
    for (const revision of ['2024-11-05', '2025-03-26', '2025-06-18', '2026-07-28'] as const) {
      expect(setup({ revision }).route.settle({ task: { taskId: 't' } })).toBe(true);
    }
    expect(setup({ revision: '2025-11-25' }).route.settle({ task: null })).toBe(true);
    expect(setup({ revision: '2025-11-25' }).route.settle(undefined)).toBe(true);
  });

  it('close() drops what is pending, passes nothing after, and counts late arrivals', () => {
    const { route, values, relay, clock } = setup();
    const late: unknown[] = [];
    relay.on('late', (token, progress) => late.push([token, progress]));
    route.push(1);
    route.push(2);
    route.close();
    route.close();
    expect(clock.pendingTimers).toBe(0);
    expect(route.push(3)).toBe(false);
    route.flush();
    clock.advance(1_000);
    expect(values()).toEqual([1]);
    expect(late).toEqual([['down-7', 3]]);
    expect(relay.stats).toEqual({ passed: 1, dropped: 0, coalesced: 0, late: 1, openRoutes: 0 });
  });
});

describe('ProgressRelay: counters, events and send errors', () => {
  it('counts and emits dropped, coalesced and late; noteLate covers unknown tokens', () => {
    const clock = new ManualClock();
    const relay = new ProgressRelay({ clock });
    const events: string[] = [];
    relay.on('dropped', (reason, token, progress) =>
      events.push(`dropped:${reason}:${String(token)}:${String(progress)}`),
    );
    relay.on('coalesced', (token, progress) => events.push(`coalesced:${String(token)}:${progress}`));
    relay.on('late', (token, progress) => events.push(`late:${String(token)}:${String(progress)}`));
    const route = relay.open({ token: 0, revision: '2025-03-26', send: () => {} });
    const other = relay.open({ token: '', revision: '2025-03-26', send: () => {} });
    expect(relay.stats.openRoutes).toBe(2);
    route.push(1);
    route.push(Number.NaN);
    route.push(2);
    route.push(3);
    relay.noteLate('unknown', 9);
    route.finish();
    other.close();
    expect(events).toEqual(['dropped:not-finite:0:NaN', 'coalesced:0:2', 'late:unknown:9']);
    expect(relay.stats).toEqual({ passed: 2, dropped: 1, coalesced: 1, late: 1, openRoutes: 0 });
  });

  it('a throwing send never throws into push; it is reported as sendError', () => {
    const clock = new ManualClock();
    const relay = new ProgressRelay({ clock, minIntervalMs: 10 });
    const failure = new Error('socket closed');
    const errors: unknown[] = [];
    relay.on('sendError', (error, token) => errors.push([error, token]));
    const route = relay.open({
      token: 'tok',
      revision: '2025-06-18',
      send: () => {
        throw failure;
      },
    });
    expect(() => route.push(1)).not.toThrow();
    route.push(2);
    expect(() => clock.advance(10)).not.toThrow(); // the trailing send fails inside the timer, quietly too
    expect(() => route.finish()).not.toThrow();
    expect(errors).toEqual([
      [failure, 'tok'],
      [failure, 'tok'],
    ]);
  });

  it('a throwing send with no sendError listener is still swallowed', () => {
    const relay = new ProgressRelay({ clock: new ManualClock(), minIntervalMs: 0 });
    const route = relay.open({
      token: 1,
      revision: '2025-06-18',
      send: () => {
        throw new Error('x');
      },
    });
    expect(() => route.push(1)).not.toThrow();
  });

  it('rejects a negative or NaN interval', () => {
    expect(() => new ProgressRelay({ clock: new ManualClock(), minIntervalMs: -1 })).toThrow(RangeError);
    expect(() => new ProgressRelay({ clock: new ManualClock(), minIntervalMs: Number.NaN })).toThrow(
      RangeError,
    );
    expect(new ProgressRelay({ clock: new ManualClock() }).minIntervalMs).toBe(DEFAULT_MIN_INTERVAL_MS);
  });
});
