import { setTimeout as sleep } from 'node:timers/promises';
import type { Endpoint } from '@mcp-inflight/core';
import { defineTool, type Tool } from '@mcp-inflight/core/tools';
import * as z from 'zod';
import { exampleTools, serveExample, type WorkCounters } from './tools.js';

// The tools `@modelcontextprotocol/conformance` 0.1.16 calls by name in its server scenarios
// (tools-call-simple-text, tools-call-error, tools-call-with-progress). Served only with `--conformance`.

const noInput = z.object({});

const CONFORMANCE_TOOLS: Tool[] = [
  defineTool({
    name: 'test_simple_text',
    description: 'Returns a fixed text (conformance).',
    input: noInput,
    run: () => 'This is a simple text response for testing.',
  }),
  defineTool({
    name: 'test_error_handling',
    description: 'Always fails with isError: true (conformance).',
    input: noInput,
    // A tool failure is a result with isError, not a JSON-RPC error: the model should see it.
    run: () => ({
      content: [{ type: 'text', text: 'This tool intentionally returns an error for testing' }],
      isError: true,
    }),
  }),
  defineTool({
    name: 'test_tool_with_progress',
    description: 'Reports progress 0, 50 and 100 of 100, about 50 ms apart (conformance).',
    input: noInput,
    run: async (_args, ctx) => {
      ctx.progress(0, 100);
      await sleep(50, undefined, { signal: ctx.signal });
      ctx.progress(50, 100);
      await sleep(50, undefined, { signal: ctx.signal });
      ctx.progress(100, 100); // flushed before the result, whatever the coalescing interval
      return 'Progress tool finished after 3 steps.';
    },
  }),
];

/** The example server plus the conformance suite's tools, on one endpoint. */
export function setupConformanceServer(endpoint: Endpoint, counters: WorkCounters): void {
  serveExample(endpoint, [...exampleTools(counters), ...CONFORMANCE_TOOLS]);
}
