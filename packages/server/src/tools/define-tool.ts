import type { InputRequiredResult } from '@mcp-inflight/client/input';
import type { CallToolResult, RequestContext } from '@mcp-inflight/core';
import { type ParamHeader, paramHeadersOf } from '@mcp-inflight/core/adapter';
import * as z from 'zod';

/**
 * What a tool's `run` may return: a full `tools/call` result, a string for one text block, or (to ask the
 * client for input, see `@mcp-inflight/server/input`) an `input_required` result.
 *
 * @example
 * ```ts
 * import type { ToolOutput } from '@mcp-inflight/server';
 * const short: ToolOutput = 'done'; // { content: [{ type: 'text', text: 'done' }] }
 * const full: ToolOutput = { content: [{ type: 'text', text: 'done' }], structuredContent: { steps: 3 } };
 * ```
 */
export type ToolOutput = string | CallToolResult | InputRequiredResult;
// In plain JavaScript `run` may return anything: serveTools checks the value before it goes on the wire.

/**
 * One tool: its name and description as `tools/list` shows them, its input as a zod schema (validated
 * before `run`, and shown as JSON Schema), and what it does.
 *
 * @example
 * ```ts
 * import { type ToolDefinition, defineTool } from '@mcp-inflight/server';
 * import * as z from 'zod';
 * const input = z.object({ text: z.string() });
 * const definition: ToolDefinition<typeof input> = {
 *   name: 'shout',
 *   description: 'Upper-cases the text.',
 *   input,
 *   run: ({ text }) => text.toUpperCase(),
 * };
 * const shout = defineTool(definition);
 * ```
 */
export interface ToolDefinition<Input extends z.ZodType = z.ZodType> {
  /** The tool's name, unique on its server. */
  name: string;
  /** A display name. */
  title?: string;
  /** What the tool does, for the model. */
  description?: string;
  /**
   * The arguments' schema; it should describe an object (MCP tool input is an object). A parameter that
   * 2026-07-28 HTTP clients mirror into an `Mcp-Param-{Name}` header is marked with zod's `.meta()`:
   * `region: z.string().meta({ 'x-mcp-header': 'Region' })` (a string, integer or boolean property reached
   * through object properties only; the server refuses a call whose header disagrees with its body).
   */
  input: Input;
  /**
   * The schema of the tool's `structuredContent`. From 2025-06-18 on it is listed as `outputSchema`, and
   * every result that is not `isError` must carry `structuredContent` that passes it (one that does not
   * is turned into an `isError` result naming the issues, and reported to `onError`); older revisions
   * have neither, so both are left out for them. @default none: no `outputSchema`, nothing checked
   */
  output?: z.ZodType;
  /** Extra fields shown in `tools/list` (`annotations`, `_meta`…). */
  listing?: Record<string, unknown>;
  /**
   * Runs the tool. `ctx.progress` reports progress, `ctx.signal` aborts on cancel or a limit,
   * `ctx.limit()` bounds part of the work. Throw an `InflightError` (or let an aborted signal throw) for
   * a limit, a `JsonRpcError` for a protocol error; any other throw becomes an `isError` result. A
   * returned value that is not a {@link ToolOutput} (a number, `undefined`, a `Date`, a block of no known
   * kind) becomes an `isError` result naming the mistake, and is reported to `serveTools`' `onError`.
   */
  run(args: z.output<Input>, ctx: RequestContext): ToolOutput | Promise<ToolOutput>;
}

/**
 * A tool ready for `serveTools`.
 *
 * @example
 * ```ts
 * import { defineTool, type Tool } from '@mcp-inflight/server';
 * import * as z from 'zod';
 * const ping: Tool = defineTool({ name: 'echo', input: z.object({ v: z.string() }), run: ({ v }) => v });
 * ```
 */
export interface Tool {
  /** The tool's name. */
  readonly name: string;
  /** Its definition. */
  readonly definition: ToolDefinition;
}

/**
 * Makes a tool from its definition, keeping the types of `run`'s arguments tied to `input`. Throws when an
 * `x-mcp-header` annotation in `input` breaks a constraint of 2026-07-28 (empty, not an HTTP token, a
 * duplicate, on a type other than string, integer or boolean, or not reached through properties alone):
 * clients would exclude the tool, so it is refused here, naming the property.
 *
 * @example
 * ```ts
 * import { defineTool } from '@mcp-inflight/server';
 * import * as z from 'zod';
 * export const work = defineTool({
 *   name: 'work',
 *   description: 'Sleeps intervalMs per step, reporting progress.',
 *   input: z.object({ steps: z.number().int().min(0), intervalMs: z.number().min(0) }),
 *   async run({ steps, intervalMs }, ctx) {
 *     for (let i = 1; i <= steps; i++) {
 *       await new Promise((resolve) => setTimeout(resolve, intervalMs));
 *       ctx.signal.throwIfAborted();
 *       ctx.progress(i, steps);
 *     }
 *     return `done ${steps} steps`;
 *   },
 * });
 * ```
 */
export function defineTool<Input extends z.ZodType>(definition: ToolDefinition<Input>): Tool {
  checkDefinition(definition as unknown as Record<string, unknown>);
  const tool: Tool = { name: definition.name, definition: definition as unknown as ToolDefinition };
  const { problems } = headersOf(tool);
  if (problems.length > 0)
    throw new Error(`defineTool ${JSON.stringify(definition.name)}: ${problems.join('; ')}`);
  return tool;
}

/** Each tool's mirrored parameters, read once from its input's JSON Schema. */
const headersByTool = new WeakMap<Tool, ReturnType<typeof paramHeadersOf>>();

function headersOf(tool: Tool): ReturnType<typeof paramHeadersOf> {
  let found = headersByTool.get(tool);
  if (found === undefined) {
    // What `tools/list` shows (input side); a type JSON Schema cannot express has no annotation to read.
    try {
      const schema = z.toJSONSchema(tool.definition.input, { io: 'input', unrepresentable: 'any' });
      found = paramHeadersOf(schema);
    } catch {
      found = paramHeadersOf(undefined); // no JSON Schema to show, so no annotation either
    }
    headersByTool.set(tool, found);
  }
  return found;
}

/**
 * The parameters `tool` mirrors into `Mcp-Param-*` headers (none for a tool whose annotations are
 * invalid, which `defineTool` refuses anyway). @internal
 */
export function toolParamHeaders(tool: Tool): readonly ParamHeader[] {
  return headersOf(tool).headers;
}

// A mistake in a definition throws here, where it was made, rather than as an internal error on the
// first tools/list (a zod 3 schema has no JSON Schema conversion: `toJSONSchema` reads `_zod.def`).
function checkDefinition(definition: Record<string, unknown>): void {
  const name = definition?.['name'];
  if (typeof name !== 'string' || !name)
    fail('defineTool takes { name, input, run }: name must be a non-empty string');
  for (const field of ['input', 'output'] as const) {
    const schema = definition[field];
    if (field === 'output' && schema === undefined) continue;
    if (typeof schema !== 'object' || schema === null || !('_zod' in schema))
      fail(
        `defineTool('${name}'): ${field} must be a zod 4 schema${typeof schema === 'object' && schema !== null && '_def' in schema ? ', not zod 3' : ''} (install zod@^4)`,
      );
  }
  if (typeof definition['run'] !== 'function') fail(`defineTool('${name}'): run must be a function`);
}

const fail = (message: string): never => {
  throw new TypeError(message);
};
