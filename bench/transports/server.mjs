// The server side of the transport benchmarks, one process per run: `node server.mjs <impl> <transport>`.
//   impl:      inflight (serveStdio / serveHttp + the tool layer), sdk-v1 (McpServer 1.32.2), sdk-v2
//              (McpServer 2.4.0; over HTTP behind createMcpHandler, which serves 2026-07-28 per request
//              and 2025-era requests statelessly)
//   transport: stdio (MCP on stdin/stdout) or http (127.0.0.1, port 0, /mcp; the preload reports the port)
// The same two tools everywhere, with zod input schemas:
//   flood {n, paced}  sends progress 1..n of n, then returns one text item (ours: coalescing off, so
//                every value goes out). `paced`: the tool yields to the event loop (setImmediate) after
//                each update, as a tool doing work between updates would; otherwise it reports as fast as
//                the library lets it (ours: n synchronous calls; the SDK: `await` on each send);
//   echo {text}  returns its text as one text item.
import { z } from 'zod';

const [impl, transport] = process.argv.slice(2);
const INFO = { name: `bench-${impl}`, version: '1.0.0' };
const tick = () => new Promise((resolve) => setImmediate(resolve));
const text = (value) => ({ content: [{ type: 'text', text: value }] });

if (impl === 'inflight') await inflight();
else if (impl === 'sdk-v1') await sdkV1();
else if (impl === 'sdk-v2') await sdkV2();
else throw new Error(`unknown impl ${impl}`);

async function inflight() {
  const { ProgressRelay, serveLifecycle } = await import('@mcp-inflight/core');
  const { defineTool, serveTools } = await import('@mcp-inflight/server');
  const tools = [
    defineTool({
      name: 'flood',
      input: z.object({ n: z.number().int(), paced: z.boolean() }),
      run: async ({ n, paced }, ctx) => {
        for (let i = 1; i <= n; i++) {
          ctx.progress(i, n);
          if (paced) await tick();
        }
        return 'flooded';
      },
    }),
    defineTool({ name: 'echo', input: z.object({ text: z.string() }), run: ({ text }) => text }),
  ];
  const setup = (endpoint) => {
    serveLifecycle(endpoint, { serverInfo: INFO, capabilities: { tools: {} } });
    serveTools(endpoint, tools);
  };
  // Every accepted value is sent: the benchmark counts values, not a progress bar's frames.
  const relay = new ProgressRelay({ minIntervalMs: 0 });
  if (transport === 'stdio') {
    const { serveStdio } = await import('@mcp-inflight/stdio');
    await serveStdio(setup, { progressRelay: relay }).closed;
    process.exit(0);
  } else {
    const { serveHttp } = await import('@mcp-inflight/http');
    const running = await serveHttp(setup, { port: 0, progressRelay: relay });
    process.once('SIGTERM', () => running.close().then(() => process.exit(0)));
  }
}

/** The SDK handlers, given how each version's context sends a notification. */
function registerSdkTools(server, extraOf) {
  server.registerTool(
    'flood',
    { description: 'progress 1..n', inputSchema: { n: z.number().int(), paced: z.boolean() } },
    async ({ n, paced }, extra) => {
      const { token, notify } = extraOf(extra);
      for (let i = 1; i <= n; i++) {
        await notify({
          method: 'notifications/progress',
          params: { progressToken: token, progress: i, total: n },
        });
        if (paced) await tick();
      }
      return text('flooded');
    },
  );
  server.registerTool(
    'echo',
    { description: 'returns its text', inputSchema: { text: z.string() } },
    async ({ text: value }) => text(value),
  );
}

async function sdkV1() {
  const { McpServer } = await import('@modelcontextprotocol/sdk/server/mcp.js');
  const build = () => {
    const server = new McpServer(INFO);
    registerSdkTools(server, (extra) => ({
      token: extra._meta?.progressToken,
      notify: (n) => extra.sendNotification(n),
    }));
    return server;
  };
  if (transport === 'stdio') {
    const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
    await build().connect(new StdioServerTransport());
    process.stdin.once('end', () => process.exit(0));
    return;
  }
  // Stateful Streamable HTTP, the way the SDK's examples serve it: one transport per session.
  const { randomUUID } = await import('node:crypto');
  const { createServer } = await import('node:http');
  const { StreamableHTTPServerTransport } = await import(
    '@modelcontextprotocol/sdk/server/streamableHttp.js'
  );
  const sessions = new Map();
  const http = createServer(async (req, res) => {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
    const id = req.headers['mcp-session-id'];
    let t = typeof id === 'string' ? sessions.get(id) : undefined;
    if (!t) {
      t = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => sessions.set(sid, t),
      });
      t.onclose = () => sessions.delete(t.sessionId);
      await build().connect(t);
    }
    await t.handleRequest(req, res, body);
  });
  http.listen(0, '127.0.0.1');
  process.once('SIGTERM', () => {
    http.closeAllConnections();
    http.close(() => process.exit(0));
  });
}

async function sdkV2() {
  const { McpServer } = await import('@modelcontextprotocol/server');
  const build = () => {
    const server = new McpServer(INFO, {
      supportedProtocolVersions: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26'],
    });
    registerSdkTools(server, (ctx) => ({
      token: ctx.mcpReq._meta?.progressToken,
      notify: (n) => ctx.mcpReq.notify(n),
    }));
    return server;
  };
  if (transport === 'stdio') {
    const { StdioServerTransport } = await import('@modelcontextprotocol/server/stdio');
    await build().connect(new StdioServerTransport());
    process.stdin.once('end', () => process.exit(0));
    return;
  }
  const { createServer } = await import('node:http');
  const { toNodeHandler } = await import('@modelcontextprotocol/node');
  const { createMcpHandler } = await import('@modelcontextprotocol/server');
  const http = createServer(toNodeHandler(createMcpHandler(build)));
  http.listen(0, '127.0.0.1');
  process.once('SIGTERM', () => {
    http.closeAllConnections();
    http.close(() => process.exit(0));
  });
}
