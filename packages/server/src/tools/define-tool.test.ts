import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { defineTool } from './define-tool.js';

// defineTool checks what plain JavaScript can get wrong, where it is written, naming the accepted form.
describe('defineTool argument mistakes', () => {
  const input = z.object({});
  const run = () => 'ok';
  const define = (definition: unknown) => () => defineTool(definition as Parameters<typeof defineTool>[0]);

  it('accepts a zod 4 input and output schema', () => {
    expect(defineTool({ name: 'ok', input, output: z.object({ n: z.number() }), run }).name).toBe('ok');
  });

  it.each([
    [undefined, /^defineTool takes \{ name, input, run \}: name must be a non-empty string$/],
    [{ input, run }, /name must be a non-empty string/],
    [{ name: '', input, run }, /name must be a non-empty string/],
    [{ name: 't', run }, /^defineTool\('t'\): input must be a zod 4 schema \(install zod@\^4\)$/],
    [{ name: 't', input: { type: 'object', properties: {} }, run }, /input must be a zod 4 schema \(/],
    [
      { name: 't', input, output: { type: 'object' }, run },
      /^defineTool\('t'\): output must be a zod 4 schema/,
    ],
    [
      { name: 't', input: { _def: { typeName: 'ZodObject' } }, run },
      /input must be a zod 4 schema, not zod 3/,
    ],
    [{ name: 't', input }, /^defineTool\('t'\): run must be a function$/],
  ])('%j throws a TypeError naming the fix', (definition, message) => {
    expect(define(definition)).toThrow(TypeError);
    expect(define(definition)).toThrow(message);
  });
});
