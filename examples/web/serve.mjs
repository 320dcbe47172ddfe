#!/usr/bin/env node
// Serves examples/web: bundles src/app.ts with @mcp-inflight/http/fetch for the browser (esbuild, in
// memory), serves the page on 127.0.0.1, and starts examples/server on another port (another origin), whose
// --allowed-origins names this page's origin only. Prints both URLs; Ctrl-C stops both. See README.md.
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const USAGE = `usage: node examples/web/serve.mjs [--port PORT] [--mcp-port PORT]
  --port PORT      the page, on http://127.0.0.1:PORT/ (default 8080; 0 picks a free port)
  --mcp-port PORT  examples/server, on http://127.0.0.1:PORT/mcp (default 0, a free port)
`;

function parseArgs(argv) {
  const options = { port: 8080, mcpPort: 0 };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const port = (text = '') => {
      if (!/^\d+$/.test(text) || Number(text) > 65_535)
        throw new Error(`${flag} takes a port, not "${text}"`);
      return Number(text);
    };
    if (flag === '--port') options.port = port(argv[++i]);
    else if (flag === '--mcp-port') options.mcpPort = port(argv[++i]);
    else if (flag === '--help') {
      process.stdout.write(USAGE);
      process.exit(0);
    } else throw new Error(`unknown argument ${flag}`);
  }
  return options;
}

let options;
try {
  options = parseArgs(process.argv.slice(2));
} catch (error) {
  process.stderr.write(`web example: ${error.message}\n\n${USAGE}`);
  process.exit(2);
}

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const bundled = await build({
  entryPoints: [here('src/app.ts')],
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  write: false,
  logLevel: 'warning',
});
const appJs = bundled.outputFiles[0].text;
const html = await readFile(here('index.html'), 'utf8');

let mcpUrl = '';
const page = createServer((request, response) => {
  const path = new URL(request.url ?? '/', 'http://x').pathname;
  if (request.method !== 'GET') {
    response.writeHead(405).end();
  } else if (path === '/' || path === '/index.html') {
    const body = html.replace(
      '<meta name="mcp-url" content="" />',
      `<meta name="mcp-url" content="${mcpUrl}" />`,
    );
    response
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' })
      .end(body);
  } else if (path === '/app.js') {
    response
      .writeHead(200, { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-store' })
      .end(appJs);
  } else {
    response.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
  }
});
await new Promise((resolve, reject) => {
  page.once('error', reject);
  page.listen(options.port, '127.0.0.1', resolve);
}).catch((error) => {
  process.stderr.write(`web example: cannot listen: ${error.message}\n`);
  process.exit(1);
});
const pageUrl = `http://127.0.0.1:${page.address().port}/`;

// The MCP server on its own port: a different origin, so the browser sends Origin and a CORS preflight.
const server = spawn(
  process.execPath,
  [
    here('../server/dist/index.js'),
    '--http',
    String(options.mcpPort),
    '--allowed-origins',
    new URL(pageUrl).origin,
  ],
  { stdio: ['ignore', 'inherit', 'pipe'] },
);
server.once('exit', (code, signal) => {
  process.stderr.write(`web example: the MCP server exited (${signal ?? code})\n`);
  page.close();
  process.exit(1);
});
mcpUrl = await new Promise((resolve) => {
  let seen = '';
  server.stderr.on('data', (chunk) => {
    process.stderr.write(chunk);
    seen += String(chunk);
    const match = /listening on (\S+)/.exec(seen);
    if (match && !mcpUrl) resolve(match[1]);
  });
});
process.stdout.write(`page ${pageUrl}\nmcp ${mcpUrl}\n`);

const stop = () => {
  server.removeAllListeners('exit');
  server.kill('SIGTERM');
  page.close();
  page.closeAllConnections();
  process.exit(0);
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
