import fc from 'fast-check';
import { TimeoutError } from 'p-timeout';
import { describe, expect, it } from 'vitest';
import { CANCEL_CODES, type CancelCode, JSONRPC_CODE_BY_CAUSE, JsonRpcErrorCode } from './causes.js';
import { InflightError, inflightErrorFromJsonRpc } from './inflight-error.js';

describe('InflightError codes and messages', () => {
  it('has one literal code per cause, each with a default message', () => {
    expect(CANCEL_CODES).toEqual([
      'CANCELLED',
      'IDLE_TIMEOUT',
      'CEILING',
      'DISCONNECTED',
      'UPSTREAM_CLOSED',
      'UPSTREAM_UNAVAILABLE',
      'SHUTDOWN',
      'SESSION_EXPIRED',
      'UNSERIALIZABLE',
    ]);
    for (const code of CANCEL_CODES) {
      const error = new InflightError(code);
      expect(error).toBeInstanceOf(Error);
      expect(error.name).toBe('InflightError');
      expect(error.code).toBe(code);
      expect(error.message.length).toBeGreaterThan(0);
      expect(error.details).toEqual({});
      expect(error.isTimeout).toBe(code === 'IDLE_TIMEOUT' || code === 'CEILING');
    }
  });

  it('idle() and ceiling() carry the limit and what was seen', () => {
    const idle = InflightError.idle(500, { elapsedMs: 12_400, progressCount: 37 });
    expect(idle.code).toBe('IDLE_TIMEOUT');
    expect(idle.details).toEqual({ limitMs: 500, elapsedMs: 12_400, progressCount: 37 });
    expect(idle.message).toBe('idle limit of 500 ms passed with no progress (37 updates before)');
    const ceiling = InflightError.ceiling(600_000, { progressCount: 1 });
    expect(ceiling.code).toBe('CEILING');
    expect(ceiling.message).toBe('hard ceiling of 600000 ms reached (1 update before)');
  });

  it('cancelled() is a caller cancel, with their text and cause kept', () => {
    const cause = new Error('stop');
    const error = InflightError.cancelled('user pressed stop', { requestId: 7 }, cause);
    expect(error.code).toBe('CANCELLED');
    expect(error.message).toBe('cancelled by the caller: user pressed stop');
    expect(error.details).toEqual({ requestId: 7 });
    expect(error.cause).toBe(cause);
    expect(InflightError.cancelled().message).toBe('cancelled by the caller');
    expect(InflightError.cancelled('').message).toBe('cancelled by the caller');
  });

  it("cancelled() keeps a peer's CANCELLED reason as it is: a chain of hops never repeats it", () => {
    let reason = InflightError.cancelled('user pressed stop').wireReason();
    for (let hop = 0; hop < 3; hop++) reason = InflightError.cancelled(reason).wireReason();
    expect(reason).toBe('CANCELLED: cancelled by the caller: user pressed stop');
    // A peer's timeout is still the caller's cancel here, and says which limit moved the caller.
    const idle = InflightError.idle(500).wireReason();
    expect(InflightError.cancelled(InflightError.cancelled(idle).wireReason()).message).toBe(
      `cancelled by the caller: ${idle}`,
    );
  });

  it('wireReason names the cause and, for timeouts, the limit', () => {
    expect(InflightError.idle(500).wireReason()).toBe(
      'IDLE_TIMEOUT: idle limit of 500 ms passed with no progress (0 updates before)',
    );
    expect(InflightError.ceiling(2_000).wireReason()).toMatch(/^CEILING: .*2000 ms/);
    expect(InflightError.cancelled('bye').wireReason()).toBe('CANCELLED: cancelled by the caller: bye');
    for (const code of CANCEL_CODES)
      expect(new InflightError(code).wireReason().startsWith(`${code}: `)).toBe(true);
  });

  it('serializes to JSON with code, message and details', () => {
    const error = InflightError.idle(100, { requestId: 'r' });
    expect(JSON.parse(JSON.stringify(error))).toEqual({
      name: 'InflightError',
      code: 'IDLE_TIMEOUT',
      message: error.message,
      details: { requestId: 'r', limitMs: 100 },
    });
  });
});

describe('toJsonRpc', () => {
  it('maps each cause to its JSON-RPC code, with the cause in data', () => {
    const expected: Record<CancelCode, number> = {
      CANCELLED: -32800,
      IDLE_TIMEOUT: -32001,
      CEILING: -32001,
      DISCONNECTED: -32000,
      UPSTREAM_CLOSED: -32000,
      UPSTREAM_UNAVAILABLE: -32000,
      SHUTDOWN: -32000,
      SESSION_EXPIRED: -32000,
      UNSERIALIZABLE: -32019,
    };
    expect(JSONRPC_CODE_BY_CAUSE).toEqual(expected);
    for (const code of CANCEL_CODES) {
      const wire = new InflightError(code, undefined, { requestId: 3 }).toJsonRpc();
      expect(wire.code).toBe(expected[code]);
      expect(wire.data).toEqual({ cause: code, requestId: 3 });
    }
  });

  it('never reports a caller cancel as the timeout code -32001', () => {
    expect(InflightError.cancelled().toJsonRpc().code).not.toBe(-32001);
    expect(InflightError.from(new Error('user abort')).toJsonRpc().code).not.toBe(-32001);
  });

  it('uses no code the spec gives another meaning', () => {
    const taken = new Set<number>(Object.values(JsonRpcErrorCode));
    for (const code of CANCEL_CODES) expect(taken.has(JSONRPC_CODE_BY_CAUSE[code])).toBe(false);
    expect(JsonRpcErrorCode).toMatchObject({
      ParseError: -32700,
      InvalidRequest: -32600,
      MethodNotFound: -32601,
      InvalidParams: -32602,
    });
  });
});

describe('InflightError.from', () => {
  it('returns an InflightError as it is', () => {
    const error = InflightError.ceiling(10);
    expect(InflightError.from(error)).toBe(error);
  });

  it('reads one from another copy of the class (same shape) with the same code and details', () => {
    const foreign = {
      name: 'InflightError',
      code: 'IDLE_TIMEOUT',
      message: 'idle limit of 5 ms',
      details: { limitMs: 5 },
    };
    const error = InflightError.from(foreign);
    expect(error).not.toBe(foreign);
    expect([error.code, error.message, error.details, error.cause]).toEqual([
      'IDLE_TIMEOUT',
      'idle limit of 5 ms',
      { limitMs: 5 },
      foreign,
    ]);
  });

  it('reads foreign errors, strings and nothing as a caller cancel, keeping the reason as cause', () => {
    const plain = new Error('user pressed stop');
    expect([InflightError.from(plain).code, InflightError.from(plain).cause]).toEqual(['CANCELLED', plain]);
    expect(InflightError.from(plain).message).toContain('user pressed stop');
    expect(InflightError.from('bye').message).toBe('cancelled by the caller: bye');
    expect(InflightError.from(undefined).code).toBe('CANCELLED');
    const controller = new AbortController();
    controller.abort();
    expect(InflightError.from(controller.signal.reason).code).toBe('CANCELLED');
  });

  it('reads a foreign TimeoutError (AbortSignal.timeout, p-timeout) as CEILING, not as a caller cancel', () => {
    const domTimeout = new DOMException('The operation was aborted due to timeout', 'TimeoutError');
    expect([InflightError.from(domTimeout).code, InflightError.from(domTimeout).cause]).toEqual([
      'CEILING',
      domTimeout,
    ]);
    expect(InflightError.from(new TimeoutError('too slow')).code).toBe('CEILING');
  });

  it('does not take prototype keys for causes', () => {
    for (const code of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      expect(InflightError.from({ name: 'InflightError', code, message: 'x' }).code).toBe('CANCELLED');
    }
  });
});

describe('inflightErrorFromJsonRpc', () => {
  it('round-trips every cause through the wire (JSON text and back)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...CANCEL_CODES),
        fc.string(),
        fc.record(
          {
            limitMs: fc.nat(),
            elapsedMs: fc.nat(),
            progressCount: fc.nat(),
            requestId: fc.oneof(fc.string(), fc.integer()),
            method: fc.string(),
          },
          { requiredKeys: [] },
        ),
        (code, message, details) => {
          const sent = new InflightError(code, message || undefined, details);
          const wire = JSON.parse(JSON.stringify(sent.toJsonRpc()));
          const back = inflightErrorFromJsonRpc(wire);
          expect(back).toBeInstanceOf(InflightError);
          expect([back!.code, back!.message, back!.details]).toEqual([sent.code, sent.message, sent.details]);
        },
      ),
    );
  });

  it('returns undefined for errors that carry none of our causes', () => {
    expect(inflightErrorFromJsonRpc({ code: -32601, message: 'Method not found' })).toBeUndefined();
    expect(
      inflightErrorFromJsonRpc({ code: -32001, message: 'Request timed out', data: { timeout: 100 } }),
    ).toBeUndefined();
    expect(
      inflightErrorFromJsonRpc({ code: -32001, message: 'x', data: { cause: 'TIMEOUT' } }),
    ).toBeUndefined();
    expect(inflightErrorFromJsonRpc({ code: -32001, message: 'x', data: 'IDLE_TIMEOUT' })).toBeUndefined();
    expect(inflightErrorFromJsonRpc({ code: -32001, message: 'x', data: null })).toBeUndefined();
  });

  it('does not take a prototype key from a peer for a cause', () => {
    for (const cause of ['constructor', 'toString', '__proto__', 'valueOf']) {
      expect(inflightErrorFromJsonRpc({ code: -32000, message: 'x', data: { cause } })).toBeUndefined();
    }
  });
});

describe('InflightError.is', () => {
  it('recognises an error by its registry brand, as another copy of the class would brand it', () => {
    const brand = Symbol.for('@mcp-inflight/core/InflightError');
    // What a second copy of the class makes: its own prototype chain, the same registry symbol.
    const foreign = Object.assign(new Error('x'), { [brand]: true, code: 'CEILING' });
    expect(InflightError.is(foreign)).toBe(true);
    expect(foreign instanceof InflightError).toBe(true);
    expect(InflightError.is(new InflightError('SHUTDOWN'))).toBe(true);
  });

  it('does not take a lookalike by name and code, a plain Error, or a primitive', () => {
    expect(InflightError.is({ name: 'InflightError', code: 'CEILING', message: 'x' })).toBe(false);
    expect(new Error('x') instanceof InflightError).toBe(false);
    for (const value of [null, undefined, 0, 'InflightError']) expect(InflightError.is(value)).toBe(false);
  });
});
