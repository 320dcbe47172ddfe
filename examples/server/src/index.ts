import { serveHttp } from '@mcp-inflight/http';
import { serveStdio } from '@mcp-inflight/stdio';
import { setupConformanceServer } from './conformance.js';
import { setupExampleServer, type WorkCounters } from './tools.js';

// `node dist/index.js` serves stdio; `--http PORT` serves Streamable HTTP on 127.0.0.1:PORT at /mcp.
const counters: WorkCounters = { running: 0, completed: 0, cancelled: 0 };
const args = process.argv.slice(2);
const httpAt = args.indexOf('--http');

if (httpAt >= 0) {
  const port = Number(args[httpAt + 1]);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    process.stderr.write('usage: index.js [--http PORT]\n');
    process.exit(2);
  }
  // `--conformance` adds the tools @modelcontextprotocol/conformance calls by name.
  const setup = args.includes('--conformance') ? setupConformanceServer : setupExampleServer;
  const server = await serveHttp((endpoint) => setup(endpoint, counters), {
    port,
    host: '127.0.0.1',
    path: '/mcp',
  });
  process.stderr.write(`example server listening on ${server.url}\n`);
  const stop = (): void => {
    void server.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
} else {
  const server = serveStdio((endpoint) => setupExampleServer(endpoint, counters));
  await server.closed;
}
