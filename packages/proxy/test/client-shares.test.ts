// Which share a host's requests run in [rule 14, issue 45]: a token; else the address plus the clientInfo
// name the host declares, at most `maxPerAddress` names apart per address. Core's Admission, no sockets.
import type { Endpoint } from '@mcp-inflight/core';
import { Admission } from '@mcp-inflight/core/adapter';
import { describe, expect, it } from 'vitest';
import { ClientShares, clientNameOf } from '../src/fair-shares.js';

const named = (name: string) => ({ _meta: { 'io.modelcontextprotocol/clientInfo': { name, version: '1' } } });
const call = (params: Record<string, unknown> | undefined) => ({
  method: 'tools/call',
  params,
  source: 0,
  parts: 1,
});

describe('client shares', () => {
  it("reads the clientInfo name from 2026-07-28 `_meta` or a legacy initialize's params", () => {
    expect(clientNameOf(named('cursor'))).toBe('cursor');
    expect(
      clientNameOf({ protocolVersion: '2025-11-25', clientInfo: { name: 'claude', version: '1' } }),
    ).toBe('claude');
    expect(clientNameOf({ _meta: { 'io.modelcontextprotocol/clientInfo': { name: 7 } } })).toBeUndefined();
    expect(clientNameOf(named('x'.repeat(1_000)))?.length).toBe(128);
  });

  it('keeps at most maxPerAddress names apart per address; the rest share the address, until one is idle', () => {
    const admission = new Admission({ maxInFlight: 10, maxInFlightPerShare: 1 });
    const shares = new ClientShares(admission, 2);
    const request = (address: string, name?: string) => {
      const endpoint = {} as Endpoint; // one 2026-07-28 request, one endpoint
      shares.assign(endpoint, `address ${address}`, false);
      return admission.admit(endpoint, call(name === undefined ? undefined : named(name)), () => {});
    };
    const a = request('1', 'a');
    request('1', 'b');
    request('1', 'c'); // a third name: the address's own share
    request('2', 'c'); // another address has names of its own
    expect(
      ['address 1 app a', 'address 1 app b', 'address 1', 'address 2 app c'].map((k) =>
        admission.inFlightOf(k),
      ),
    ).toEqual([1, 1, 1, 1]);
    expect(request('1').state).toBe('queued'); // no name: the address's share, at its cap of one
    admission.release(a); // `a` has nothing left: its place goes to the next new name
    request('1', 'd');
    expect(admission.inFlightOf('address 1 app d')).toBe(1);
  });

  it("names a legacy session once, by its initialize; a token's endpoints are the token's share", () => {
    const admission = new Admission();
    const shares = new ClientShares(admission, 16);
    const session = {} as Endpoint;
    shares.assign(session, 'address 1', true);
    admission.admit(
      session,
      { method: 'initialize', params: { clientInfo: { name: 'ide' } }, source: 0, parts: 1 },
      () => {},
    );
    admission.admit(session, call(named('other')), () => {}); // a later request cannot rename the session
    expect(admission.inFlightOf('address 1 app ide')).toBe(2);
    const tokened = {} as Endpoint;
    shares.assign(tokened, 'token alpha', false);
    admission.admit(tokened, call(named('anything')), () => {});
    expect(admission.inFlightOf('token alpha')).toBe(1);
  });
});
