// A proxy on the official SDK v1: each host connection gets its own `Server`, and every call is relayed to
// one upstream `Client` with a fresh upstream token, the host's cancel linked, and a deadline of its own.

import { relayRequest } from '@mcp-inflight/sdk';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

export function createProxyServer(upstream: Client): Server {
  const server = new Server({ name: 'proxy', version: '1.0.0' }, { capabilities: { tools: {} } });
  const limits = { idleMs: 60_000, ceilingMs: 600_000 };
  server.setRequestHandler(ListToolsRequestSchema, (request, extra) =>
    relayRequest(extra, upstream, request, limits),
  );
  server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
    relayRequest(extra, upstream, request, limits),
  );
  return server;
}
