import type { HandlerContext } from '../shapes.js';
import {
  type ProgressReporter,
  type ProgressReporterOptions,
  progressReporter,
} from './progress-reporter.js';

/**
 * Wraps an SDK tool, prompt or resource handler so it gets a {@link ProgressReporter} after its own
 * arguments, and the reporter is finished for it: the last coalesced value is flushed just before the
 * result goes out, and nothing is sent after the result, an error or a cancel [PG12]. Works for v1
 * `(args, extra)` and v2 `(args, ctx)` handlers (a tool's or a prompt's arguments, a resource's `uri`),
 * and for a resource template's `(uri, variables, extra)`: the SDK's context is always the last argument,
 * and the reporter comes after it. The argument types come from where the wrapper is used (a template's
 * four parameters need annotations).
 *
 * @example
 * ```ts
 * import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
 * import type { Variables } from '@modelcontextprotocol/sdk/shared/uriTemplate.js';
 * import { type ProgressReporter, type V1HandlerExtra, withProgress } from '@mcp-inflight/sdk';
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
 * server.registerPrompt(
 *   'summary',
 *   { argsSchema: { topic: z.string() } },
 *   withProgress(async ({ topic }, _extra, progress) => {
 *     progress.report(1, 1, 'gathered');
 *     return { messages: [{ role: 'user', content: { type: 'text', text: `Summarise ${topic}` } }] };
 *   }),
 * );
 * server.registerResource(
 *   'log',
 *   new ResourceTemplate('log://{day}', { list: undefined }),
 *   {},
 *   // A template's handler takes four parameters: annotate them (TypeScript does not infer them here).
 *   withProgress(async (uri: URL, { day }: Variables, _extra: V1HandlerExtra, progress: ProgressReporter) => {
 *     progress.report(1, 1, `read ${String(day)}`);
 *     return { contents: [{ uri: uri.href, text: `log of ${String(day)}` }] };
 *   }),
 * );
 * ```
 */
export function withProgress<Args, Context extends HandlerContext, Result>(
  handler: (args: Args, context: Context, progress: ProgressReporter) => Result | Promise<Result>,
  options?: ProgressReporterOptions,
): (args: Args, context: Context) => Promise<Result>;
export function withProgress<Uri, Variables, Context extends HandlerContext, Result>(
  handler: (
    uri: Uri,
    variables: Variables,
    context: Context,
    progress: ProgressReporter,
  ) => Result | Promise<Result>,
  options?: ProgressReporterOptions,
): (uri: Uri, variables: Variables, context: Context) => Promise<Result>;
export function withProgress(
  handler: (...params: never[]) => unknown,
  options: ProgressReporterOptions = {},
): (...params: unknown[]) => Promise<unknown> {
  const run = handler as (...params: unknown[]) => unknown;
  return async (...params) => {
    // The SDK passes its context last: (args, extra), (uri, extra) or a template's (uri, variables, extra).
    const progress = progressReporter(params.at(-1) as HandlerContext, options);
    try {
      const result = await run(...params, progress);
      // Flush before the SDK writes the response: the final value is never lost to coalescing.
      progress.finish();
      return result;
    } catch (error) {
      progress.close();
      throw error;
    }
  };
}
