import { describe, expect, it } from 'vitest';
import {
  allowsBatches,
  DEFAULT_HTTP_REVISION,
  hasProgressMessage,
  hasStreamableHttp,
  isLegacy,
  isRevision,
  LATEST_LEGACY_REVISION,
  MODERN_REVISION,
  metaVersionOf,
  negotiateLegacy,
  PROTOCOL_VERSION_META_KEY,
  REVISIONS,
  type Revision,
  revisionOf,
  revisionOfHeader,
} from './revisions.js';

const withMeta = (version: unknown) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'work', _meta: { [PROTOCOL_VERSION_META_KEY]: version } },
});

describe('revisions', () => {
  it('lists the five revisions oldest first', () => {
    expect(REVISIONS).toEqual(['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28']);
    expect(MODERN_REVISION).toBe('2026-07-28');
    expect(LATEST_LEGACY_REVISION).toBe('2025-11-25');
    expect(DEFAULT_HTTP_REVISION).toBe('2025-03-26');
    expect(PROTOCOL_VERSION_META_KEY).toBe('io.modelcontextprotocol/protocolVersion');
  });

  it('isRevision accepts exactly the five strings', () => {
    for (const r of REVISIONS) expect(isRevision(r)).toBe(true);
    for (const bad of ['draft', '2025-03-27', '', 20250326, null, undefined, ['2025-03-26']])
      expect(isRevision(bad)).toBe(false);
  });

  it('answers the per-revision feature questions', () => {
    const table: Record<Revision, [legacy: boolean, message: boolean, batches: boolean, http: boolean]> = {
      '2024-11-05': [true, false, false, false],
      '2025-03-26': [true, true, true, true],
      '2025-06-18': [true, true, false, true],
      '2025-11-25': [true, true, false, true],
      '2026-07-28': [false, true, false, true],
    };
    for (const r of REVISIONS) {
      expect([isLegacy(r), hasProgressMessage(r), allowsBatches(r), hasStreamableHttp(r)]).toEqual(table[r]);
    }
  });
});

describe('revisionOf', () => {
  it('reads the 2026-07-28 _meta version, which wins over the session revision', () => {
    expect(revisionOf(withMeta('2026-07-28'))).toBe('2026-07-28');
    expect(revisionOf(withMeta('2026-07-28'), '2025-06-18')).toBe('2026-07-28');
    expect(revisionOf(withMeta('2025-06-18'), '2024-11-05')).toBe('2025-06-18');
  });

  it('gives undefined for a _meta version we do not speak, even with a session revision', () => {
    expect(revisionOf(withMeta('2099-01-01'), '2025-06-18')).toBeUndefined();
    expect(revisionOf(withMeta(20260728), '2025-06-18')).toBeUndefined();
    expect(revisionOf(withMeta(null), '2025-06-18')).toBeUndefined();
  });

  it('falls back to the session revision when the message names none', () => {
    expect(revisionOf({ method: 'tools/call', params: {} }, '2025-06-18')).toBe('2025-06-18');
    expect(revisionOf({ method: 'tools/call', params: { _meta: {} } }, '2025-11-25')).toBe('2025-11-25');
    expect(revisionOf({ method: 'tools/call', params: { _meta: { progressToken: 1 } } }, '2024-11-05')).toBe(
      '2024-11-05',
    );
    expect(revisionOf({ method: 'notifications/initialized' }, '2025-03-26')).toBe('2025-03-26');
  });

  it('gives undefined with neither a _meta version nor a session revision', () => {
    expect(revisionOf({ method: 'tools/call', params: {} })).toBeUndefined();
  });

  it('survives odd shapes without throwing', () => {
    for (const odd of [
      null,
      undefined,
      42,
      'text',
      [],
      { params: null },
      { params: 'x' },
      { params: { _meta: null } },
      { params: { _meta: 'x' } },
    ]) {
      expect(revisionOf(odd, '2025-06-18')).toBe('2025-06-18');
      expect(metaVersionOf(odd)).toBeUndefined();
    }
  });

  it('metaVersionOf returns the raw claim, known or not', () => {
    expect(metaVersionOf(withMeta('2099-01-01'))).toBe('2099-01-01');
    expect(metaVersionOf(withMeta('2026-07-28'))).toBe('2026-07-28');
  });
});

describe('revisionOfHeader', () => {
  it('reads a missing MCP-Protocol-Version header as 2025-03-26 [H37]', () => {
    expect(revisionOfHeader(undefined)).toBe('2025-03-26');
    expect(revisionOfHeader(null)).toBe('2025-03-26');
    expect(revisionOfHeader('')).toBe('2025-03-26');
  });

  it('reads a known header as itself and an unknown one as undefined (the server answers 400) [H38]', () => {
    for (const r of REVISIONS) expect(revisionOfHeader(r)).toBe(r);
    expect(revisionOfHeader('2099-01-01')).toBeUndefined();
    expect(revisionOfHeader(' 2025-06-18')).toBeUndefined();
  });
});

describe('negotiateLegacy', () => {
  it('answers a legacy revision we speak with the same revision [M17]', () => {
    for (const r of ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'] as const)
      expect(negotiateLegacy(r)).toBe(r);
  });

  it('answers anything else with the newest legacy revision', () => {
    expect(negotiateLegacy('2026-07-28')).toBe('2025-11-25');
    expect(negotiateLegacy('2099-01-01')).toBe('2025-11-25');
    expect(negotiateLegacy(undefined)).toBe('2025-11-25');
    expect(negotiateLegacy(42)).toBe('2025-11-25');
  });
});
