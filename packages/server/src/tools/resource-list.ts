import type { Endpoint } from '@mcp-inflight/core';
import { isResource, isTemplate, type Resource, type ResourceTemplate } from './define-resource.js';
import { Entries, type Publisher } from './tool-list.js';

/**
 * A server's resources and templates when they change while it runs: hand it to `serveResources` (or
 * `createServer`) and each change is seen by the next request everywhere, and published as
 * `notifications/resources/list_changed` to the server's listenStreams. {@link ResourceList.updated} tells
 * the subscribers of one URI that its contents changed: a 2026-07-28 listen stream whose filter names
 * it, and a legacy session or connection that sent `resources/subscribe` for it. Declare
 * `resources: { listChanged: true, subscribe: true }` with it (`createServer` does).
 *
 * @example
 * ```ts
 * import { ListenStreams } from '@mcp-inflight/server/listen';
 * import { defineResource, ResourceList } from '@mcp-inflight/server';
 * const resources = new ResourceList([], { listenStreams: new ListenStreams() });
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
    options: { listenStreams?: Publisher } = {},
  ) {
    const method = 'notifications/resources/list_changed';
    this.#publisher = options.listenStreams;
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

/** The URIs legacy endpoints subscribed to, by list (module-private: serveResources' handlers fill it). */
const subscribersOf = new WeakMap<ResourceList, Map<string, Set<Endpoint>>>();

/** Subscribes a legacy endpoint to `uri` on `list` (`resources/subscribe`). @internal */
export function subscribe(list: ResourceList, endpoint: Endpoint, uri: string): void {
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

/** Ends a legacy endpoint's subscription to `uri` on `list` (`resources/unsubscribe`). @internal */
export function unsubscribe(list: ResourceList, endpoint: Endpoint, uri: string): void {
  const byUri = subscribersOf.get(list);
  const endpoints = byUri?.get(uri);
  endpoints?.delete(endpoint);
  if (endpoints?.size === 0) byUri?.delete(uri);
}

const RESOURCE_UPDATED = 'notifications/resources/updated';
