/** The 2026-07-28 request that opens a long-lived notification stream [L9 L12]. */
export const LISTEN_METHOD = 'subscriptions/listen';

/** `_meta` key naming the listen request a stream message belongs to: its JSON-RPC id [L10 S7]. */
export const SUBSCRIPTION_ID_META_KEY = 'io.modelcontextprotocol/subscriptionId';

/** The first message on a listen stream, echoing the filter the server honours [L9]. */
export const LISTEN_ACK_METHOD = 'notifications/subscriptions/acknowledged';

/**
 * What a `subscriptions/listen` stream carries: the client opts in to each notification type; an omitted
 * field is not subscribed [LS2].
 *
 * @example
 * ```ts
 * import type { ListenFilter } from '@mcp-inflight/core/adapter';
 * const filter: ListenFilter = { toolsListChanged: true, resourceSubscriptions: ['file:///notes.md'] };
 * ```
 */
export interface ListenFilter {
  /** `notifications/tools/list_changed`. */
  toolsListChanged?: boolean;
  /** `notifications/prompts/list_changed`. */
  promptsListChanged?: boolean;
  /** `notifications/resources/list_changed`. */
  resourcesListChanged?: boolean;
  /** `notifications/resources/updated` for these resource URIs. */
  resourceSubscriptions?: string[];
}

/** The three list changes, each with the filter field that asks for it [LS2]. */
export const LIST_CHANGED: Readonly<
  Record<string, 'toolsListChanged' | 'promptsListChanged' | 'resourcesListChanged'>
> = {
  'notifications/tools/list_changed': 'toolsListChanged',
  'notifications/prompts/list_changed': 'promptsListChanged',
  'notifications/resources/list_changed': 'resourcesListChanged',
};

/** The notification a resource subscription brings. */
export const RESOURCE_UPDATED = 'notifications/resources/updated';

/**
 * Whether a stream opened with `filter` may carry `method` (with `params`): a server MUST NOT send a type
 * the client did not request [LS1].
 */
export function filterWants(
  filter: ListenFilter,
  method: string,
  params: Record<string, unknown> | undefined,
): boolean {
  const field = LIST_CHANGED[method];
  if (field) return filter[field] === true;
  if (method !== RESOURCE_UPDATED) return false;
  const uri = (params as { uri?: unknown } | undefined)?.uri;
  return typeof uri === 'string' && (filter.resourceSubscriptions ?? []).includes(uri);
}

/** The filter a client asks for when it handles these notification methods. */
export function filterFor(methods: Iterable<string>, resourceSubscriptions: readonly string[]): ListenFilter {
  const filter: ListenFilter = {};
  for (const method of methods) {
    const field = LIST_CHANGED[method];
    if (field) filter[field] = true;
  }
  if (resourceSubscriptions.length > 0) filter.resourceSubscriptions = [...resourceSubscriptions];
  return filter;
}

/** Whether a filter asks for nothing at all (then no stream is worth opening). */
export function isEmptyFilter(filter: ListenFilter): boolean {
  return (
    !filter.toolsListChanged &&
    !filter.promptsListChanged &&
    !filter.resourcesListChanged &&
    (filter.resourceSubscriptions ?? []).length === 0
  );
}

/**
 * The part of `filter` a server's capabilities say it can deliver: a list change it declares
 * (`tools.listChanged`…), resource updates only with `resources.subscribe`. A client asks for no more.
 */
export function offeredBy(
  filter: ListenFilter,
  capabilities: Record<string, unknown> | undefined,
): ListenFilter {
  const has = (kind: string, flag: string): boolean => {
    const entry = capabilities?.[kind] as Record<string, unknown> | undefined;
    return typeof entry === 'object' && entry !== null && entry[flag] === true;
  };
  const offered: ListenFilter = {};
  if (filter.toolsListChanged && has('tools', 'listChanged')) offered.toolsListChanged = true;
  if (filter.promptsListChanged && has('prompts', 'listChanged')) offered.promptsListChanged = true;
  if (filter.resourcesListChanged && has('resources', 'listChanged')) offered.resourcesListChanged = true;
  if (filter.resourceSubscriptions && has('resources', 'subscribe'))
    offered.resourceSubscriptions = filter.resourceSubscriptions;
  return offered;
}
