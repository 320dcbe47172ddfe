import { setTimeout as sleep } from 'node:timers/promises';
import type { Endpoint, RequestContext, RequestHandler } from '@mcp-inflight/core';
import { setupExampleServer, type WorkCounters } from './tools.js';

// The tools `@modelcontextprotocol/conformance` 0.1.16 calls by name in its server scenarios
// (tools-call-simple-text, tools-call-error, tools-call-with-progress). Served only with `--conformance`.

const EMPTY_INPUT = { type: 'object', properties: {} };

const CONFORMANCE_TOOLS = [
  { name: 'test_simple_text', description: 'Returns a fixed text (conformance).', inputSchema: EMPTY_INPUT },
  {
    name: 'test_error_handling',
    description: 'Always fails with isError: true (conformance).',
    inputSchema: EMPTY_INPUT,
  },
  {
    name: 'test_tool_with_progress',
    description: 'Reports progress 0, 50 and 100 of 100, about 50 ms apart (conformance).',
    inputSchema: EMPTY_INPUT,
  },
];

const text = (value: string) => ({ content: [{ type: 'text', text: value }] });

const HANDLERS: Readonly<Record<string, (ctx: RequestContext) => unknown>> = {
  test_simple_text: () => text('This is a simple text response for testing.'),
  // A tool failure is a result with isError, not a JSON-RPC error: the model should see it.
  test_error_handling: () => ({
    ...text('This tool intentionally returns an error for testing'),
    isError: true,
  }),
  test_tool_with_progress: async (ctx) => {
    ctx.progress(0, 100);
    await sleep(50, undefined, { signal: ctx.signal });
    ctx.progress(50, 100);
    await sleep(50, undefined, { signal: ctx.signal });
    ctx.progress(100, 100); // flushed before the result, whatever the coalescing interval
    return text('Progress tool finished after 3 steps.');
  },
};

/**
 * The example server plus the conformance suite's tools. `tools.ts` registers one `tools/list` and one
 * `tools/call` handler; they are captured here and wrapped, so the example's tools keep working unchanged.
 */
export function setupConformanceServer(endpoint: Endpoint, counters: WorkCounters): void {
  const captured = new Map<string, RequestHandler>();
  // Registering through this view captures the two tool handlers instead of installing them.
  const recorder = new Proxy(endpoint, {
    get(target, key) {
      if (key === 'setRequestHandler') {
        return (method: string, handler: RequestHandler) => {
          if (method === 'tools/list' || method === 'tools/call') captured.set(method, handler);
          else target.setRequestHandler(method, handler);
          return recorder;
        };
      }
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  setupExampleServer(recorder, counters);
  const exampleList = captured.get('tools/list');
  const exampleCall = captured.get('tools/call');
  endpoint.setRequestHandler('tools/list', async (params, ctx) => {
    const base = (await exampleList?.(params, ctx)) as { tools?: unknown[] } | undefined;
    return { tools: [...(base?.tools ?? []), ...CONFORMANCE_TOOLS] };
  });
  endpoint.setRequestHandler('tools/call', (params, ctx) => {
    const own = HANDLERS[String(params?.name)];
    if (own) return own(ctx);
    if (!exampleCall) throw new Error('the example server registered no tools/call handler');
    return exampleCall(params, ctx);
  });
}
