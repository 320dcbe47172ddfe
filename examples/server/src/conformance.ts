import { setTimeout as sleep } from 'node:timers/promises';
import type { Endpoint } from '@mcp-inflight/core';
import { exampleTools, serveTools, type Tool, text, type WorkCounters } from './tools.js';

// The tools `@modelcontextprotocol/conformance` 0.1.16 calls by name in its server scenarios
// (tools-call-simple-text, tools-call-error, tools-call-with-progress). Served only with `--conformance`.

const EMPTY_INPUT = { type: 'object', properties: {} };

const CONFORMANCE_TOOLS: Tool[] = [
  {
    name: 'test_simple_text',
    description: 'Returns a fixed text (conformance).',
    inputSchema: EMPTY_INPUT,
    call: () => text('This is a simple text response for testing.'),
  },
  {
    name: 'test_error_handling',
    description: 'Always fails with isError: true (conformance).',
    inputSchema: EMPTY_INPUT,
    // A tool failure is a result with isError, not a JSON-RPC error: the model should see it.
    call: () => ({ ...text('This tool intentionally returns an error for testing'), isError: true }),
  },
  {
    name: 'test_tool_with_progress',
    description: 'Reports progress 0, 50 and 100 of 100, about 50 ms apart (conformance).',
    inputSchema: EMPTY_INPUT,
    call: async (_args, ctx) => {
      ctx.progress(0, 100);
      await sleep(50, undefined, { signal: ctx.signal });
      ctx.progress(50, 100);
      await sleep(50, undefined, { signal: ctx.signal });
      ctx.progress(100, 100); // flushed before the result, whatever the coalescing interval
      return text('Progress tool finished after 3 steps.');
    },
  },
];

/** The example server plus the conformance suite's tools, on one endpoint. */
export function setupConformanceServer(endpoint: Endpoint, counters: WorkCounters): void {
  serveTools(endpoint, [...exampleTools(counters), ...CONFORMANCE_TOOLS]);
}
