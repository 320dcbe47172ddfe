// The official SDK v2 server as the suite's reference: createMcpHandler with its defaults (2026-07-28 per
// request, stateless fallback for 2025-era traffic) behind toNodeHandler, on 127.0.0.1 port 0 at /mcp.
// Prints `sdk v2 server listening on <url>` on stderr.
import { createServer } from 'node:http';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { registerSuiteTools } from './suite-tools.mjs';

const handler = createMcpHandler(() => {
  const server = new McpServer(
    { name: 'sdk-v2-conformance', version: '2.4.0' },
    { supportedProtocolVersions: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26'] },
  );
  registerSuiteTools(server, (ctx) => ({
    signal: ctx.mcpReq.signal,
    meta: ctx.mcpReq._meta,
    notify: (notification) => ctx.mcpReq.notify(notification),
  }));
  return server;
});

const http = createServer(toNodeHandler(handler));
http.listen(0, '127.0.0.1', () => {
  process.stderr.write(`sdk v2 server listening on http://127.0.0.1:${http.address().port}/mcp\n`);
});
process.once('SIGTERM', () => {
  http.closeAllConnections();
  http.close(() => process.exit(0));
});
