import { describe, expect, it } from 'vitest';
import { forwardedParams } from './messages.js';

describe('forwardedParams', () => {
  it('drops the host’s token and reserved keys, keeps the rest, and leaves params without _meta alone', () => {
    const params = { name: 'w', _meta: { progressToken: 0, 'io.modelcontextprotocol/clientInfo': {}, x: 1 } };
    expect(forwardedParams(params)).toEqual({ name: 'w', _meta: { x: 1 } });
    expect(forwardedParams({ name: 'w', _meta: { progressToken: 'a' } })).toEqual({ name: 'w' });
    const plain = { name: 'w' };
    expect(forwardedParams(plain)).toBe(plain);
    expect(forwardedParams(undefined)).toBeUndefined();
  });
});
