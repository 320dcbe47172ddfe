import { Endpoint } from '@mcp-inflight/core';
import {
  type ParamHeader,
  paramHeaderMismatch,
  paramHeadersOf,
  paramHeaderValue,
  servedParamHeaders,
} from '@mcp-inflight/core/adapter';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { defineTool } from './define-tool.js';
import { serveTools } from './serve-tools.js';

const object = (properties: Record<string, unknown>) => ({
  type: 'object',
  properties,
});
const problemsOf = (schema: unknown) => paramHeadersOf(schema).problems;

describe('x-mcp-header constraints (2026-07-28 streamable-http "Schema Extension")', () => {
  it('reads valid annotations at their property paths, nested objects included', () => {
    const schema = object({
      region: { type: 'string', 'x-mcp-header': 'Region' },
      priority: { type: 'integer', 'x-mcp-header': 'Priority' },
      verbose: { type: ['boolean', 'null'], 'x-mcp-header': 'Verbose' },
      where: object({ zone: { type: 'string', 'x-mcp-header': 'Zone' } }),
      query: { type: 'string' },
    });
    expect(paramHeadersOf(schema)).toEqual({
      headers: [
        { name: 'Region', path: ['region'], type: 'string' },
        { name: 'Priority', path: ['priority'], type: 'integer' },
        { name: 'Verbose', path: ['verbose'], type: 'boolean' },
        { name: 'Zone', path: ['where', 'zone'], type: 'string' },
      ],
      problems: [],
    });
  });

  it('an empty name is invalid', () => {
    expect(problemsOf(object({ v: { type: 'string', 'x-mcp-header': '' } }))).toEqual([
      '#/properties/v: x-mcp-header "" is empty or not a string',
    ]);
  });

  it.each([
    ['My Region', 'a space'],
    ['Region:Primary', 'a colon'],
    ['Région', 'non-ASCII'],
    ['Region\t1', 'a tab'],
    ['Region\r\n', 'CR LF'],
  ])('a name that is not an HTTP token is invalid: %j (%s)', (name) => {
    expect(problemsOf(object({ v: { type: 'string', 'x-mcp-header': name } }))[0]).toMatch(
      /is not an HTTP token/,
    );
  });

  it.each([
    ['Region', 'Region'],
    ['MyField', 'myfield'],
  ])('names unique case-insensitively: %s and %s clash', (a, b) => {
    const schema = object({
      f1: { type: 'string', 'x-mcp-header': a },
      f2: { type: 'string', 'x-mcp-header': b },
    });
    expect(problemsOf(schema)).toEqual([
      `#/properties/f2: x-mcp-header ${JSON.stringify(b)} repeats the one at #/properties/f1`,
    ]);
    expect(paramHeadersOf(schema).headers).toEqual([]); // the tool is invalid as a whole
  });

  it.each([
    [{ type: 'object' }],
    [{ type: 'array', items: { type: 'string' } }],
    [{ type: 'null' }],
    [{ type: 'number' }],
    [{ type: ['string', 'integer'] }],
    [{}],
  ])('only string, integer or boolean may be mirrored: %j is refused', (property) => {
    expect(problemsOf(object({ p: { ...property, 'x-mcp-header': 'P' } }))[0]).toMatch(
      /not string, integer or boolean/,
    );
  });

  it.each([
    ['items', { type: 'array', items: { type: 'string', 'x-mcp-header': 'X' } }],
    ['anyOf', { anyOf: [{ type: 'string', 'x-mcp-header': 'X' }, { type: 'integer' }] }],
    ['oneOf', { oneOf: [object({ a: { type: 'string', 'x-mcp-header': 'X' } })] }],
    ['allOf', { allOf: [{ type: 'string', 'x-mcp-header': 'X' }] }],
    ['not', { not: { type: 'string', 'x-mcp-header': 'X' } }],
    // biome-ignore lint/suspicious/noThenProperty: JSON Schema's conditional keyword, not a thenable
    ['if/then', { if: { type: 'string' }, then: { type: 'string', 'x-mcp-header': 'X' } }],
    [
      'additionalProperties',
      {
        type: 'object',
        additionalProperties: { type: 'string', 'x-mcp-header': 'X' },
      },
    ],
  ])('an annotation reached through %s is not statically reachable', (_keyword, property) => {
    expect(problemsOf(object({ p: property }))[0]).toMatch(/is not reachable through properties alone/);
  });

  it('an annotation behind a $ref (in $defs) is not statically reachable', () => {
    const schema = {
      ...object({ p: { $ref: '#/$defs/region' } }),
      $defs: { region: { type: 'string', 'x-mcp-header': 'Region' } },
    };
    expect(problemsOf(schema)).toEqual([
      '#/$defs/region: x-mcp-header is not reachable through properties alone',
    ]);
  });

  it('a schema with no annotation mirrors nothing', () => {
    expect(paramHeadersOf(object({ a: { type: 'string' } }))).toEqual({
      headers: [],
      problems: [],
    });
    expect(paramHeadersOf(undefined)).toEqual({ headers: [], problems: [] });
  });
});

describe('mirrored values and their comparison', () => {
  const region: ParamHeader = {
    name: 'Region',
    path: ['region'],
    type: 'string',
  };
  const priority: ParamHeader = {
    name: 'Priority',
    path: ['priority'],
    type: 'integer',
  };
  const verbose: ParamHeader = {
    name: 'Verbose',
    path: ['verbose'],
    type: 'boolean',
  };
  const zone: ParamHeader = {
    name: 'Zone',
    path: ['where', 'zone'],
    type: 'string',
  };

  it('string as is, integer in decimal, boolean lowercase; null or absent is no header', () => {
    expect(paramHeaderValue({ region: ' padded ' }, region)).toBe(' padded ');
    expect(paramHeaderValue({ priority: -7 }, priority)).toBe('-7');
    expect(paramHeaderValue({ verbose: false }, verbose)).toBe('false');
    expect(paramHeaderValue({ where: { zone: 'a' } }, zone)).toBe('a');
    expect(paramHeaderValue({ verbose: null }, verbose)).toBeUndefined();
    expect(paramHeaderValue({}, region)).toBeUndefined();
    expect(paramHeaderValue({ where: 'flat' }, zone)).toBeUndefined();
  });

  it('a value in the body without its header is a mismatch', () => {
    expect(paramHeaderMismatch(region, { region: 'us' }, undefined)).toBe(
      'Mcp-Param-Region is missing but arguments.region is "us"',
    );
  });

  it('a malformed header is a mismatch', () => {
    expect(paramHeaderMismatch(region, { region: 'us' }, null)).toMatch(/is malformed/);
  });

  it('a header that differs from the body is a mismatch', () => {
    expect(paramHeaderMismatch(region, { region: 'us' }, 'eu')).toBe(
      'Mcp-Param-Region "eu" does not match arguments.region "us"',
    );
    expect(paramHeaderMismatch(verbose, { verbose: true }, 'True')).toMatch(/does not match/);
  });

  it('a header with no value in the body is a mismatch; neither is fine', () => {
    expect(paramHeaderMismatch(region, {}, 'us')).toMatch(/has no value to mirror/);
    expect(paramHeaderMismatch(verbose, { verbose: null }, undefined)).toBeUndefined();
  });

  it('integers compare numerically', () => {
    expect(paramHeaderMismatch(priority, { priority: 42 }, '42.0')).toBeUndefined();
    expect(paramHeaderMismatch(priority, { priority: 42 }, '42')).toBeUndefined();
    expect(paramHeaderMismatch(priority, { priority: 42 }, '43')).toMatch(/does not match/);
    expect(paramHeaderMismatch(priority, { priority: 0 }, '')).toMatch(/does not match/);
  });
});

describe('defineTool and serveTools', () => {
  it('a zod .meta() annotation reaches the listed JSON Schema and the served declaration', async () => {
    const tool = defineTool({
      name: 'execute_sql',
      input: z.object({
        region: z.string().meta({ 'x-mcp-header': 'Region' }),
        query: z.string(),
      }),
      run: () => 'ok',
    });
    const endpoint = new Endpoint({
      role: 'server',
      transport: 'http',
      channel: { write: () => {} },
    });
    serveTools(endpoint, [tool]);
    expect(servedParamHeaders(endpoint, 'execute_sql')).toEqual([
      { name: 'Region', path: ['region'], type: 'string' },
    ]);
    expect(servedParamHeaders(endpoint, 'other')).toEqual([]);
  });

  it.each([
    ['empty', z.object({ v: z.string().meta({ 'x-mcp-header': '' }) }), /is empty/],
    ['not a token', z.object({ v: z.string().meta({ 'x-mcp-header': 'My Region' }) }), /not an HTTP token/],
    [
      'a duplicate',
      z.object({
        a: z.string().meta({ 'x-mcp-header': 'Region' }),
        b: z.string().meta({ 'x-mcp-header': 'REGION' }),
      }),
      /repeats/,
    ],
    ['on a number', z.object({ v: z.number().meta({ 'x-mcp-header': 'Score' }) }), /not string, integer/],
    ['on an object', z.object({ v: z.object({}).meta({ 'x-mcp-header': 'Data' }) }), /not string, integer/],
    [
      'inside an array',
      z.object({ v: z.array(z.string().meta({ 'x-mcp-header': 'Item' })) }),
      /not reachable through properties alone/,
    ],
    [
      'inside a union',
      z.object({
        v: z.union([z.string().meta({ 'x-mcp-header': 'U' }), z.boolean()]),
      }),
      /not reachable through properties alone/,
    ],
  ])('refuses an annotation that is %s', (_what, input, message) => {
    expect(() => defineTool({ name: 'bad', input, run: () => 'never' })).toThrow(message);
  });

  it('accepts integer, optional and nullable mirrored parameters', () => {
    const input = z.object({
      n: z.number().int().meta({ 'x-mcp-header': 'N' }),
      o: z.string().optional().meta({ 'x-mcp-header': 'O' }),
      b: z.boolean().nullable().meta({ 'x-mcp-header': 'B' }),
    });
    expect(() => defineTool({ name: 'fine', input, run: () => 'ok' })).not.toThrow();
  });
});
