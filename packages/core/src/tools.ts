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
export {
  type CreateServerOptions,
  createServer,
  type McpServer,
} from './tools/create-server.js';
export { defineTool, type Tool, type ToolDefinition, type ToolOutput } from './tools/define-tool.js';
export {
  type Completer,
  definePrompt,
  type GetPromptResult,
  type Prompt,
  type PromptDefinition,
  PromptList,
  type PromptMessage,
  type PromptOutput,
  type ServePromptsOptions,
  servePrompts,
} from './tools/prompts.js';
export {
  defineResource,
  defineResourceTemplate,
  type Resource,
  type ResourceContents,
  type ResourceDefinition,
  ResourceList,
  type ResourceOutput,
  type ResourceTemplate,
  type ResourceTemplateDefinition,
  type ServeResourcesOptions,
  serveResources,
} from './tools/resources.js';
export {
  type CacheHints,
  type ServedTools,
  type ServeToolsOptions,
  serveTools,
} from './tools/serve-tools.js';
export { type Publisher, ToolList } from './tools/tool-list.js';
