import { JsonRpcError } from '@mcp-inflight/core';
import { describe, expect, it } from 'vitest';
import { bindingOf, MAX_REQUEST_STATE_CHARS, RequestStateSigner } from './request-state.js';

const binding = bindingOf('tools/call', { name: 'deploy', arguments: { env: 'prod', n: 1 } }, 'alice');

async function rejection(promise: Promise<unknown>): Promise<JsonRpcError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(JsonRpcError);
  return error as JsonRpcError;
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
/**
 * Changes one character of the state at `index` to another of the base64url alphabet, flipping its top
 * bit (the low bits of a final character may be padding that decodes to the same bytes).
 */
function flip(state: string, index: number): string {
  const c = ALPHABET[ALPHABET.indexOf(state[index] ?? 'A') ^ 32];
  return state.slice(0, index) + c + state.slice(index + 1);
}

describe('RequestStateSigner', () => {
  it('opens what it sealed, for the same binding (key order in params aside)', async () => {
    const signer = new RequestStateSigner();
    const state = await signer.seal({ step: 2, asked: ['confirm'] }, binding);
    const reordered = bindingOf('tools/call', { arguments: { n: 1, env: 'prod' }, name: 'deploy' }, 'alice');
    await expect(signer.open(state, reordered)).resolves.toEqual({ step: 2, asked: ['confirm'] });
  });

  it('rejects every single-character change anywhere in the state with -32602', async () => {
    const signer = new RequestStateSigner();
    const state = await signer.seal({ admin: false }, binding);
    for (let i = 3; i < state.length; i++) {
      if (state[i] === '.') continue;
      const error = await rejection(signer.open(flip(state, i), binding));
      expect(error.code).toBe(-32602);
      expect(error.data).toEqual({ reason: 'invalid_request_state' });
    }
  });

  it('rejects a payload re-encoded by the client (signed, not trusted)', async () => {
    const signer = new RequestStateSigner();
    const state = await signer.seal({ admin: false }, binding);
    const [, body, mac] = state.split('.');
    const forged = Buffer.from(
      Buffer.from(body ?? '', 'base64url')
        .toString()
        .replace('false', 'true'),
    ).toString('base64url');
    expect((await rejection(signer.open(`v1.${forged}.${mac}`, binding))).message).toMatch(/verification/);
  });

  it('rejects state presented by another principal, on another request, or with other params [MR5]', async () => {
    const signer = new RequestStateSigner();
    const state = await signer.seal(1, binding);
    const others = [
      bindingOf('tools/call', { name: 'deploy', arguments: { env: 'prod', n: 1 } }, 'mallory'),
      bindingOf('tools/call', { name: 'deploy', arguments: { env: 'prod', n: 1 } }),
      bindingOf('prompts/get', { name: 'deploy', arguments: { env: 'prod', n: 1 } }, 'alice'),
      bindingOf('tools/call', { name: 'deploy', arguments: { env: 'dev', n: 1 } }, 'alice'),
    ];
    for (const other of others) expect((await rejection(signer.open(state, other))).code).toBe(-32602);
  });

  it('ignores _meta and the retry fields when binding', async () => {
    const signer = new RequestStateSigner();
    const state = await signer.seal('ok', binding);
    const retry = bindingOf(
      'tools/call',
      {
        name: 'deploy',
        arguments: { env: 'prod', n: 1 },
        _meta: { progressToken: 9 },
        inputResponses: {},
        requestState: state,
      },
      'alice',
    );
    await expect(signer.open(state, retry)).resolves.toBe('ok');
  });

  it('rejects state once its lifetime has passed [MR5]', async () => {
    let now = 1_000_000;
    const signer = new RequestStateSigner({ ttlMs: 5_000, now: () => now });
    const state = await signer.seal('x', binding);
    now += 4_999;
    await expect(signer.open(state, binding)).resolves.toBe('x');
    now += 1;
    expect((await rejection(signer.open(state, binding))).message).toMatch(/expired/);
  });

  it("rejects another signer's state: each has its key (one per process unless a secret is shared)", async () => {
    const secret = crypto.getRandomValues(new Uint8Array(32));
    const a = new RequestStateSigner({ secret });
    const b = new RequestStateSigner({ secret });
    const c = new RequestStateSigner({ secret: crypto.getRandomValues(new Uint8Array(32)) });
    const state = await a.seal('shared', binding);
    await expect(b.open(state, binding)).resolves.toBe('shared');
    expect((await rejection(c.open(state, binding))).code).toBe(-32602);
    // Two default signers share the process key.
    const d = new RequestStateSigner();
    const e = new RequestStateSigner();
    await expect(e.open(await d.seal(1, binding), binding)).resolves.toBe(1);
  });

  it.each([
    ['a number', 42],
    ['an empty string', ''],
    ['no signature', 'v1.eyJlIjoxfQ'],
    ['not base64url', 'v1.@@@.###'],
    ['another format', 'v2.abc.def'],
    ['an oversized string', `v1.${'A'.repeat(MAX_REQUEST_STATE_CHARS)}.AAAA`],
  ])('rejects %s with -32602', async (_what, state) => {
    const signer = new RequestStateSigner();
    expect((await rejection(signer.open(state, binding))).code).toBe(-32602);
  });

  it('refuses a short secret and a non-positive ttl', () => {
    expect(() => new RequestStateSigner({ secret: new Uint8Array(16) })).toThrow(RangeError);
    expect(() => new RequestStateSigner({ ttlMs: 0 })).toThrow(RangeError);
  });
});
