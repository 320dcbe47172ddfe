import type { HandlerContext } from '../shapes.js';
import {
  type ProgressReporter,
  type ProgressReporterOptions,
  progressReporter,
} from './progress-reporter.js';

/**
 * Wraps an SDK tool (or any request) handler so it gets a {@link ProgressReporter} as a third argument, and
 * the reporter is finished for it: the last coalesced value is flushed just before the result goes out, and
 * nothing is sent after the result, an error or a cancel [PG12]. Works for v1 `(args, extra)` and v2
 * `(args, ctx)` handlers; the argument types come from where the wrapper is used.
 *
 * @example
 * ```ts
 * import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
 * import { withProgress } from '@mcp-inflight/sdk';
 * import { z } from 'zod';
 *
 * const server = new McpServer({ name: 'worker', version: '1.0.0' });
 * server.registerTool(
 *   'work',
 *   { inputSchema: { steps: z.number().int() } },
 *   withProgress(async ({ steps }, extra, progress) => {
 *     for (let i = 1; i <= steps && !extra.signal.aborted; i++) progress.report(i, steps, `step ${i}`);
 *     return { content: [{ type: 'text', text: 'done' }] };
 *   }),
 * );
 * ```
 */
export function withProgress<Args, Context extends HandlerContext, Result>(
  handler: (args: Args, context: Context, progress: ProgressReporter) => Result | Promise<Result>,
  options: ProgressReporterOptions = {},
): (args: Args, context: Context) => Promise<Result> {
  return async (args, context) => {
    const progress = progressReporter(context, options);
    try {
      const result = await handler(args, context, progress);
      // Flush before the SDK writes the response: the final value is never lost to coalescing.
      progress.finish();
      return result;
    } catch (error) {
      progress.close();
      throw error;
    }
  };
}
