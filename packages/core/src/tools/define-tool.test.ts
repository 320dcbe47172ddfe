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
    [undefined, /defineTool takes a definition object \{ name, input, run \}, got undefined/],
    [{ input, run }, /name must be a non-empty string, got undefined/],
    [{ name: '', input, run }, /name must be a non-empty string, got ""/],
    [
      { name: 't', run },
      /defineTool\('t'\): input must be a zod 4 schema such as z\.object\(\{\.\.\.\}\), got undefined/,
    ],
    [
      { name: 't', input: { type: 'object', properties: {} }, run },
      /input must be a zod 4 schema .* got object; .*install zod@\^4/,
    ],
    [
      { name: 't', input, output: { type: 'object' }, run },
      /defineTool\('t'\): output must be a zod 4 schema/,
    ],
    [{ name: 't', input: { _def: { typeName: 'ZodObject' } }, run }, /input is a zod 3 schema; .*zod 4/],
    [{ name: 't', input }, /defineTool\('t'\): run must be a function \(args, ctx\) => result/],
  ])('%j throws a TypeError naming the fix', (definition, message) => {
    expect(define(definition)).toThrow(TypeError);
    expect(define(definition)).toThrow(message);
  });
});
