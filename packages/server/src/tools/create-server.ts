import type { CacheHints } from '@mcp-inflight/client';
import type { Endpoint } from '@mcp-inflight/core';
import { JsonRpcError, JsonRpcErrorCode, serveLifecycle } from '@mcp-inflight/core';
import type { Resource, ResourceTemplate } from './define-resource.js';
import type { Tool } from './define-tool.js';
import { type Completer, type Prompt, PromptList, promptLookup, servePrompts } from './prompts.js';
import { ResourceList } from './resource-list.js';
import { serveResources } from './serve-resources.js';
import { type ServedTools, type ServeToolsOptions, serveTools } from './serve-tools.js';
import { ToolList } from './tool-list.js';

/**
 * What {@link createServer} builds a server from: who it is and what it serves.
 *
 * @example
 * ```ts
 * import type { CreateServerOptions } from '@mcp-inflight/server';
 * const options: CreateServerOptions = { name: 'notes', version: '1.0.0', tools: [], cache: { ttlMs: 60_000, cacheScope: 'public' } };
 * ```
 */
export interface CreateServerOptions {
  /** The implementation's name (`serverInfo.name`). */
  name: string;
  /** Its version (`serverInfo.version`). */
  version: string;
  /** A display name (`serverInfo.title`). */
  title?: string;
  /** Instructions for the model, sent with the handshake. */
  instructions?: string;
  /** The tools: an array, or a {@link ToolList} that changes while the server runs. */
  tools?: readonly Tool[] | ToolList;
  /** The prompts: an array, or a {@link PromptList}. */
  prompts?: readonly Prompt[] | PromptList;
  /** The resources and resource templates: an array, or a {@link ResourceList} (with subscriptions). */
  resources?: ReadonlyArray<Resource | ResourceTemplate> | ResourceList;
  /**
   * Hints on every cacheable 2026-07-28 result: the three lists and `resources/read`.
   * @default { ttlMs: 0, cacheScope: 'private' }: always fresh, never shared
   */
  cache?: CacheHints;
  /** Told when a tool returned what it may not (see `serveTools`). @default ignore */
  onError?: ServeToolsOptions['onError'];
  /**
   * Capabilities to add to (or override in) those declared from what is served, e.g. `logging: {}`
   * or `experimental`. @default none
   */
  capabilities?: Record<string, unknown>;
}

/**
 * A server built by {@link createServer}. Hand `serve` to a transport as its per-endpoint setup
 * (`serveStdio(server.serve)`, `serveHttp(server.serve, …)`) or call it on an endpoint of your own.
 *
 * @example
 * ```ts
 * import { createServer, type McpServer } from '@mcp-inflight/server';
 * const server: McpServer = createServer({ name: 'demo', version: '1.0.0' });
 * console.log(server.capabilities); // {}: nothing served, nothing declared
 * ```
 */
export interface McpServer {
  /** The capabilities both handshakes declare. */
  readonly capabilities: Record<string, unknown>;
  /**
   * Serves the lifecycle, the tools, prompts and resources, and completions, on one endpoint (one stdio
   * connection, one HTTP session or one stateless request). Returns the tool layer's handler, for a
   * layer that wraps it (`serveTasks`); `undefined` when no tools are served.
   */
  readonly serve: (endpoint: Endpoint) => ServedTools | undefined;
}

/**
 * Sets up a server in one call: the handshakes of both eras (`serveLifecycle`), the tool layer's
 * `tools/*`, `prompts/*` and `resources/*`, and `completion/complete` when a prompt or template has
 * completers, with capabilities declared from what was given: `tools`, `prompts` and `resources` for
 * what is served, `listChanged` for a changing list (`ToolList`, `PromptList`, `ResourceList`, whose
 * changes reach the listenStreams given to that list), `resources.subscribe` for a `ResourceList`, and
 * `completions`. Every handler gets the request's `ctx` (progress, cancel, limits). The pieces it is
 * made of (`serveLifecycle`, `serveTools`, `servePrompts`, `serveResources`) stay, for composing by hand.
 *
 * @example
 * ```ts
 * import { createServer, defineResource, defineTool, definePrompt } from '@mcp-inflight/server';
 * import * as z from 'zod';
 * const server = createServer({
 *   name: 'notes',
 *   version: '1.0.0',
 *   tools: [defineTool({ name: 'add', input: z.object({ a: z.number(), b: z.number() }), run: ({ a, b }) => String(a + b) })],
 *   prompts: [definePrompt({ name: 'summarise', get: () => 'Summarise my notes.' })],
 *   resources: [defineResource({ uri: 'notes://today', name: 'today', mimeType: 'text/plain', read: () => 'Buy milk.' })],
 * });
 * // serveStdio(server.serve) from @mcp-inflight/stdio, or serveHttp(server.serve, { port: 3000 }) from @mcp-inflight/http
 * ```
 */
export function createServer(options: CreateServerOptions): McpServer {
  if (typeof options?.name !== 'string' || typeof options.version !== 'string')
    throw new TypeError('createServer needs { name: string, version: string, tools?, prompts?, resources? }');
  const { tools, prompts, resources, cache } = options;
  // Declared and served when a prompt or template has completers now, or when the caller declares it.
  const completers = completersOf(prompts, resources, options.capabilities?.['completions'] !== undefined);
  const capabilities: Record<string, unknown> = {
    ...(tools ? { tools: tools instanceof ToolList ? { listChanged: true } : {} } : {}),
    ...(prompts ? { prompts: prompts instanceof PromptList ? { listChanged: true } : {} } : {}),
    ...(resources
      ? {
          resources: resources instanceof ResourceList ? { listChanged: true, subscribe: true } : {},
        }
      : {}),
    ...(completers ? { completions: {} } : {}),
    ...options.capabilities,
  };
  const identity = {
    serverInfo: {
      name: options.name,
      version: options.version,
      ...(options.title === undefined ? {} : { title: options.title }),
    },
    capabilities,
    ...(options.instructions === undefined ? {} : { instructions: options.instructions }),
  };
  const toolOptions: ServeToolsOptions = {
    ...(cache ? { cache } : {}),
    ...(options.onError ? { onError: options.onError } : {}),
  };
  const served = cache ? { cache } : {};
  const serve = (endpoint: Endpoint): ServedTools | undefined => {
    serveLifecycle(endpoint, identity);
    // Without tools nothing is declared: tools/list and tools/call stay unknown methods (-32601).
    const handlers = tools ? serveTools(endpoint, tools, toolOptions) : undefined;
    if (prompts) servePrompts(endpoint, prompts, served);
    if (resources) serveResources(endpoint, resources, served);
    if (completers) endpoint.setRequestHandler('completion/complete', (params) => completers(params));
    return handlers;
  };
  return { capabilities, serve };
}

/** The most values one completion carries [spec: `values` at most 100 items]. */
const MAX_COMPLETIONS = 100;

type CompleteHandler = (params: Record<string, unknown> | undefined) => Promise<unknown>;

/**
 * `completion/complete` for the prompts' and templates' completers (looked up at each request, so a
 * changing list's new completers count), or `undefined` when none has any and none was declared.
 */
function completersOf(
  prompts: CreateServerOptions['prompts'],
  resources: CreateServerOptions['resources'],
  declared: boolean,
): CompleteHandler | undefined {
  const promptList = prompts instanceof PromptList ? prompts.prompts : prompts;
  const templates = resources instanceof ResourceList ? resources.templates : resources;
  const any =
    (promptList ?? []).some((p) => p.definition.complete) ||
    (templates ?? []).some((t) => 'uriTemplate' in t && t.definition.complete);
  if (!any && !declared) return undefined;
  const promptByName = prompts ? promptLookup(prompts) : () => undefined;
  const templateByUri = (uri: string): ResourceTemplate | undefined => {
    const now = resources instanceof ResourceList ? resources.templates : resources;
    return (now ?? []).find((t): t is ResourceTemplate => 'uriTemplate' in t && t.uriTemplate === uri);
  };
  return async (params) => {
    const { ref, argument, context } = (params ?? {}) as {
      ref?: { type?: unknown; name?: unknown; uri?: unknown };
      argument?: { name?: unknown; value?: unknown };
      context?: { arguments?: Record<string, string> };
    };
    if (typeof argument?.name !== 'string' || typeof argument.value !== 'string')
      throw new JsonRpcError(
        JsonRpcErrorCode.InvalidParams,
        'Invalid params: argument must be { name: string, value: string }',
      );
    let completer: Completer | undefined;
    if (ref?.type === 'ref/prompt' && typeof ref.name === 'string') {
      const prompt = promptByName(ref.name);
      if (!prompt) throw new JsonRpcError(JsonRpcErrorCode.InvalidParams, `Unknown prompt: ${ref.name}`);
      completer = prompt.definition.complete?.[argument.name];
    } else if (ref?.type === 'ref/resource' && typeof ref.uri === 'string') {
      const template = templateByUri(ref.uri);
      if (!template)
        throw new JsonRpcError(JsonRpcErrorCode.InvalidParams, `Unknown resource template: ${ref.uri}`);
      completer = template.definition.complete?.[argument.name];
    } else {
      throw new JsonRpcError(
        JsonRpcErrorCode.InvalidParams,
        'Invalid params: ref must be { type: "ref/prompt", name } or { type: "ref/resource", uri }',
      );
    }
    const values = completer ? await completer(argument.value, { arguments: context?.arguments ?? {} }) : [];
    return {
      completion: {
        values: values.slice(0, MAX_COMPLETIONS),
        total: values.length,
        hasMore: values.length > MAX_COMPLETIONS,
      },
    };
  };
}
