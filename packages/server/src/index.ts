/**
 * `@mcp-inflight/server`: what a server author calls: `createServer`, tools defined with a zod input
 * schema, prompts, resources and completions, served on an `Endpoint`. zod is an optional peer that only
 * this package loads. Tasks, input requests, listen streams and stats have entries of their own.
 *
 * @module @mcp-inflight/server
 */

// Cache hints are the client's to read (client/lifecycle/cache-hints.ts); a server author sets them here.
export { type CacheHints, NO_CACHING } from '@mcp-inflight/client';
export {
  type CreateServerOptions,
  createServer,
  type McpServer,
} from './tools/create-server.js';
export {
  defineResource,
  defineResourceTemplate,
  type Resource,
  type ResourceContents,
  type ResourceDefinition,
  type ResourceOutput,
  type ResourceTemplate,
  type ResourceTemplateDefinition,
} from './tools/define-resource.js';
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
export { ResourceList } from './tools/resource-list.js';
export { type ServeResourcesOptions, serveResources } from './tools/serve-resources.js';
export {
  type ServedTools,
  type ServeToolsOptions,
  serveTools,
} from './tools/serve-tools.js';
export { type Publisher, ToolList } from './tools/tool-list.js';
