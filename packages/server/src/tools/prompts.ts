import { type CacheHints, NO_CACHING } from '@mcp-inflight/client';
import { type InputRequiredResult, isInputRequired } from '@mcp-inflight/client/input';
import type { ContentBlock, Endpoint, RequestContext } from '@mcp-inflight/core';
import { JsonRpcError, JsonRpcErrorCode } from '@mcp-inflight/core';
import { isLegacy } from '@mcp-inflight/core/adapter';
import * as z from 'zod';
import { Entries, type Publisher } from './tool-list.js';

/**
 * One message of a prompt: who says it and one content block.
 *
 * @example
 * ```ts
 * import type { PromptMessage } from '@mcp-inflight/server';
 * const message: PromptMessage = { role: 'user', content: { type: 'text', text: 'Review this diff.' } };
 * ```
 */
export interface PromptMessage {
  /** Who says it. */
  role: 'user' | 'assistant';
  /** What is said. */
  content: ContentBlock;
}

/**
 * A `prompts/get` result.
 *
 * @example
 * ```ts
 * import type { GetPromptResult } from '@mcp-inflight/server';
 * const result: GetPromptResult = {
 *   description: 'A code review',
 *   messages: [{ role: 'user', content: { type: 'text', text: 'Review this diff.' } }],
 * };
 * ```
 */
export interface GetPromptResult {
  /** What the prompt is for. */
  description?: string;
  /** The messages, in order. */
  messages: PromptMessage[];
  /** Extra metadata. */
  _meta?: Record<string, unknown>;
}

/**
 * What a prompt's `get` may return: a full result, a string for one user text message, or (2026-07-28, to
 * ask the client for input first, see `@mcp-inflight/server/input`) an `input_required` result.
 *
 * @example
 * ```ts
 * import type { PromptOutput } from '@mcp-inflight/server';
 * const short: PromptOutput = 'Summarise the file.'; // one user message
 * ```
 */
export type PromptOutput = string | GetPromptResult | InputRequiredResult;

/**
 * Suggests values for one argument in `completion/complete`: the value typed so far, and the other
 * arguments already given (`context.arguments`, 2025-06-18 on). Return at most 100 values.
 *
 * @example
 * ```ts
 * import type { Completer } from '@mcp-inflight/server';
 * const languages: Completer = (typed) => ['python', 'typescript'].filter((l) => l.startsWith(typed));
 * ```
 */
export type Completer = (
  value: string,
  context: { arguments: Record<string, string> },
) => readonly string[] | Promise<readonly string[]>;

/**
 * One prompt: its name and description as `prompts/list` shows them, its arguments as a zod object of
 * strings (validated before `get`, and listed by name, description and whether required), and what it
 * says.
 *
 * @example
 * ```ts
 * import { definePrompt, type PromptDefinition } from '@mcp-inflight/server';
 * import * as z from 'zod';
 * const args = z.object({ code: z.string().describe('The code to review') });
 * const definition: PromptDefinition<typeof args> = {
 *   name: 'review',
 *   arguments: args,
 *   get: ({ code }) => `Review this code:\n${code}`,
 * };
 * const review = definePrompt(definition);
 * ```
 */
export interface PromptDefinition<Args extends z.ZodObject = z.ZodObject> {
  /** The prompt's name, unique on its server. */
  name: string;
  /** A display name. */
  title?: string;
  /** What the prompt is for. */
  description?: string;
  /** The arguments, each a string (MCP prompt arguments are strings). @default none */
  arguments?: Args;
  /** Suggestions for arguments by name, for `completion/complete`. */
  complete?: Record<string, Completer>;
  /** Extra fields shown in `prompts/list` (`icons`, `_meta`…). */
  listing?: Record<string, unknown>;
  /**
   * Builds the prompt. `ctx` is the request's, as for a tool: `ctx.progress`, `ctx.signal` (cancel and
   * limits), `ctx.limit()`. A throw is an error response (a `JsonRpcError` keeps its code).
   */
  get(args: z.output<Args>, ctx: RequestContext): PromptOutput | Promise<PromptOutput>;
}

/**
 * A prompt ready for `servePrompts` or `createServer`.
 *
 * @example
 * ```ts
 * import { definePrompt, type Prompt } from '@mcp-inflight/server';
 * const hello: Prompt = definePrompt({ name: 'hello', get: () => 'Say hello.' });
 * ```
 */
export interface Prompt {
  /** The prompt's name. */
  readonly name: string;
  /** Its definition. */
  readonly definition: PromptDefinition;
}

/**
 * Makes a prompt from its definition, keeping the types of `get`'s arguments tied to `arguments`.
 *
 * @example
 * ```ts
 * import { definePrompt } from '@mcp-inflight/server';
 * import * as z from 'zod';
 * export const translate = definePrompt({
 *   name: 'translate',
 *   arguments: z.object({ text: z.string(), to: z.string().optional() }),
 *   get: ({ text, to = 'French' }) => `Translate into ${to}: ${text}`,
 * });
 * ```
 */
export function definePrompt<Args extends z.ZodObject>(definition: PromptDefinition<Args>): Prompt {
  if (typeof definition?.name !== 'string' || typeof definition.get !== 'function')
    throw new TypeError('definePrompt needs { name: string, get(args, ctx) }');
  return {
    name: definition.name,
    definition: definition as unknown as PromptDefinition,
  };
}

/**
 * A server's prompts when they change while it runs: hand it to `servePrompts` (or `createServer`) and
 * each `add`, `remove` or `set` is seen by the next request everywhere, and published as
 * `notifications/prompts/list_changed` to the server's listenStreams. Declare `prompts.listChanged` with it
 * (`createServer` does).
 *
 * @example
 * ```ts
 * import { ListenStreams } from '@mcp-inflight/server/listen';
 * import { definePrompt, PromptList } from '@mcp-inflight/server';
 * const prompts = new PromptList([], { listenStreams: new ListenStreams() });
 * prompts.add(definePrompt({ name: 'hello', get: () => 'Say hello.' })); // listenStreams hear of it
 * ```
 */
export class PromptList {
  readonly #entries: Entries<Prompt>;

  constructor(prompts: readonly Prompt[] = [], options: { listenStreams?: Publisher } = {}) {
    this.#entries = new Entries(prompts, 'notifications/prompts/list_changed', options.listenStreams);
  }

  /** Bumped on every change. */
  get version(): number {
    return this.#entries.version;
  }

  /** The prompts now, in the order they were added. */
  get prompts(): readonly Prompt[] {
    return this.#entries.values();
  }

  /** Looks a prompt up by name. */
  get(name: string): Prompt | undefined {
    return this.#entries.get(name);
  }

  /** Adds prompts (one with the same name is replaced). */
  add(...prompts: Prompt[]): void {
    this.#entries.add(prompts);
  }

  /** Removes a prompt; returns whether it was there (nothing is published otherwise). */
  remove(name: string): boolean {
    return this.#entries.remove(name);
  }

  /** Replaces the whole list. */
  set(prompts: readonly Prompt[]): void {
    this.#entries.set(prompts);
  }
}

/**
 * Options for {@link servePrompts}.
 *
 * @example
 * ```ts
 * import type { ServePromptsOptions } from '@mcp-inflight/server';
 * const options: ServePromptsOptions = { cache: { ttlMs: 60_000, cacheScope: 'public' } };
 * ```
 */
export interface ServePromptsOptions {
  /** Hints on the 2026-07-28 `prompts/list` result. @default { ttlMs: 0, cacheScope: 'private' } */
  cache?: CacheHints;
}

/**
 * Answers `prompts/list` and `prompts/get` for `prompts` on one endpoint (an array, or a
 * {@link PromptList} that changes while the server runs). The list has `ttlMs` and `cacheScope` on
 * 2026-07-28. `prompts/get` validates the arguments first (-32602 naming the issues) and an unknown
 * prompt is -32602; then `get` runs with the request's `ctx`.
 *
 * @example
 * ```ts
 * import { Endpoint, serveLifecycle } from '@mcp-inflight/core';
 * import { definePrompt, servePrompts } from '@mcp-inflight/server';
 * const endpoint = new Endpoint({ role: 'server', transport: 'stdio', channel: { write: () => {} } });
 * serveLifecycle(endpoint, { serverInfo: { name: 'demo', version: '1.0.0' }, capabilities: { prompts: {} } });
 * servePrompts(endpoint, [definePrompt({ name: 'hello', get: () => 'Say hello.' })]);
 * ```
 */
export function servePrompts(
  endpoint: Endpoint,
  prompts: readonly Prompt[] | PromptList,
  options: ServePromptsOptions = {},
): void {
  const byName = promptLookup(prompts);
  const hints = options.cache ?? NO_CACHING;
  endpoint.setRequestHandler('prompts/list', (_params, ctx) => {
    const listed = { prompts: promptsOf(prompts).map(promptListing) };
    return isLegacy(ctx.revision) ? listed : { ...listed, ...hints };
  });
  endpoint.setRequestHandler('prompts/get', async (params, ctx) => {
    const { name, arguments: args } = (params ?? {}) as {
      name?: unknown;
      arguments?: unknown;
    };
    const prompt = typeof name === 'string' ? byName(name) : undefined;
    if (!prompt) throw new JsonRpcError(JsonRpcErrorCode.InvalidParams, `Unknown prompt: ${String(name)}`);
    // No schema, no arguments to check (a zod object built here would load most of zod into the bundle).
    const schema = prompt.definition.arguments;
    const parsed = schema ? schema.safeParse(args ?? {}) : { success: true as const, data: {} };
    if (!parsed.success) {
      const issues = z.prettifyError(parsed.error);
      throw new JsonRpcError(
        JsonRpcErrorCode.InvalidParams,
        `Invalid arguments for ${prompt.name}: ${issues}`,
      );
    }
    const output = await prompt.definition.get(parsed.data as Record<string, unknown>, ctx);
    if (typeof output === 'string')
      return { messages: [{ role: 'user', content: { type: 'text', text: output } }] };
    // A legacy client cannot read input_required on prompts/get: the prompt must answer without asking.
    if (isInputRequired(output) && isLegacy(ctx.revision))
      throw new JsonRpcError(
        JsonRpcErrorCode.InternalError,
        `${prompt.name} asked for input (input_required), which prompts/get has only on 2026-07-28`,
      );
    return output;
  });
}

/** Looks a prompt up by name, in a changing list or a fixed one. */
export function promptLookup(prompts: readonly Prompt[] | PromptList): (name: string) => Prompt | undefined {
  if (prompts instanceof PromptList) return (name) => prompts.get(name);
  const byName = new Map(prompts.map((prompt) => [prompt.name, prompt]));
  return (name) => byName.get(name);
}

function promptsOf(prompts: readonly Prompt[] | PromptList): readonly Prompt[] {
  return prompts instanceof PromptList ? prompts.prompts : prompts;
}

/** Each prompt's `prompts/list` entry, made once. */
const listings = new WeakMap<Prompt, Record<string, unknown>>();

function promptListing(prompt: Prompt): Record<string, unknown> {
  let entry = listings.get(prompt);
  if (entry === undefined) {
    const { name, title, description, listing } = prompt.definition;
    const args = prompt.definition.arguments;
    entry = {
      name,
      ...(title === undefined ? {} : { title }),
      ...(description === undefined ? {} : { description }),
      ...(args === undefined ? {} : { arguments: argumentsOf(args) }),
      ...listing,
    };
    listings.set(prompt, entry);
  }
  return entry;
}

/** A zod object's fields as the spec's `PromptArgument` list: name, description, whether required. */
function argumentsOf(schema: z.ZodObject): Record<string, unknown>[] {
  const json = z.toJSONSchema(schema, { io: 'input' }) as {
    properties?: Record<string, { description?: string }>;
    required?: string[];
  };
  const required = new Set(json.required ?? []);
  return Object.entries(json.properties ?? {}).map(([name, field]) => ({
    name,
    ...(field.description === undefined ? {} : { description: field.description }),
    required: required.has(name),
  }));
}
