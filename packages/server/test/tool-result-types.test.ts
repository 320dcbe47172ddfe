/**
 * The tool result's types under strict: a block narrows by `type`, so `.text` is a string after a check and
 * not before; `structuredContent` is `unknown` (any JSON value on 2026-07-28). Type-checked against the
 * built package, as users import it.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { typecheckExamples } from '../../core/test/support/doc-checks.js';

const coreDir = join(dirname(fileURLToPath(import.meta.url)), '..');

const narrowing = `
import type { McpClient } from '@mcp-inflight/client';
import type { CallToolResult } from '@mcp-inflight/core';
declare const client: McpClient;
const result: CallToolResult = await client.callTool('work', { steps: 1, intervalMs: 0 });
const first = result.content[0];
if (first?.type === 'text') {
  const text: string = first.text;
  console.log(text);
}
if (first?.type === 'image') {
  const mimeType: string = first.mimeType;
  console.log(mimeType);
}
if (first?.type === 'unknown') console.log(first.block);
// @ts-expect-error: not narrowed, so not every block has text
const unchecked: string = first.text;
// @ts-expect-error: structuredContent may be any JSON value; check it before reading
const steps: number = result.structuredContent.steps;
console.log(unchecked, steps);
`;

const building = `
import type { TextContent } from '@mcp-inflight/core';
import { defineTool } from '@mcp-inflight/server';
import * as z from 'zod';
const block: TextContent = { type: 'text', text: 'ok' };
defineTool({
  name: 'shaped',
  input: z.object({}),
  output: z.object({ steps: z.number() }),
  run: () => ({ content: [block], structuredContent: { steps: 3 } }),
});
defineTool({
  name: 'wrong',
  input: z.object({}),
  // @ts-expect-error: a text block's text is a string
  run: () => ({ content: [{ type: 'text', text: 42 }] }),
});
`;

describe('CallToolResult types', () => {
  it('narrow content blocks by type under strict, and keep structuredContent unknown', () => {
    const examples = [
      { name: 'narrowing', code: narrowing },
      { name: 'building', code: building },
    ];
    expect(typecheckExamples(coreDir, examples, { dirName: '.doc-examples-types' })).toBe('');
  }, 60_000);
});
