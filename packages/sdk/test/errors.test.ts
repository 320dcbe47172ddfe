import { InflightError } from '@mcp-inflight/core';
import { describe, expect, it } from 'vitest';
import { inflightErrorFromAbort, inflightErrorFromSdk, isConnectionClosed, WireError } from '../src/index.js';

describe('inflightErrorFromAbort (the reason a host cancel aborts a handler with)', () => {
  it('keeps the cause of a reason mcp-inflight wrote', () => {
    const wire = InflightError.ceiling(500, { progressCount: 2 }).wireReason();
    const error = inflightErrorFromAbort(wire);
    expect(error.code).toBe('CEILING');
    expect(error.message).toBe('hard ceiling of 500 ms reached (2 updates before)');
    expect(error.origin).toBe('remote'); // the peer's limit, not ours
  });

  it('a reason the peer sent is remote; an abort without one is local', () => {
    expect(inflightErrorFromAbort('user stop')).toMatchObject({ code: 'CANCELLED', origin: 'remote' });
    expect(inflightErrorFromAbort(undefined).origin).toBe('local');
    const closed = Object.assign(new Error('Connection closed'), { code: 'CONNECTION_CLOSED' });
    expect(inflightErrorFromAbort(closed).origin).toBe('local');
  });

  it('reads any other text, and no reason, as the caller cancelling', () => {
    expect(inflightErrorFromAbort('user stop').code).toBe('CANCELLED');
    expect(inflightErrorFromAbort('NOT_A_CODE: x').code).toBe('CANCELLED');
    expect(inflightErrorFromAbort(new DOMException('This operation was aborted', 'AbortError')).code).toBe(
      'CANCELLED',
    );
    expect(inflightErrorFromAbort(undefined).code).toBe('CANCELLED');
  });

  it("reads v2's connection-closed abort as DISCONNECTED", () => {
    const closed = Object.assign(new Error('Connection closed'), { code: 'CONNECTION_CLOSED' });
    expect(inflightErrorFromAbort(closed).code).toBe('DISCONNECTED');
  });
});

describe('inflightErrorFromSdk', () => {
  it('tells our own link closing from a peer naming a cause', () => {
    const v1Closed = Object.assign(new Error('MCP error -32000: Connection closed'), { code: -32000 });
    expect(isConnectionClosed(v1Closed)).toBe(true);
    expect((inflightErrorFromSdk(v1Closed, 'UPSTREAM_CLOSED') as InflightError).code).toBe('UPSTREAM_CLOSED');
    const peer = Object.assign(new Error('MCP error -32000: the peer disconnected'), { code: -32000 });
    expect(isConnectionClosed(peer)).toBe(false);
    expect(inflightErrorFromSdk(peer, 'DISCONNECTED')).toBe(peer);
  });

  it('reads data.cause of every code, and strips v1 McpError message prefix', () => {
    for (const code of [
      'CANCELLED',
      'IDLE_TIMEOUT',
      'CEILING',
      'DISCONNECTED',
      'UPSTREAM_CLOSED',
      'SHUTDOWN',
    ] as const) {
      const wire = new InflightError(code, 'why').toJsonRpc();
      const sdkError = Object.assign(new Error(`MCP error ${wire.code}: why`), wire);
      const mapped = inflightErrorFromSdk(sdkError, 'DISCONNECTED') as InflightError;
      expect(mapped.code).toBe(code);
      expect(mapped.message).toBe('why');
    }
  });
});

describe('WireError', () => {
  it('carries the numeric code and data an SDK server serializes', () => {
    const cause = InflightError.idle(200, { elapsedMs: 201, progressCount: 0 });
    const error = WireError.of(cause);
    expect(error.code).toBe(-32001);
    expect(error.message).toBe(cause.message);
    expect(error.data).toMatchObject({ cause: 'IDLE_TIMEOUT', limitMs: 200 });
    expect(error.cause).toBe(cause);
  });
});
