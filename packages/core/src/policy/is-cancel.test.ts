import { describe, expect, it } from 'vitest';
import { InflightError } from '../errors/inflight-error.js';
import type { Revision } from '../revisions/revisions.js';
import type { TransportKind } from './era-cancel-policy.js';
import { isCancel } from './is-cancel.js';

const disconnected = new InflightError('DISCONNECTED', 'the stream closed');

describe('isCancel', () => {
  it.each<[Revision, TransportKind, boolean]>([
    ['2026-07-28', 'http', true], // closing the stream is the cancel [CN24]
    ['2025-11-25', 'http', false], // a dropped connection is not a cancel [H13]
    ['2025-03-26', 'http', false],
    ['2026-07-28', 'stdio', false], // the peer went away: nobody asked
    ['2024-11-05', 'stdio', false],
  ])('DISCONNECTED on %s %s -> %s', (revision, transport, expected) => {
    expect(isCancel(disconnected, revision, transport)).toBe(expected);
  });

  it('CANCELLED is a cancel on every revision and transport; a limit, a shutdown or a plain error is not', () => {
    expect(isCancel(InflightError.cancelled('stop'), '2025-06-18', 'stdio')).toBe(true);
    expect(isCancel(InflightError.cancelled('stop'), '2026-07-28', 'http')).toBe(true);
    expect(isCancel(InflightError.ceiling(1_000), '2026-07-28', 'http')).toBe(false);
    expect(isCancel(new InflightError('IDLE_TIMEOUT'), '2025-11-25', 'stdio')).toBe(false);
    expect(isCancel(new InflightError('SHUTDOWN'), '2026-07-28', 'http')).toBe(false);
    expect(isCancel(new Error('CANCELLED'), '2026-07-28', 'http')).toBe(false);
    expect(isCancel(undefined, '2026-07-28', 'http')).toBe(false);
  });
});
