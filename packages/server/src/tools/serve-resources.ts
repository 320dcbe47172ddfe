import { type CacheHints, NO_CACHING } from '@mcp-inflight/client';
import type { Endpoint, RequestContext, Revision } from '@mcp-inflight/core';
import { JsonRpcError, JsonRpcErrorCode } from '@mcp-inflight/core';
import type { EmbeddedBlob, EmbeddedText } from '@mcp-inflight/core/adapter';
import { isLegacy } from '@mcp-inflight/core/adapter';
import {
  type Described,
  isResource,
  isTemplate,
  type Resource,
  type ResourceContents,
  type ResourceOutput,
  type ResourceTemplate,
} from './define-resource.js';
import { ResourceList, subscribe, unsubscribe } from './resource-list.js';

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
