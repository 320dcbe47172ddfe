import { type CacheHints, NO_CACHING } from '@mcp-inflight/client';
import { type InputRequiredResult, isInputRequired } from '@mcp-inflight/client/input';
import type { CallToolResult, Endpoint, RequestContext, RequestHandler, Revision } from '@mcp-inflight/core';
import { InflightError, JsonRpcError, JsonRpcErrorCode } from '@mcp-inflight/core';
import {
  checkContent,
  declareParamHeaders,
  expectCapability,
  isLegacy,
  RELATED_TASK_META_KEY,
} from '@mcp-inflight/core/adapter';
import * as z from 'zod';
import { type Tool, toolParamHeaders } from './define-tool.js';
import { ToolList } from './tool-list.js';

/**
 * Options for {@link serveTools}.
 *
 * @example
 * ```ts
 * import type { ServeToolsOptions } from '@mcp-inflight/server';
 * const options: ServeToolsOptions = { cache: { ttlMs: 300_000, cacheScope: 'public' } };
 * ```
 */
export interface ServeToolsOptions {
  /** @default { ttlMs: 0, cacheScope: 'private' }: always fresh, never shared */
  cache?: CacheHints;
  /**
   * Told when a tool returned what it may not (not a string, `CallToolResult` or `input_required`
   * result; a malformed block; `structuredContent` its output schema refuses). The caller gets an
   * `isError` result naming the mistake either way. @default ignore
   */
  onError?: (error: Error, context: string) => void;
}

/**
 * What {@link serveTools} registered, for a layer that wraps it (the tasks entry runs `call` as a task).
 *
 * @example
 * ```ts
 * import { Endpoint } from '@mcp-inflight/core';
 * import { serveTools } from '@mcp-inflight/server';
 * const endpoint = new Endpoint({ role: 'server', transport: 'stdio', channel: { write: () => {} } });
 * const served = serveTools(endpoint, []);
 * endpoint.setRequestHandler('tools/call', (params, ctx) => served.call(params, ctx)); // wrap it
 * ```
 */
export interface ServedTools {
  /** The `tools/call` handler. */
  call: RequestHandler;
}

/** 2025-11-25 made invalid tool input a tool execution error, so the model can correct itself [TL1]. */
const INPUT_ERRORS_AS_RESULTS: Revision = '2025-11-25';

/**
 * Answers `tools/list` and `tools/call` for `tools` on one endpoint (an array, or a {@link ToolList} that
 * changes while the server runs and tells the server's listenStreams so). The list shows each tool's input as
 * JSON Schema (from its zod schema) in the order given, with `ttlMs` and `cacheScope` on 2026-07-28; each
 * tool's entry is built on the first `tools/list` that shows it and reused after, so serving the same tools
 * on a fresh endpoint per request (2026-07-28 over HTTP) costs no schema conversion per call. A
 * call validates its arguments first: invalid ones are an `isError` result naming the issues from
 * 2025-11-25 on, and -32602 before; an unknown tool is -32602. A limit (an `InflightError`, or an abort
 * whose reason is one) answers -32001 or -32000 with `data.cause`; a `JsonRpcError` keeps its code; any
 * other throw is an `isError` result with its message, so the model sees it.
 *
 * @example
 * ```ts
 * import { Endpoint, serveLifecycle } from '@mcp-inflight/core';
 * import { defineTool, serveTools } from '@mcp-inflight/server';
 * import * as z from 'zod';
 * const endpoint = new Endpoint({ role: 'server', transport: 'stdio', channel: { write: () => {} } });
 * serveLifecycle(endpoint, { serverInfo: { name: 'demo', version: '1.0.0' }, capabilities: { tools: {} } });
 * serveTools(endpoint, [
 *   defineTool({ name: 'add', input: z.object({ a: z.number(), b: z.number() }), run: ({ a, b }) => String(a + b) }),
 * ]);
 * ```
 */
export function serveTools(
  endpoint: Endpoint,
  tools: readonly Tool[] | ToolList,
  options: ServeToolsOptions = {},
): ServedTools {
  checkTools(tools);
  expectCapability(endpoint, 'tools', 'serveTools');
  const list = tools instanceof ToolList ? tools : undefined;
  const byName = list ?? nameIndexOf(tools as readonly Tool[]);
  // Listed when first asked for (a 2026-07-28 server runs serveTools for every request, and most
  // requests are calls), and again only after a changing list changed; each tool's entry is made once.
  // Two listings: with `outputSchema` (2025-06-18 on) and without (older revisions).
  const listed: Array<Record<string, unknown>[] | undefined> = [undefined, undefined];
  let version = list?.version;
  const listing = (revision: Revision): Record<string, unknown>[] => {
    if (list && version !== list.version) listed.fill(undefined);
    version = list?.version;
    const structured = revision >= STRUCTURED_OUTPUT ? 1 : 0;
    listed[structured] ??= (list?.tools ?? (tools as readonly Tool[])).map((tool) =>
      structured ? listingOf(tool) : withoutOutputSchema(listingOf(tool)),
    );
    return listed[structured];
  };
  const hints = options.cache ?? NO_CACHING;
  endpoint.setRequestHandler('tools/list', (_params, ctx) =>
    isLegacy(ctx.revision) ? { tools: listing(ctx.revision) } : { tools: listing(ctx.revision), ...hints },
  );
  const call: RequestHandler = (params, ctx) => {
    const { name, arguments: args } = (params ?? {}) as { name?: unknown; arguments?: unknown };
    const tool = typeof name === 'string' ? byName.get(name) : undefined;
    if (!tool) throw new JsonRpcError(JsonRpcErrorCode.InvalidParams, `Unknown tool: ${String(name)}`);
    return callTool(endpoint, tool, args ?? {}, ctx, options.onError);
  };
  endpoint.setRequestHandler('tools/call', call);
  // The HTTP server refuses a 2026-07-28 call whose Mcp-Param-* headers disagree with its body.
  declareParamHeaders(endpoint, (name) => {
    const tool = byName.get(name);
    return tool && toolParamHeaders(tool);
  });
  return { call };
}

/** Each tools array's name index, with the tools it was made of (an array can be changed in place). */
const nameIndexes = new WeakMap<readonly Tool[], { tools: Tool[]; byName: Map<string, Tool> }>();

/**
 * The tools by name. A 2026-07-28 server runs `serveTools` per request with the same array: the index is
 * made once and reused while the array holds the same tools, so a request builds no Map.
 */
function nameIndexOf(tools: readonly Tool[]): Map<string, Tool> {
  const kept = nameIndexes.get(tools);
  if (kept && kept.tools.length === tools.length && kept.tools.every((tool, i) => tool === tools[i]))
    return kept.byName;
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  nameIndexes.set(tools, { tools: [...tools], byName });
  return byName;
}

async function callTool(
  endpoint: Endpoint,
  tool: Tool,
  args: unknown,
  ctx: RequestContext,
  onError: ServeToolsOptions['onError'],
): Promise<CallToolResult | InputRequiredResult> {
  const parsed = tool.definition.input.safeParse(args);
  if (!parsed.success) {
    const issues = z.prettifyError(parsed.error);
    const message = `Invalid arguments for ${tool.name}: ${issues}`;
    if (ctx.revision < INPUT_ERRORS_AS_RESULTS)
      throw new JsonRpcError(JsonRpcErrorCode.InvalidParams, message);
    return { content: [{ type: 'text', text: message }], isError: true };
  }
  try {
    let output = await tool.definition.run(parsed.data, ctx);
    // A legacy client cannot read input_required: its input requests go out as the server-to-client
    // requests of its revision, and the tool runs again with the answers, as a 2026-07-28 retry would.
    for (let round = 1; isInputRequired(output) && isLegacy(ctx.revision); round++) {
      if (round > LEGACY_INPUT_ROUNDS)
        throw new JsonRpcError(JsonRpcErrorCode.InternalError, `${tool.name} kept asking for input`);
      const inputResponses: Record<string, unknown> = {};
      const task = ctx.task;
      // A task's requests say whose they are [T5]; the task shows input_required while they wait [T37].
      const meta = task ? { _meta: { [RELATED_TASK_META_KEY]: { taskId: task.taskId } } } : {};
      task?.onInputWait(true);
      try {
        for (const [key, request] of Object.entries(output.inputRequests ?? {})) {
          inputResponses[key] = await endpoint.request(
            request.method,
            { ...request.params, ...meta },
            {
              related: ctx.id,
              parent: ctx.deadline,
              revision: ctx.revision,
              // A person may take minutes to answer and sends no progress meanwhile: no idle window; the
              // handler's own deadline (the parent) and the endpoint's ceiling still bound the wait.
              idleMs: Number.POSITIVE_INFINITY,
            },
          );
        }
      } finally {
        task?.onInputWait(false);
      }
      const { inputResponses: _i, requestState: _r, ...rest } = ctx.params ?? {};
      const state = output.requestState === undefined ? {} : { requestState: output.requestState };
      output = await tool.definition.run(
        parsed.data,
        retryContext(ctx, { ...rest, inputResponses, ...state }),
      );
    }
    return checkedResult(output, tool, ctx.revision, onError);
  } catch (error) {
    if (InflightError.is(error) || error instanceof JsonRpcError) throw error;
    // An abort thrown by a timer or fetch: the limit or cancel behind it is what the caller must see.
    const limit = ctx.signal.aborted ? InflightError.from(ctx.signal.reason) : undefined;
    if (limit) throw limit;
    const message = error instanceof Error ? error.message : String(error);
    return { content: [{ type: 'text', text: message }], isError: true };
  }
}

/**
 * The context of a tool's next input round: the request's own, with the round's params. A context's
 * methods may live on its prototype (the endpoint's do), so it is inherited from, never spread; `signal`
 * is read on the request's own context, where its getter belongs.
 */
function retryContext(ctx: RequestContext, params: Record<string, unknown>): RequestContext {
  return Object.create(ctx, { params: { value: params }, signal: { value: ctx.signal } });
}

/** The most input rounds a tool gets on a legacy client, where each is a server-to-client request. */
const LEGACY_INPUT_ROUNDS = 8;

/** `structuredContent` and `outputSchema` arrived in 2025-06-18. */
const STRUCTURED_OUTPUT: Revision = '2025-06-18';

/**
 * What a tool returned, checked before it goes on the wire (plain JavaScript can return anything): a
 * string is one text block; a result passes when its blocks are well formed and its `structuredContent`
 * is what the revision and the tool's output schema allow; anything else is an `isError` result naming
 * the mistake, reported to `onError`. A result that cannot be serialized (a cycle) fails in the channel's
 * write, which answers -32603 and keeps serving.
 */
function checkedResult(
  output: unknown,
  tool: Tool,
  revision: Revision,
  onError: ServeToolsOptions['onError'],
): CallToolResult | InputRequiredResult {
  if (typeof output === 'string') return { content: [{ type: 'text', text: output }] };
  if (isInputRequired(output)) return output;
  const mistake = mistakeIn(output, tool, revision);
  if (mistake === undefined) {
    const result = output as CallToolResult;
    if (revision >= STRUCTURED_OUTPUT || result.structuredContent === undefined) return result;
    const { structuredContent: _s, ...older } = result; // not in this revision's result shape
    return older;
  }
  const message = `${tool.name} returned ${mistake}`;
  onError?.(new Error(message), `tool ${tool.name}`);
  return { content: [{ type: 'text', text: message }], isError: true };
}

function mistakeIn(output: unknown, tool: Tool, revision: Revision): string | undefined {
  const result = output as CallToolResult | null;
  if (
    typeof result !== 'object' ||
    result === null ||
    Array.isArray(result) ||
    !Array.isArray(result.content)
  )
    return `${describe(output)}, not a string or a CallToolResult ({ content: [...] })`;
  const bad = result.content.findIndex((block) => checkContent(block).type === 'unknown');
  if (bad !== -1)
    return `content[${bad}] that is not a well-formed text, image, audio, resource_link or resource block`;
  if (revision < STRUCTURED_OUTPUT || result.isError === true) return undefined;
  const structured = result.structuredContent;
  if (isLegacy(revision) && structured !== undefined && !isPlainObject(structured))
    return `structuredContent that is ${describe(structured)}; up to 2025-11-25 it must be an object`;
  const schema = tool.definition.output;
  if (schema === undefined) return undefined;
  if (structured === undefined) return 'no structuredContent, but it declares an output schema';
  const parsed = schema.safeParse(structured);
  return parsed.success
    ? undefined
    : `structuredContent its output schema refuses: ${z.prettifyError(parsed.error)}`;
}

function isPlainObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A returned value, named for the mistake message: `the number 42`, `undefined`, `a Date`. */
function describe(value: unknown): string {
  if (value === undefined || value === null) return String(value);
  if (typeof value !== 'object') return `the ${typeof value} ${String(value).slice(0, 40)}`;
  if (Array.isArray(value)) return 'an array';
  const name = Object.getPrototypeOf(value)?.constructor?.name;
  return name && name !== 'Object' ? `a ${name}` : 'an object without a content array';
}

/** Each tool's `tools/list` entry, made once: a JSON Schema conversion costs more than the call it lists. */
const listings = new WeakMap<Tool, Record<string, unknown>>();

function listingOf(tool: Tool): Record<string, unknown> {
  let entry = listings.get(tool);
  if (entry === undefined) {
    entry = buildListing(tool);
    listings.set(tool, entry);
  }
  return entry;
}

function buildListing(tool: Tool): Record<string, unknown> {
  const { name, title, description, input, output, listing } = tool.definition;
  // `io: 'input'`: a field with a default is optional for the caller.
  const { $schema: _dialect, ...inputSchema } = z.toJSONSchema(input, { io: 'input' }) as Record<
    string,
    unknown
  >;
  return {
    name,
    ...(title === undefined ? {} : { title }),
    ...(description === undefined ? {} : { description }),
    inputSchema,
    ...(output === undefined ? {} : { outputSchema: jsonSchemaOf(output, 'output') }),
    ...listing,
  };
}

function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { io }) as Record<string, unknown>;
  return json;
}

/** Revisions before 2025-06-18 have no `outputSchema` in a tool's listing. */
const olderListings = new WeakMap<Record<string, unknown>, Record<string, unknown>>();

function withoutOutputSchema(entry: Record<string, unknown>): Record<string, unknown> {
  if (!('outputSchema' in entry)) return entry;
  let older = olderListings.get(entry);
  if (older === undefined) {
    const { outputSchema: _o, ...rest } = entry;
    older = rest;
    olderListings.set(entry, older);
  }
  return older;
}

/**
 * What `serveTools` takes: an array of tools made by {@link defineTool}, or a `ToolList`. Throws a
 * `TypeError` naming the accepted forms for anything else (one tool not in an array, a bare definition).
 */
function checkTools(tools: unknown): void {
  if (tools instanceof ToolList) return;
  const array = Array.isArray(tools);
  const bad = array ? tools.findIndex((tool) => typeof tool?.definition !== 'object') : -1;
  if (!array || bad >= 0)
    throw new TypeError(
      `serveTools takes an array of defineTool(...) results or a ToolList${array ? `: tools[${bad}] is not one (wrap it in defineTool)` : ''}`,
    );
}
