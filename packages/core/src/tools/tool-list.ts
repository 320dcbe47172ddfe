import type { Tool } from './define-tool.js';

/**
 * Anything that publishes a notification to a server's listeners: `Listeners` from
 * `@mcp-inflight/core/listen` is one.
 *
 * @example
 * ```ts
 * import type { Publisher } from '@mcp-inflight/core/tools';
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
 * `notifications/tools/list_changed` to the server's listeners (a 2026-07-28 listen stream that asked for
 * it, a legacy session or connection unasked). Declare `capabilities.tools.listChanged` with it.
 *
 * @example
 * ```ts
 * import { Listeners } from '@mcp-inflight/core/listen';
 * import { defineTool, ToolList } from '@mcp-inflight/core/tools';
 * import * as z from 'zod';
 * const listeners = new Listeners();
 * const tools = new ToolList([], { listeners });
 * tools.add(defineTool({ name: 'hello', input: z.object({}), run: () => 'hi' })); // listeners hear of it
 * ```
 */
export class ToolList {
  #tools: Map<string, Tool>;
  #publisher: Publisher | undefined;
  /** Bumped on every change, so a served endpoint knows its listing is stale. */
  version = 0;

  constructor(tools: readonly Tool[] = [], options: { listeners?: Publisher } = {}) {
    this.#tools = new Map(tools.map((tool) => [tool.name, tool]));
    this.#publisher = options.listeners;
  }

  /** The tools now, in the order they were added. */
  get tools(): readonly Tool[] {
    return [...this.#tools.values()];
  }

  /** Looks a tool up by name. */
  get(name: string): Tool | undefined {
    return this.#tools.get(name);
  }

  /** Adds tools (a tool with the same name is replaced). */
  add(...tools: Tool[]): void {
    for (const tool of tools) this.#tools.set(tool.name, tool);
    this.#changed();
  }

  /** Removes a tool; returns whether it was there (nothing is published otherwise). */
  remove(name: string): boolean {
    if (!this.#tools.delete(name)) return false;
    this.#changed();
    return true;
  }

  /** Replaces the whole list. */
  set(tools: readonly Tool[]): void {
    this.#tools = new Map(tools.map((tool) => [tool.name, tool]));
    this.#changed();
  }

  #changed(): void {
    this.version++;
    this.#publisher?.notify('notifications/tools/list_changed');
  }
}
