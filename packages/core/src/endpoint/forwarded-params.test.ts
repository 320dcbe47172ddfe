import { describe, expect, it } from 'vitest';
import { relayedParams } from './messages.js';

describe('relayedParams', () => {
  it('drops the host’s token and reserved keys, keeps the rest, and leaves params without _meta alone', () => {
    const params = { name: 'w', _meta: { progressToken: 0, 'io.modelcontextprotocol/clientInfo': {}, x: 1 } };
    expect(relayedParams(params)).toEqual({ name: 'w', _meta: { x: 1 } });
    expect(relayedParams({ name: 'w', _meta: { progressToken: 'a' } })).toEqual({ name: 'w' });
    const plain = { name: 'w' };
    expect(relayedParams(plain)).toBe(plain);
    expect(relayedParams(undefined)).toBeUndefined();
  });
});
