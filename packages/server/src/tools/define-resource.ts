import type { RequestContext } from '@mcp-inflight/core';
import type { EmbeddedBlob, EmbeddedText } from '@mcp-inflight/core/adapter';
import type { Completer } from './prompts.js';

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

/** What `resources/list` and `resources/templates/list` show of a resource, besides its address. @internal */
export interface Described {
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

/** Whether an item of a resource list is a fixed-URI resource. */
export function isResource(item: Resource | ResourceTemplate): item is Resource {
  return typeof (item as Resource).uri === 'string';
}

/** Whether an item of a resource list is a template. */
export function isTemplate(item: Resource | ResourceTemplate): item is ResourceTemplate {
  return typeof (item as ResourceTemplate).uriTemplate === 'string';
}
