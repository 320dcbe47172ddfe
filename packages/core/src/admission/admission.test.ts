import { describe, expect, it } from 'vitest';
import { ManualClock } from '../clock/manual-clock.js';
import { Endpoint } from '../endpoint/endpoint.js';
import type { JsonRpcMessage } from '../endpoint/messages.js';
import { JsonRpcErrorCode } from '../errors/causes.js';
import { Admission, type AdmissionTicket, QUEUED_REQUEST_OVERHEAD_BYTES } from './admission.js';

/** A work request of `source` (its text or size in bytes), one of `parts` in its message. */
const work = (source: string | number, parts = 1) =>
  ({ method: 'tools/call', params: undefined, source, parts }) as const;

// Admission on its own (slots, the bounded queue, shares taken round robin) and inside an endpoint (a
// handler runs only once admitted; a cancel takes a waiting request out at once). Virtual time only.

describe('Admission', () => {
  it('runs maxInFlight at once, queues the rest in order, and starts the next as a slot frees', () => {
    const admission = new Admission({ maxInFlight: 2 });
    const owner = {};
    const started: string[] = [];
    const tickets = ['a', 'b', 'c', 'd'].map((name) =>
      admission.admit(owner, work(100, 1), () => started.push(name)),
    );
    expect(tickets.map((t) => t.state)).toEqual(['running', 'running', 'queued', 'queued']);
    expect(admission.stats).toMatchObject({
      inFlight: 2,
      queuedRequests: 2,
      queuedBytes: 2 * (100 + QUEUED_REQUEST_OVERHEAD_BYTES),
    });
    admission.release(tickets[1]!);
    expect(started).toEqual(['c']);
    admission.release(tickets[1]!); // a second release of one ticket frees nothing more
    expect(started).toEqual(['c']);
    admission.release(tickets[0]!);
    expect(started).toEqual(['c', 'd']);
    expect(admission.stats).toMatchObject({ inFlight: 2, queuedRequests: 0, queuedBytes: 0 });
  });

  it('refuses what does not fit in maxQueuedBytes, measuring text as UTF-8', () => {
    const one = 10 + QUEUED_REQUEST_OVERHEAD_BYTES;
    const admission = new Admission({ maxInFlight: 1, maxQueuedBytes: 2 * one });
    const owner = {};
    admission.admit(owner, work('x', 1), () => {});
    expect(admission.admit(owner, work('é'.repeat(5), 1), () => {}).state).toBe('queued'); // 10 bytes, not 5
    expect(admission.admit(owner, work(10, 1), () => {}).state).toBe('queued');
    expect(admission.admit(owner, work(1, 1), () => {}).state).toBe('refused');
    expect(admission.stats).toMatchObject({
      queuedBytes: 2 * one,
      peakQueuedBytes: 2 * one,
      refusedRequests: 1,
    });
  });

  it('withdraws a waiting request at once: it never starts, and its bytes are freed', () => {
    const admission = new Admission({ maxInFlight: 1 });
    const owner = {};
    const started: string[] = [];
    const running = admission.admit(owner, work(0, 1), () => started.push('running'));
    const waiting = admission.admit(owner, work(0, 1), () => started.push('waiting'));
    const next = admission.admit(owner, work(0, 1), () => started.push('next'));
    expect(admission.withdraw(waiting, true)).toBe(true);
    expect(admission.withdraw(waiting, true)).toBe(false);
    expect(admission.withdraw(running, true)).toBe(false); // a running request is ended by its handler
    admission.release(running);
    expect(started).toEqual(['next']);
    expect(next.state).toBe('running');
    expect(admission.stats).toMatchObject({ cancelledWhileQueued: 1, queuedRequests: 0, queuedBytes: 0 });
  });

  it('takes shares round robin and caps each at maxInFlightPerShare', () => {
    const admission = new Admission({ maxInFlight: 3, maxInFlightPerShare: 2 });
    const busy = {};
    const quiet = {};
    admission.assign(busy, 'busy');
    admission.assign(quiet, 'quiet');
    const started: string[] = [];
    const admit = (owner: object, name: string) =>
      admission.admit(owner, work(0, 1), () => started.push(name));
    const b = ['b1', 'b2', 'b3', 'b4', 'b5'].map((name) => admit(busy, name));
    // The busy share runs two (its cap) though a third slot is free; the rest of its calls wait.
    expect(b.map((t) => t.state)).toEqual(['running', 'running', 'queued', 'queued', 'queued']);
    expect(admission.inFlightOf('busy')).toBe(5); // two running, three waiting
    const q = ['q1', 'q2', 'q3'].map((name) => admit(quiet, name));
    expect(q.map((t) => t.state)).toEqual(['running', 'queued', 'queued']); // the free slot was the quiet one's
    admission.release(b[0]!);
    // Round robin: the freed slot goes to the share whose turn it is, within its cap.
    admission.release(q[0]!);
    admission.release(b[1]!);
    expect(started).toEqual(['b3', 'q2', 'b4']);
    expect(admission.stats).toMatchObject({ inFlight: 3, queuedRequests: 2, activeShares: 2 });
  });

  it('never lets one share starve another however many it queues', () => {
    const admission = new Admission({ maxInFlight: 1 });
    const flood = {};
    const quiet = {};
    admission.assign(flood, 'flood');
    admission.assign(quiet, 'quiet');
    const order: string[] = [];
    let current: AdmissionTicket = admission.admit(flood, work(0, 1), () => {});
    const queue: Array<{ name: string; ticket: AdmissionTicket }> = [];
    const admit = (owner: object, name: string) => {
      const entry = { name, ticket: undefined as unknown as AdmissionTicket };
      entry.ticket = admission.admit(owner, work(0, 1), () => {
        order.push(name);
        current = entry.ticket;
      });
      queue.push(entry);
    };
    for (let i = 0; i < 100; i++) admit(flood, `f${i}`);
    admit(quiet, 'q0');
    admit(quiet, 'q1');
    for (let i = 0; i < 4; i++) admission.release(current);
    expect(order).toEqual(['f0', 'q0', 'f1', 'q1']);
  });

  it('records how long requests waited on its clock, and forgets shares with nothing left', () => {
    const clock = new ManualClock();
    const admission = new Admission({ maxInFlight: 1, clock });
    const host = {};
    admission.assign(host, 'host');
    const first = admission.admit(host, work(0, 1), () => {});
    let second: AdmissionTicket | undefined;
    second = admission.admit(host, work(0, 1), () => {});
    clock.advance(250);
    admission.release(first);
    expect(admission.stats.longestWaitMs).toBe(250);
    expect(admission.stats.activeShares).toBe(1);
    admission.release(second);
    second = undefined;
    expect(admission.stats).toMatchObject({ inFlight: 0, activeShares: 0 });
  });

  it('rejects limits that make no sense', () => {
    expect(() => new Admission({ maxInFlight: 0 })).toThrow(RangeError);
    expect(() => new Admission({ maxQueuedBytes: -1 })).toThrow(RangeError);
    expect(() => new Admission({ maxInFlightPerShare: 0 })).toThrow(RangeError);
    expect(() => new Admission({ maxControlPerShare: 0 })).toThrow('maxControlPerShare must be at least 1');
    expect(() => new Admission({ maxHeldPerShare: Number.NaN })).toThrow('maxHeldPerShare');
  });

  it('runs control requests beside a full work gate, up to maxControlPerShare per share [rule 14]', () => {
    const admission = new Admission({ maxInFlight: 3, maxControlPerShare: 2, clock: new ManualClock() });
    const busy = {};
    const other = {};
    admission.assign(busy, 'busy');
    admission.assign(other, 'other');
    const control = (owner: object, method: string) =>
      admission.admit(owner, { method, params: undefined, source: 0, parts: 1 }, () => {});
    const [slot] = [1, 2, 3].map(() => admission.admit(busy, work(0), () => {}));
    expect(admission.admit(busy, work(0), () => {}).state).toBe('queued'); // the work gate is full
    const first = control(busy, 'initialize');
    expect([first.state, control(busy, 'tasks/get').state, control(busy, 'ping').state]).toEqual([
      'running',
      'running',
      'refused', // the share's third control request: past maxControlPerShare
    ]);
    expect(control(other, 'server/discover').state).toBe('running'); // another share has its own
    expect(control(other, 'ping').state).toBe('refused'); // a lane runs maxInFlight (3) in all
    expect(admission.stats).toMatchObject({ inFlight: 3, queuedRequests: 1, controlInFlight: 3 });
    admission.release(first); // a control request frees no work slot: the waiting call still waits
    expect(admission.stats).toMatchObject({ inFlight: 3, queuedRequests: 1, controlInFlight: 2 });
    expect(control(busy, 'tasks/cancel').state).toBe('running');
    admission.release(slot!);
    expect(admission.stats).toMatchObject({ inFlight: 3, queuedRequests: 0, refusedRequests: 2 });
  });

  it('gives long-lived requests a lane of their own, and a bypassing handler the control lane', () => {
    const admission = new Admission({ maxInFlight: 1, maxHeldPerShare: 1, maxControlPerShare: 1 });
    const host = {};
    admission.assign(host, 'host');
    const request = (method: string, bypassesAdmission?: boolean) =>
      admission.admit(
        host,
        { method, params: undefined, source: 0, parts: 1, limits: { bypassesAdmission } },
        () => {},
      );
    expect(request('tools/call').state).toBe('running');
    expect(request('subscriptions/listen').state).toBe('running');
    expect(request('tasks/result').state).toBe('refused'); // the held lane's one place is taken
    expect(request('inflight/stats', true).state).toBe('running'); // the control lane, not a work slot
    expect(request('ping').state).toBe('refused');
    expect(admission.stats).toMatchObject({ inFlight: 1, controlInFlight: 1, heldInFlight: 1 });
  });

  it('bounds the lanes of endpoints in no share by maxInFlight alone (over HTTP they are every client)', () => {
    const admission = new Admission({ maxInFlight: 3, maxControlPerShare: 1 });
    const ping = () =>
      admission.admit({}, { method: 'ping', params: undefined, source: 0, parts: 1 }, () => {});
    expect([ping(), ping(), ping(), ping()].map((t) => t.state)).toEqual([
      'running',
      'running',
      'running',
      'refused',
    ]);
  });

  it("keys a share by a function of the request's params, and forgets it when idle", () => {
    const admission = new Admission({ maxInFlight: 2, maxInFlightPerShare: 1 });
    const endpoint = {};
    admission.assign(endpoint, (params: { app?: string } | undefined) => `app ${params?.app}`);
    const call = (app: string) =>
      admission.admit(endpoint, { method: 'tools/call', params: { app }, source: 0, parts: 1 }, () => {});
    const a = call('flood');
    expect(call('flood').state).toBe('queued'); // one share, capped at one
    expect(call('quiet').state).toBe('running'); // another name, another share
    expect([admission.inFlightOf('app flood'), admission.inFlightOf('app quiet')]).toEqual([2, 1]);
    expect(admission.stats.activeShares).toBe(2);
    admission.release(a);
    expect(admission.inFlightOf('app flood')).toBe(1);
  });
});

interface Rig {
  endpoint: Endpoint;
  written: JsonRpcMessage[];
  suppressed: unknown[];
  started: unknown[];
  finish(id: unknown): void;
  send(message: unknown): void;
}

function rig(admission: Admission, clock: ManualClock): Rig {
  const written: JsonRpcMessage[] = [];
  const suppressed: unknown[] = [];
  const started: unknown[] = [];
  const finishers = new Map<unknown, () => void>();
  const endpoint = new Endpoint({
    role: 'server',
    transport: 'stdio',
    clock,
    admission,
    channel: {
      write: (message) => void written.push(...(Array.isArray(message) ? message : [message])),
      suppressed: (id) => void suppressed.push(id),
    },
  });
  endpoint.setRequestHandler('hold', (_params, ctx) => {
    started.push(ctx.id);
    return new Promise((resolve, reject) => {
      finishers.set(ctx.id, () => resolve({ done: ctx.id }));
      ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason));
    });
  });
  endpoint.setRequestHandler('stats', () => ({ ok: true }), { bypassesAdmission: true });
  return {
    endpoint,
    written,
    suppressed,
    started,
    finish: (id) => finishers.get(id)!(),
    send: (message) => endpoint.receiveText(JSON.stringify(message)),
  };
}

const hold = (id: unknown) => ({ jsonrpc: '2.0', id, method: 'hold' });
const cancel = (requestId: unknown) => ({
  jsonrpc: '2.0',
  method: 'notifications/cancelled',
  params: { requestId, reason: 'stop' },
});
/** Lets dispatched handlers start and settled ones answer: microtasks only, no time passes. */
const flush = async () => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
};

describe('an endpoint with an admission', () => {
  it('runs a handler only once admitted, and answers -32010 past the queue', async () => {
    const clock = new ManualClock();
    const line = JSON.stringify(hold(1));
    const admission = new Admission({
      maxInFlight: 1,
      maxQueuedBytes: line.length + QUEUED_REQUEST_OVERHEAD_BYTES,
      clock,
    });
    const r = rig(admission, clock);
    for (const id of [1, 2, 3]) r.send(hold(id));
    await flush();
    expect(r.started).toEqual([1]);
    expect(r.endpoint.stats).toMatchObject({ inboundInFlight: 1, inboundQueued: 1 });
    expect(r.written).toEqual([
      {
        jsonrpc: '2.0',
        id: 3,
        error: { code: JsonRpcErrorCode.Overloaded, message: 'Overloaded: retry later' },
      },
    ]);
    r.finish(1);
    await flush();
    expect(r.started).toEqual([1, 2]);
    r.finish(2);
    await flush();
    expect(r.written.map((m) => m.id)).toEqual([3, 1, 2]);
    expect(admission.stats).toMatchObject({ inFlight: 0, queuedRequests: 0, refusedRequests: 1 });
  });

  it('drops a waiting request on its cancel at once: never run, never answered [CN9]', async () => {
    const clock = new ManualClock();
    const admission = new Admission({ maxInFlight: 1, clock });
    const r = rig(admission, clock);
    r.send(hold('running'));
    r.send(hold('waiting'));
    r.send(cancel('waiting'));
    expect(r.suppressed).toEqual(['waiting']); // at once, not when a slot frees
    expect(admission.stats).toMatchObject({ queuedRequests: 0, cancelledWhileQueued: 1 });
    r.send(hold('waiting')); // its id is free again
    r.send(cancel('waiting'));
    await flush();
    r.finish('running');
    await flush();
    expect(r.started).toEqual(['running']);
    expect(r.written).toEqual([{ jsonrpc: '2.0', id: 'running', result: { done: 'running' } }]);
    expect(r.endpoint.stats.ignoredCancels).toBe(0);
  });

  it('shares its slots between endpoints, and lets a bypassing method through a full house', async () => {
    const clock = new ManualClock();
    const admission = new Admission({ maxInFlight: 1, clock });
    const a = rig(admission, clock);
    const b = rig(admission, clock);
    a.send(hold(1));
    b.send(hold(1)); // the same id on another endpoint is another request (rule 9)
    b.send({ jsonrpc: '2.0', id: 's', method: 'stats' });
    await flush();
    expect([a.started, b.started]).toEqual([[1], []]);
    expect(b.written).toEqual([{ jsonrpc: '2.0', id: 's', result: { ok: true } }]);
    a.finish(1);
    await flush();
    expect(b.started).toEqual([1]);
  });

  it('answers ping, initialize and tasks/get at once while work fills every slot and queues [rule 14]', async () => {
    const clock = new ManualClock();
    const admission = new Admission({ maxInFlight: 1, maxControlPerShare: 2, clock });
    const r = rig(admission, clock);
    admission.assign(r.endpoint, 'one client');
    r.endpoint.setRequestHandler('initialize', () => ({ protocolVersion: '2025-11-25' }));
    r.endpoint.setRequestHandler('tasks/get', () => new Promise(() => {})); // holds its control place
    r.send(hold(1));
    r.send(hold(2));
    r.send({ jsonrpc: '2.0', id: 'p', method: 'ping' });
    r.send({ jsonrpc: '2.0', id: 'i', method: 'initialize', params: { protocolVersion: '2025-11-25' } });
    await flush();
    r.send({ jsonrpc: '2.0', id: 't1', method: 'tasks/get', params: { taskId: 'a' } });
    r.send({ jsonrpc: '2.0', id: 't2', method: 'tasks/get', params: { taskId: 'b' } });
    r.send({ jsonrpc: '2.0', id: 't3', method: 'tasks/get', params: { taskId: 'c' } });
    await flush();
    expect(r.started).toEqual([1]);
    expect(r.written).toEqual([
      { jsonrpc: '2.0', id: 'p', result: {} },
      { jsonrpc: '2.0', id: 'i', result: { protocolVersion: '2025-11-25' } },
      {
        jsonrpc: '2.0',
        id: 't3',
        error: { code: JsonRpcErrorCode.Overloaded, message: 'Overloaded: retry later' },
      },
    ]);
    expect(r.endpoint.stats).toMatchObject({ inboundInFlight: 3, inboundQueued: 1 });
    expect(admission.stats).toMatchObject({ inFlight: 1, controlInFlight: 2, refusedRequests: 1 });
  });

  it('runs an initialize beside a full gate, and a cancel for it is ignored [CN7]', async () => {
    const clock = new ManualClock();
    const admission = new Admission({ maxInFlight: 1, clock });
    const r = rig(admission, clock);
    let answer: (result: unknown) => void = () => {};
    r.endpoint.setRequestHandler('initialize', () => new Promise((resolve) => (answer = resolve)));
    r.send(hold('busy'));
    r.send({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-06-18' } });
    r.send(cancel('init'));
    await flush();
    answer({ protocolVersion: '2025-06-18' });
    await flush();
    expect(r.written).toEqual([{ jsonrpc: '2.0', id: 'init', result: { protocolVersion: '2025-06-18' } }]);
    expect(r.endpoint.stats).toMatchObject({ ignoredCancels: 1, inboundInFlight: 1, inboundQueued: 0 });
  });

  it('answers waiting requests on shutdown and drops them on close, leaving nothing in the admission', async () => {
    const clock = new ManualClock();
    const admission = new Admission({ maxInFlight: 1, clock });
    const a = rig(admission, clock);
    a.send(hold('running'));
    a.send(hold('waiting'));
    await flush();
    a.endpoint.shutdown('maintenance');
    await flush();
    expect(a.started).toEqual(['running']);
    expect(a.written.map((m) => [m.id, (m.error as { message: string }).message]).sort()).toEqual([
      ['running', 'maintenance'],
      ['waiting', 'maintenance'],
    ]);
    const b = rig(admission, clock);
    b.send(hold(1));
    b.send(hold(2));
    await flush();
    b.endpoint.close();
    await flush();
    expect(b.written).toEqual([]);
    expect(b.started).toEqual([1]);
    expect(admission.stats).toMatchObject({ inFlight: 0, queuedRequests: 0, activeShares: 0 });
  });

  it('refuses a 2025-03-26 batch element by element, in the batch answer', async () => {
    const clock = new ManualClock();
    const admission = new Admission({ maxInFlight: 1, maxQueuedBytes: 0, clock });
    const r = rig(admission, clock);
    r.endpoint.revision = '2025-03-26';
    r.send([hold(1), hold(2)]);
    await flush();
    expect(r.started).toEqual([1]);
    r.finish(1);
    await flush();
    expect(r.written).toEqual([
      { jsonrpc: '2.0', id: 2, error: { code: -32010, message: 'Overloaded: retry later' } },
      { jsonrpc: '2.0', id: 1, result: { done: 1 } },
    ]);
  });
});
