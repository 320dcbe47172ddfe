// The stdio MCP server the growth bench talks to, on core and @mcp-inflight/stdio alone:
//   tool `flood` {updates}: sends that many progress notifications, every one (coalescing off), yielding
//     to the event loop every 256 so the pipe drains, then returns
//   tool `sleep` {ms}: waits, then returns (honours cancellation)
//   request `growth/heap`: { heapUsedBytes (after a full gc when run with --expose-gc), running }
// Every request runs at once (no in-flight gate), so `size` calls in flight are `size` handlers running.
import { ProgressRelay, serveLifecycle } from '@mcp-inflight/core';
import { serveStdio } from '../../packages/stdio/dist/index.js';

let running = 0;
serveStdio(
  (endpoint) => {
    serveLifecycle(endpoint, { serverInfo: { name: 'growth', version: '1' }, capabilities: { tools: {} } });
    endpoint.setRequestHandler('tools/call', async (params, ctx) => {
      const args = params?.arguments ?? {};
      running++;
      try {
        if (params?.name === 'sleep') {
          await new Promise((resolve, reject) => {
            const timer = setTimeout(resolve, args.ms ?? 0);
            ctx.signal.addEventListener('abort', () => {
              clearTimeout(timer);
              reject(ctx.signal.reason);
            });
          });
          return { content: [{ type: 'text', text: 'slept' }] };
        }
        const updates = args.updates ?? 0;
        for (let i = 1; i <= updates; i++) {
          ctx.progress(i, updates);
          if ((i & 255) === 0) await new Promise((r) => setImmediate(r));
        }
        return { content: [{ type: 'text', text: String(updates) }] };
      } finally {
        running--;
      }
    });
    endpoint.setRequestHandler('growth/heap', () => {
      globalThis.gc?.();
      globalThis.gc?.();
      return { heapUsedBytes: process.memoryUsage().heapUsed, running };
    });
  },
  { progressRelay: new ProgressRelay({ minIntervalMs: 0 }), maxInFlight: 1_000_000 },
);
