import { describe, expect, it } from 'vitest';
import { absorbLateMessages } from '../src/index.js';

// What both SDKs pass to onerror for stray traffic, verbatim.
const lateProgress = new Error(
  'Received a progress notification for an unknown token: {"method":"notifications/progress","params":{"progressToken":3,"progress":4}}',
);
const lateResponse = new Error(
  'Received a response for an unknown message ID: {"jsonrpc":"2.0","id":3,"result":{}}',
);

/** Calls onerror the way the SDK's Protocol does: by reading the property at the time of the error. */
function raise(client: { onerror?: ((error: Error) => void) | undefined }, error: Error): void {
  client.onerror?.(error);
}

describe('absorbLateMessages', () => {
  it('absorbs and counts late progress and late responses; other errors still reach onerror', () => {
    const seen: Error[] = [];
    const client: { onerror?: (error: Error) => void } = { onerror: (e) => seen.push(e) };
    const late = absorbLateMessages(client);
    raise(client, lateProgress);
    raise(client, lateProgress);
    raise(client, lateResponse);
    const real = new Error('Failed to send cancellation: EPIPE');
    raise(client, real);
    expect(seen).toEqual([real]);
    expect(late.lateProgress).toBe(2);
    expect(late.lateResponses).toBe(1);
  });

  it('keeps filtering when onerror is assigned after it is installed', () => {
    const seen: Error[] = [];
    const client: { onerror?: (error: Error) => void } = {};
    absorbLateMessages(client);
    client.onerror = (e) => seen.push(e);
    raise(client, lateResponse);
    raise(client, new Error('other'));
    expect(seen.map((e) => e.message)).toEqual(['other']);
  });

  it('is idempotent per client, and tells onLate listeners', () => {
    const client = {};
    const kinds: string[] = [];
    const first = absorbLateMessages(client, { onLate: (kind) => kinds.push(kind) });
    const second = absorbLateMessages(client);
    expect(second).toBe(first);
    raise(client, lateProgress);
    raise(client, lateResponse);
    expect(kinds).toEqual(['progress', 'response']);
    expect(first.lateProgress + first.lateResponses).toBe(2);
  });

  it('dispose() puts the current onerror back as a plain property', () => {
    const seen: Error[] = [];
    const client: { onerror?: (error: Error) => void } = {};
    const late = absorbLateMessages(client);
    client.onerror = (e) => seen.push(e);
    late.dispose();
    raise(client, lateProgress);
    expect(seen).toEqual([lateProgress]);
    expect(Object.getOwnPropertyDescriptor(client, 'onerror')?.writable).toBe(true);
  });
});
