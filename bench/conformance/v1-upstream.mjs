// A legacy-only upstream on the official SDK v1 McpServer over stdio, serving the tools the conformance
// suite calls by name, so the proxy's column measures the proxy, not a missing tool.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { registerSuiteTools } from './suite-tools.mjs';

const server = new McpServer({ name: 'sdk-v1-upstream', version: '1.0.0' });
registerSuiteTools(server, (extra) => ({
  signal: extra.signal,
  meta: extra._meta,
  notify: extra.sendNotification,
}));
await server.connect(new StdioServerTransport());
