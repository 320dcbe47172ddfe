/**
 * `@mcp-inflight/core/tools`: a small tool layer (not an SDK): tools defined with a zod input schema and
 * served on an Endpoint. On its own entry, so zod loads only for those who import it.
 *
 * @module @mcp-inflight/core/tools
 */
export type {
  AudioContent,
  EmbeddedResource,
  ImageContent,
  ResourceLink,
  TextContent,
} from './client/content.js';
export { defineTool, type Tool, type ToolDefinition, type ToolOutput } from './tools/define-tool.js';
export {
  type CacheHints,
  type ServedTools,
  type ServeToolsOptions,
  serveTools,
} from './tools/serve-tools.js';
export { type Publisher, ToolList } from './tools/tool-list.js';
