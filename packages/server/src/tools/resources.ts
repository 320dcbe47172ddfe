import type { Endpoint, RequestContext, Revision } from '@mcp-inflight/core';
import { JsonRpcError, JsonRpcErrorCode } from '@mcp-inflight/core';
import type { EmbeddedBlob, EmbeddedText } from '@mcp-inflight/core/adapter';
import { isLegacy } from '@mcp-inflight/core/adapter';
import type { Completer } from './prompts.js';
import { type CacheHints, NO_CACHING } from './serve-tools.js';
import { Entries, type Publisher } from './tool-list.js';

/**
 * One item of a `resources/read` result: `text`, or base64 `blob`.
 *
 * @example
 * ```ts
 * import type { ResourceContents } from '@mcp-inflight/server';
 * const text: ResourceContents = { uri: 'file:///notes.md', mimeType: 'text/markdown', text: '# Notes' };
 * ```
 */
export type ResourceContents = EmbeddedText | EmbeddedBlob;

/**
 * What a resource's `read` may return: the contents (one or several), or a string for one text item
 * with the resource's URI and `mimeType`.
 *
 * @example
 * ```ts
 * import type { ResourceOutput } from '@mcp-inflight/server';
 * const short: ResourceOutput = '# Notes';
 * const full: ResourceOutput = [{ uri: 'file:///logo.png', mimeType: 'image/png', blob: 'iVBORw0KGgo=' }];
 * ```
 */
export type ResourceOutput = string | ResourceContents | readonly ResourceContents[];

/** What `resources/list` and `resources/templates/list` show of a resource, besides its address. */
interface Described {
  /** The resource's name. */
  name: string;
  /** A display name. */
  title?: string;
  /** What it holds, for the model. */
  description?: string;
  /** Its media type, when it has one. */
  mimeType?: string;
  /** Extra fields shown in the list (`annotations`, `size`, `icons`, `_meta`…). */
  listing?: Record<string, unknown>;
}

/**
 * One resource at a fixed URI.
 *
 * @example
 * ```ts
 * import { defineResource, type ResourceDefinition } from '@mcp-inflight/server';
 * const definition: ResourceDefinition = {
 *   uri: 'file:///notes.md',
 *   name: 'notes',
 *   mimeType: 'text/markdown',
 *   read: () => '# Notes',
 * };
 * const notes = defineResource(definition);
 * ```
 */
export interface ResourceDefinition extends Described {
  /** The resource's URI, unique on its server. */
  uri: string;
  /**
   * Reads it. `ctx` is the request's, as for a tool (progress, cancel and limits). A throw is an error
   * response (a `JsonRpcError` keeps its code).
   */
  read(uri: string, ctx: RequestContext): ResourceOutput | Promise<ResourceOutput>;
}

/**
 * Resources whose URIs follow a template (RFC 6570 level 1, `{name}` expressions, each matching one or
 * more characters other than `/`): listed by `resources/templates/list`, read for any URI that matches.
 *
 * @example
 * ```ts
 * import { defineResourceTemplate, type ResourceTemplateDefinition } from '@mcp-inflight/server';
 * const definition: ResourceTemplateDefinition = {
 *   uriTemplate: 'users://{id}/profile',
 *   name: 'profile',
 *   mimeType: 'application/json',
 *   read: (uri, { id }) => JSON.stringify({ id }),
 * };
 * const profiles = defineResourceTemplate(definition);
 * ```
 */
export interface ResourceTemplateDefinition extends Described {
  /** The URI template. */
  uriTemplate: string;
  /** Suggestions for the template's variables by name, for `completion/complete`. */
  complete?: Record<string, Completer>;
  /** Reads the resource at `uri`, with the template's variables taken from it (decoded). */
  read(
    uri: string,
    variables: Record<string, string>,
    ctx: RequestContext,
  ): ResourceOutput | Promise<ResourceOutput>;
}

/**
 * A resource ready for `serveResources` or `createServer`.
 *
 * @example
 * ```ts
 * import { defineResource, type Resource } from '@mcp-inflight/server';
 * const readme: Resource = defineResource({ uri: 'file:///README.md', name: 'readme', read: () => '# Hi' });
 * ```
 */
export interface Resource {
  /** Its URI. */
  readonly uri: string;
  /** Its name. */
  readonly name: string;
  /** Its definition. */
  readonly definition: ResourceDefinition;
}

/**
 * A resource template ready for `serveResources` or `createServer`.
 *
 * @example
 * ```ts
 * import { defineResourceTemplate, type ResourceTemplate } from '@mcp-inflight/server';
 * const files: ResourceTemplate = defineResourceTemplate({
 *   uriTemplate: 'file:///{name}',
 *   name: 'file',
 *   read: (uri, { name }) => `contents of ${name}`,
 * });
 * ```
 */
export interface ResourceTemplate {
  /** Its URI template. */
  readonly uriTemplate: string;
  /** Its name. */
  readonly name: string;
  /** Its definition. */
  readonly definition: ResourceTemplateDefinition;
  /** The template's variables for `uri`, or `undefined` when it does not match. */
  match(uri: string): Record<string, string> | undefined;
}

/**
 * Makes a resource at a fixed URI.
 *
 * @example
 * ```ts
 * import { defineResource } from '@mcp-inflight/server';
 * export const logo = defineResource({
 *   uri: 'images://logo',
 *   name: 'logo',
 *   mimeType: 'image/png',
 *   read: (uri) => ({ uri, mimeType: 'image/png', blob: 'iVBORw0KGgo=' }),
 * });
 * ```
 */
export function defineResource(definition: ResourceDefinition): Resource {
  if (typeof definition?.uri !== 'string' || typeof definition.name !== 'string')
    throw new TypeError('defineResource needs { uri: string, name: string, read(uri, ctx) }');
  if (typeof definition.read !== 'function')
    throw new TypeError(`defineResource(${definition.uri}) needs read(uri, ctx)`);
  return { uri: definition.uri, name: definition.name, definition };
}

/**
 * Makes a resource template; its `{name}` expressions become the variables `read` gets.
 *
 * @example
 * ```ts
 * import { defineResourceTemplate } from '@mcp-inflight/server';
 * export const issue = defineResourceTemplate({
 *   uriTemplate: 'tracker://issues/{number}',
 *   name: 'issue',
 *   read: (uri, { number }) => `issue ${number}`,
 * });
 * issue.match('tracker://issues/23'); // { number: '23' }
 * ```
 */
export function defineResourceTemplate(definition: ResourceTemplateDefinition): ResourceTemplate {
  if (typeof definition?.uriTemplate !== 'string' || typeof definition.name !== 'string')
    throw new TypeError(
      'defineResourceTemplate needs { uriTemplate: string, name: string, read(uri, variables, ctx) }',
    );
  if (typeof definition.read !== 'function')
    throw new TypeError(`defineResourceTemplate(${definition.uriTemplate}) needs read(uri, variables, ctx)`);
  const { pattern, names } = compileTemplate(definition.uriTemplate);
  return {
    uriTemplate: definition.uriTemplate,
    name: definition.name,
    definition,
    match(uri) {
      const found = pattern.exec(uri);
      if (!found) return undefined;
      const variables: Record<string, string> = {};
      names.forEach((name, i) => {
        variables[name] = safeDecode(found[i + 1] ?? '');
      });
      return variables;
    },
  };
}

/** Level-1 expressions only: `{name}` matches one or more characters other than `/`. */
function compileTemplate(template: string): {
  pattern: RegExp;
  names: string[];
} {
  const names: string[] = [];
  let source = '';
  let rest = template;
  for (let at = rest.indexOf('{'); at !== -1; at = rest.indexOf('{')) {
    const end = rest.indexOf('}', at);
    if (end === -1) break;
    const name = rest.slice(at + 1, end);
    if (!/^[A-Za-z0-9_.]+$/.test(name))
      throw new TypeError(
        `defineResourceTemplate: {${name}} in ${template} is not a level-1 expression ({name}); use a template of {name} parts`,
      );
    source += `${escapeRegExp(rest.slice(0, at))}([^/]+)`;
    names.push(name);
    rest = rest.slice(end + 1);
  }
  return { pattern: new RegExp(`^${source}${escapeRegExp(rest)}$`), names };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * A server's resources and templates when they change while it runs: hand it to `serveResources` (or
 * `createServer`) and each change is seen by the next request everywhere, and published as
 * `notifications/resources/list_changed` to the server's listeners. {@link ResourceList.updated} tells
 * the subscribers of one URI that its contents changed: a 2026-07-28 listen stream whose filter names
 * it, and a legacy session or connection that sent `resources/subscribe` for it. Declare
 * `resources: { listChanged: true, subscribe: true }` with it (`createServer` does).
 *
 * @example
 * ```ts
 * import { Listeners } from '@mcp-inflight/server/listen';
 * import { defineResource, ResourceList } from '@mcp-inflight/server';
 * const resources = new ResourceList([], { listeners: new Listeners() });
 * let notes = '# Notes';
 * resources.add(defineResource({ uri: 'file:///notes.md', name: 'notes', read: () => notes }));
 * notes = '# Notes, edited';
 * resources.updated('file:///notes.md'); // subscribers hear of it
 * ```
 */
export class ResourceList {
  readonly #resources: Entries<Resource>;
  readonly #templates: Entries<ResourceTemplate>;
  readonly #publisher: Publisher | undefined;

  constructor(
    items: ReadonlyArray<Resource | ResourceTemplate> = [],
    options: { listeners?: Publisher } = {},
  ) {
    const method = 'notifications/resources/list_changed';
    this.#publisher = options.listeners;
    this.#resources = new Entries(items.filter(isResource), method, this.#publisher, (r) => r.uri);
    this.#templates = new Entries(items.filter(isTemplate), method, this.#publisher, (t) => t.uriTemplate);
  }

  /** Bumped on every change. */
  get version(): number {
    return this.#resources.version + this.#templates.version;
  }

  /** The fixed-URI resources now, in the order they were added. */
  get resources(): readonly Resource[] {
    return this.#resources.values();
  }

  /** The templates now, in the order they were added. */
  get templates(): readonly ResourceTemplate[] {
    return this.#templates.values();
  }

  /** Adds resources or templates (one with the same URI or template is replaced). */
  add(...items: Array<Resource | ResourceTemplate>): void {
    const resources = items.filter(isResource);
    const templates = items.filter(isTemplate);
    if (resources.length > 0) this.#resources.add(resources);
    if (templates.length > 0) this.#templates.add(templates);
  }

  /** Removes a resource by URI or a template by its template; returns whether it was there. */
  remove(uriOrTemplate: string): boolean {
    return this.#resources.remove(uriOrTemplate) || this.#templates.remove(uriOrTemplate);
  }

  /** Replaces everything. */
  set(items: ReadonlyArray<Resource | ResourceTemplate>): void {
    this.#resources.set(items.filter(isResource));
    this.#templates.set(items.filter(isTemplate));
  }

  /**
   * Tells the subscribers of `uri` that it changed (`notifications/resources/updated`); returns how many
   * it reached. It checks nothing about `uri`: a subscriber may have asked for one not (yet) listed.
   */
  updated(uri: string): number {
    let reached = Number(this.#publisher?.notify(RESOURCE_UPDATED, { uri }) ?? 0) || 0;
    // Legacy endpoints that subscribed; a closed one leaves here.
    const byUri = subscribersOf.get(this);
    const endpoints = byUri?.get(uri);
    for (const endpoint of endpoints ?? []) {
      if (endpoint.closed) endpoints?.delete(endpoint);
      else {
        endpoint.notify(RESOURCE_UPDATED, { uri });
        reached++;
      }
    }
    if (endpoints?.size === 0) byUri?.delete(uri);
    return reached;
  }
}

/** The URIs legacy endpoints subscribed to, by list (module-private: the handlers below fill it). */
const subscribersOf = new WeakMap<ResourceList, Map<string, Set<Endpoint>>>();

function subscribe(list: ResourceList, endpoint: Endpoint, uri: string): void {
  let byUri = subscribersOf.get(list);
  if (byUri === undefined) {
    byUri = new Map();
    subscribersOf.set(list, byUri);
  }
  let endpoints = byUri.get(uri);
  if (endpoints === undefined) {
    endpoints = new Set();
    byUri.set(uri, endpoints);
  }
  for (const other of endpoints) if (other.closed) endpoints.delete(other); // rule 8: nothing grows
  endpoints.add(endpoint);
}

function unsubscribe(list: ResourceList, endpoint: Endpoint, uri: string): void {
  const byUri = subscribersOf.get(list);
  const endpoints = byUri?.get(uri);
  endpoints?.delete(endpoint);
  if (endpoints?.size === 0) byUri?.delete(uri);
}

const RESOURCE_UPDATED = 'notifications/resources/updated';

function isResource(item: Resource | ResourceTemplate): item is Resource {
  return typeof (item as Resource).uri === 'string';
}

function isTemplate(item: Resource | ResourceTemplate): item is ResourceTemplate {
  return typeof (item as ResourceTemplate).uriTemplate === 'string';
}

/**
 * Options for {@link serveResources}.
 *
 * @example
 * ```ts
 * import type { ServeResourcesOptions } from '@mcp-inflight/server';
 * const options: ServeResourcesOptions = { cache: { ttlMs: 30_000, cacheScope: 'private' } };
 * ```
 */
export interface ServeResourcesOptions {
  /**
   * Hints on the 2026-07-28 `resources/list`, `resources/templates/list` and `resources/read` results.
   * @default { ttlMs: 0, cacheScope: 'private' }
   */
  cache?: CacheHints;
}

/** 2026-07-28 made an unknown resource -32602, as any invalid parameter is [SEP-2164]. */
const RESOURCE_NOT_FOUND_LEGACY = -32002;

/**
 * Answers `resources/list`, `resources/templates/list` and `resources/read` for `resources` on one
 * endpoint (an array of resources and templates, or a {@link ResourceList}); with a `ResourceList`, also
 * `resources/subscribe` and `resources/unsubscribe` (legacy revisions; 2026-07-28 subscribes on a listen
 * stream). The lists and each read have `ttlMs` and `cacheScope` on 2026-07-28. A read looks the URI up
 * among the resources first, then the templates in order; an unknown URI is -32602 on 2026-07-28 and
 * -32002 before, with `data.uri` either way.
 *
 * @example
 * ```ts
 * import { Endpoint, serveLifecycle } from '@mcp-inflight/core';
 * import { defineResource, serveResources } from '@mcp-inflight/server';
 * const endpoint = new Endpoint({ role: 'server', transport: 'stdio', channel: { write: () => {} } });
 * serveLifecycle(endpoint, { serverInfo: { name: 'demo', version: '1.0.0' }, capabilities: { resources: {} } });
 * serveResources(endpoint, [defineResource({ uri: 'file:///a.txt', name: 'a', read: () => 'A' })]);
 * ```
 */
export function serveResources(
  endpoint: Endpoint,
  resources: ReadonlyArray<Resource | ResourceTemplate> | ResourceList,
  options: ServeResourcesOptions = {},
): void {
  const hints = options.cache ?? NO_CACHING;
  const fixed = resources instanceof ResourceList ? undefined : resources.filter(isResource);
  const templates = resources instanceof ResourceList ? undefined : resources.filter(isTemplate);
  const byUri = fixed ? new Map(fixed.map((r) => [r.uri, r])) : undefined;
  const resourcesNow = (): readonly Resource[] =>
    resources instanceof ResourceList ? resources.resources : (fixed as Resource[]);
  const templatesNow = (): readonly ResourceTemplate[] =>
    resources instanceof ResourceList ? resources.templates : (templates as ResourceTemplate[]);
  const cached = (revision: Revision, result: Record<string, unknown>): Record<string, unknown> =>
    isLegacy(revision) ? result : { ...result, ...hints };

  endpoint.setRequestHandler('resources/list', (_params, ctx) =>
    cached(ctx.revision, { resources: resourcesNow().map(resourceListing) }),
  );
  endpoint.setRequestHandler('resources/templates/list', (_params, ctx) =>
    cached(ctx.revision, {
      resourceTemplates: templatesNow().map(templateListing),
    }),
  );
  endpoint.setRequestHandler('resources/read', async (params, ctx) => {
    const uri = uriOf(params);
    const resource = byUri ? byUri.get(uri) : resourcesNow().find((r) => r.uri === uri);
    if (resource) {
      const output = await resource.definition.read(uri, ctx);
      return cached(ctx.revision, {
        contents: contentsOf(output, uri, resource.definition.mimeType),
      });
    }
    for (const template of templatesNow()) {
      const variables = template.match(uri);
      if (variables === undefined) continue;
      const output = await template.definition.read(uri, variables, ctx);
      return cached(ctx.revision, {
        contents: contentsOf(output, uri, template.definition.mimeType),
      });
    }
    throw new JsonRpcError(
      isLegacy(ctx.revision) ? RESOURCE_NOT_FOUND_LEGACY : JsonRpcErrorCode.InvalidParams,
      `Resource not found: ${uri}`,
      { uri },
    );
  });
  if (resources instanceof ResourceList) {
    // 2026-07-28 removed both: a listen stream's filter names the URIs instead (changelog).
    endpoint.setRequestHandler('resources/subscribe', (params, ctx) => {
      subscribe(resources, endpoint, legacyUri(params, ctx));
      return {};
    });
    endpoint.setRequestHandler('resources/unsubscribe', (params, ctx) => {
      unsubscribe(resources, endpoint, legacyUri(params, ctx));
      return {};
    });
  }
}

function legacyUri(params: Record<string, unknown> | undefined, ctx: RequestContext): string {
  if (!isLegacy(ctx.revision))
    throw new JsonRpcError(JsonRpcErrorCode.MethodNotFound, `Method not found: ${ctx.method}`);
  return uriOf(params);
}

function uriOf(params: Record<string, unknown> | undefined): string {
  const uri = params?.['uri'];
  if (typeof uri !== 'string')
    throw new JsonRpcError(JsonRpcErrorCode.InvalidParams, 'Invalid params: uri must be a string');
  return uri;
}

/** What `read` returned, as the result's `contents`: a string is one text item at the read URI. */
function contentsOf(output: ResourceOutput, uri: string, mimeType: string | undefined): ResourceContents[] {
  if (typeof output === 'string')
    return [{ uri, ...(mimeType === undefined ? {} : { mimeType }), text: output }];
  const contents = Array.isArray(output) ? [...output] : [output as ResourceContents];
  const bad = contents.findIndex(
    (item) =>
      typeof item !== 'object' ||
      item === null ||
      typeof item.uri !== 'string' ||
      (typeof (item as EmbeddedText).text !== 'string' && typeof (item as EmbeddedBlob).blob !== 'string'),
  );
  // An empty or malformed read is the server's mistake; the spec forbids empty contents [SEP-2164].
  if (contents.length === 0 || bad !== -1)
    throw new JsonRpcError(
      JsonRpcErrorCode.InternalError,
      contents.length === 0
        ? `read(${uri}) returned no contents`
        : `read(${uri}) returned contents[${bad}] without a uri and a text or blob string`,
    );
  return contents;
}

const described = (d: Described): Record<string, unknown> => ({
  name: d.name,
  ...(d.title === undefined ? {} : { title: d.title }),
  ...(d.description === undefined ? {} : { description: d.description }),
  ...(d.mimeType === undefined ? {} : { mimeType: d.mimeType }),
  ...d.listing,
});

const resourceListings = new WeakMap<Resource, Record<string, unknown>>();
function resourceListing(resource: Resource): Record<string, unknown> {
  let entry = resourceListings.get(resource);
  if (entry === undefined) {
    entry = { uri: resource.uri, ...described(resource.definition) };
    resourceListings.set(resource, entry);
  }
  return entry;
}

const templateListings = new WeakMap<ResourceTemplate, Record<string, unknown>>();
function templateListing(template: ResourceTemplate): Record<string, unknown> {
  let entry = templateListings.get(template);
  if (entry === undefined) {
    entry = {
      uriTemplate: template.uriTemplate,
      ...described(template.definition),
    };
    templateListings.set(template, entry);
  }
  return entry;
}
