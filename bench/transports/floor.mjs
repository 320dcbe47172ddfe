// The floors of section F: what a transport costs with no MCP library at all, one process per run.
//   node floor.mjs http    a `node:http` server on 127.0.0.1, port 0 (the preload reports it), any path:
//                          each POST's JSON body is parsed and answered with a JSON-RPC result as
//                          `application/json` (a notification or response: 202, empty)
//   node floor.mjs stdio   newline-delimited JSON on stdin/stdout: each request line answered with a result
//                          line
// The result: `echo`'s text back as one text item for `tools/call`; `flood` (tools/call, n progress values)
// streams its progress first (stdio: one line each; HTTP: an SSE stream, one event each); `initialize` and
// `server/discover` get the least a client needs to go on, so our client can be run against this server
// (the client half of the HTTP path).
import { createServer } from 'node:http';
import { createInterface } from 'node:readline';

const transport = process.argv[2];
const INFO = { name: 'bench-floor', version: '1.0.0' };

/** The result for one request, or for `flood` its progress values and then the result. */
function answer(message) {
  const { method, params } = message;
  if (method === 'initialize')
    return { protocolVersion: params.protocolVersion, capabilities: { tools: {} }, serverInfo: INFO };
  if (method === 'server/discover')
    return { supportedVersions: ['2026-07-28', '2025-11-25'], capabilities: { tools: {} }, serverInfo: INFO };
  if (method === 'tools/call' && params.name === 'flood')
    return { flood: params.arguments.n, paced: params.arguments.paced };
  return { content: [{ type: 'text', text: params?.arguments?.text ?? '' }] };
}

const progressOf = (message, i, n) => ({
  jsonrpc: '2.0',
  method: 'notifications/progress',
  params: { progressToken: message.params?._meta?.progressToken, progress: i, total: n },
});
const resultOf = (message, result) => ({ jsonrpc: '2.0', id: message.id, result });
const flooded = { content: [{ type: 'text', text: 'flooded' }] };
const tick = () => new Promise((resolve) => setImmediate(resolve));

/**
 * Writes progress 1..n: when `paced`, one write per turn of the event loop (as server.mjs's tool yields
 * after each update); in a burst, every line joined into one write, the least a writer can do.
 */
async function flood(message, { flood: n, paced }, write) {
  if (!paced) {
    const lines = [];
    for (let i = 1; i <= n; i++) lines.push(JSON.stringify(progressOf(message, i, n)));
    return write(lines.join(transport === 'http' ? '\n\ndata: ' : '\n'));
  }
  for (let i = 1; i <= n; i++) {
    write(JSON.stringify(progressOf(message, i, n)));
    await tick();
  }
}

if (transport === 'http') {
  const server = createServer({ noDelay: true }, (req, res) => {
    if (req.method !== 'POST') return void res.writeHead(405, { allow: 'POST' }).end();
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const message = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      if (message.id === undefined || message.method === undefined) return void res.writeHead(202).end();
      const result = answer(message);
      if (result.flood !== undefined) {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        return void flood(message, result, (line) => res.write(`data: ${line}\n\n`)).then(() =>
          res.end(`data: ${JSON.stringify(resultOf(message, flooded))}\n\n`),
        );
      }
      const body = JSON.stringify(resultOf(message, result));
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
  });
  server.listen(0, '127.0.0.1');
  process.once('SIGTERM', () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  });
} else if (transport === 'stdio') {
  createInterface({ input: process.stdin }).on('line', (line) => {
    const message = JSON.parse(line);
    if (message.id === undefined || message.method === undefined) return;
    const result = answer(message);
    if (result.flood !== undefined) {
      return void flood(message, result, (line) => process.stdout.write(`${line}\n`)).then(() =>
        process.stdout.write(`${JSON.stringify(resultOf(message, flooded))}\n`),
      );
    }
    process.stdout.write(`${JSON.stringify(resultOf(message, result))}\n`);
  });
  process.stdin.once('end', () => process.exit(0));
} else {
  throw new Error(`unknown transport ${transport}`);
}
