import http from 'node:http';
import { McpServer, createMcpHandler, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import * as z from 'zod';

const factory = () => {
  const s = new McpServer({ name: 's', version: '1' }, { capabilities: { tools: {} }, supportedProtocolVersions: ['2026-07-28', ...SUPPORTED_PROTOCOL_VERSIONS] });
  s.registerTool('work', { inputSchema: z.object({ steps: z.number() }) }, async ({ steps }, ctx) => {
    console.log('server ctx meta', ctx.mcpReq._meta, 'envelope', ctx.mcpReq.envelope, 'id', ctx.mcpReq.id);
    for (let i = 1; i <= steps; i++) {
      await new Promise((r) => setTimeout(r, 50));
      if (ctx.mcpReq.signal.aborted) { console.log('server aborted', String(ctx.mcpReq.signal.reason)); return { content: [] }; }
      await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: ctx.mcpReq._meta?.progressToken, progress: i, total: steps, message: 'm' + i } });
    }
    return { content: [{ type: 'text', text: 'done' }] };
  });
  return s;
};
const handler = createMcpHandler(factory);
const srv = http.createServer(toNodeHandler(handler));
await new Promise((r) => srv.listen(0, '127.0.0.1', r));
const url = new URL(`http://127.0.0.1:${srv.address().port}/mcp`);
const client = new Client({ name: 'c', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
client.onerror = (e) => console.log('client onerror', e.message);
await client.connect(new StreamableHTTPClientTransport(url));
console.log('negotiated', client.getNegotiatedProtocolVersion(), client.getProtocolEra?.());
const r = await client.callTool({ name: 'work', arguments: { steps: 3 } }, { onprogress: (p) => console.log('progress', p) });
console.log('result', JSON.stringify(r));
const ac = new AbortController();
setTimeout(() => ac.abort('user stop'), 120);
try { await client.callTool({ name: 'work', arguments: { steps: 10 } }, { signal: ac.signal, onprogress: (p) => console.log('p2', p.progress) }); } catch (e) { console.log('rejected', e.constructor.name, e.code, e.message); }
await new Promise((r) => setTimeout(r, 300));
await client.close();
srv.close(); srv.closeAllConnections?.();
