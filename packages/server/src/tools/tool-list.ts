import type { Tool } from './define-tool.js';

/**
 * Anything that publishes a notification to a server's listenStreams: `ListenStreams` from
 * `@mcp-inflight/server/listen` is one.
 *
 * @example
 * ```ts
 * import type { Publisher } from '@mcp-inflight/server';
 * const log: Publisher = { notify: (method) => console.log('published', method) };
 * ```
 */
export interface Publisher {
  /** Publishes `method` to every listener that asked for it. */
  notify(method: string, params?: Record<string, unknown>): unknown;
}

/**
 * A server's tools when they change while it runs: hand it to `serveTools` on every endpoint, and each
 * `add`, `remove` or `set` is seen by the next `tools/list` and `tools/call` everywhere, and published as
 * `notifications/tools/list_changed` to the server's listenStreams (a 2026-07-28 listen stream that asked for
 * it, a legacy session or connection unasked). Declare `capabilities.tools.listChanged` with it.
 *
 * @example
 * ```ts
 * import { ListenStreams } from '@mcp-inflight/server/listen';
 * import { defineTool, ToolList } from '@mcp-inflight/server';
 * import * as z from 'zod';
 * const listenStreams = new ListenStreams();
 * const tools = new ToolList([], { listenStreams });
 * tools.add(defineTool({ name: 'hello', input: z.object({}), run: () => 'hi' })); // listenStreams hear of it
 * ```
 */
export class ToolList {
  readonly #entries: Entries<Tool>;

  constructor(tools: readonly Tool[] = [], options: { listenStreams?: Publisher } = {}) {
    this.#entries = new Entries(tools, 'notifications/tools/list_changed', options.listenStreams);
  }

  /** Bumped on every change, so a served endpoint knows its listing is stale. */
  get version(): number {
    return this.#entries.version;
  }

  /** The tools now, in the order they were added. */
  get tools(): readonly Tool[] {
    return this.#entries.values();
  }

  /** Looks a tool up by name. */
  get(name: string): Tool | undefined {
    return this.#entries.get(name);
  }

  /** Adds tools (a tool with the same name is replaced). */
  add(...tools: Tool[]): void {
    this.#entries.add(tools);
  }

  /** Removes a tool; returns whether it was there (nothing is published otherwise). */
  remove(name: string): boolean {
    return this.#entries.remove(name);
  }

  /** Replaces the whole list. */
  set(tools: readonly Tool[]): void {
    this.#entries.set(tools);
  }
}

/**
 * A changing list's entries by name (a resource's by URI), with the version a served endpoint compares
 * and the list change it publishes. Internal: the lists of tools, prompts and resources share it.
 */
export class Entries<T extends { readonly name: string }> {
  #items: Map<string, T>;
  #values: readonly T[] | undefined;
  readonly #method: string;
  readonly #publisher: Publisher | undefined;
  readonly #keyOf: (item: T) => string;
  version = 0;

  constructor(
    items: readonly T[],
    method: string,
    publisher: Publisher | undefined,
    keyOf: (item: T) => string = (item) => item.name,
  ) {
    this.#keyOf = keyOf;
    this.#items = new Map(items.map((item) => [keyOf(item), item]));
    this.#method = method;
    this.#publisher = publisher;
  }

  values(): readonly T[] {
    this.#values ??= [...this.#items.values()];
    return this.#values;
  }

  get(key: string): T | undefined {
    return this.#items.get(key);
  }

  add(items: readonly T[]): void {
    for (const item of items) this.#items.set(this.#keyOf(item), item);
    this.#changed();
  }

  remove(key: string): boolean {
    if (!this.#items.delete(key)) return false;
    this.#changed();
    return true;
  }

  set(items: readonly T[]): void {
    this.#items = new Map(items.map((item) => [this.#keyOf(item), item]));
    this.#changed();
  }

  #changed(): void {
    this.version++;
    this.#values = undefined;
    this.#publisher?.notify(this.#method);
  }
}
