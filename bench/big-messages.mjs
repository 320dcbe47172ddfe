// Issue 21, items 1 and 2, measured against a server in a child process on 127.0.0.1 (port 0).
//   node bench/big-messages.mjs [--mb 2]
// 1. A reading client: one call sends a `--mb` MB progress then a `--mb` MB result; the client reads its SSE
//    stream as fast as it can (fetch). Prints the messages delivered, on 2026-07-28 and on 2025-06-18.
// 2. A 2 MB 2025-03-26 batch of invalid elements (`1`, a million of them): the answer's status and size,
//    the time to it, and the server's peak RSS.
// Needs `pnpm build` (core, http).
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const MODERN = '2026-07-28';

function argOf(name, fallback) {
  const at = process.argv.indexOf(name);
  return at === -1 ? fallback : process.argv[at + 1];
}

if (process.argv[2] === '--serve') await serve();
else await main();

async function serve() {
  const { serveLifecycle } = await import(`${ROOT}packages/core/dist/index.js`);
  const { serveHttp } = await import(`${ROOT}packages/http/dist/index.js`);
  const server = await serveHttp(
    (endpoint) => {
      serveLifecycle(endpoint, { serverInfo: { name: 'big', version: '1' }, capabilities: { tools: {} } });
      endpoint.setRequestHandler('tools/call', async (params, ctx) => {
        const bytes = params?.arguments?.bytes ?? 10;
        ctx.progress(1, 1, 'p'.repeat(bytes));
        return { content: [{ type: 'text', text: 'r'.repeat(bytes) }] };
      });
    },
    { port: 0, host: '127.0.0.1' },
  );
  let peakRss = process.memoryUsage().rss;
  setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }, 10).unref();
  process.on('message', (m) => {
    if (m === 'rss') process.send({ peakRss: Math.max(peakRss, process.memoryUsage().rss) });
  });
  process.send({ url: server.url });
}

function post(url, body, headers = {}) {
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

async function initialize(url, protocolVersion) {
  const r = await post(url, {
    jsonrpc: '2.0',
    id: 'init',
    method: 'initialize',
    params: { protocolVersion, capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
  });
  await r.text();
  const session = r.headers.get('mcp-session-id');
  const headers = { 'mcp-session-id': session, 'mcp-protocol-version': protocolVersion };
  await (await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers)).text();
  return headers;
}

/** Reads an SSE body to its end (or its cut) as fast as it can; counts `data:` events with a message. */
async function readEvents(response) {
  let text = '';
  let messages = 0;
  let error;
  const decoder = new TextDecoder();
  try {
    for await (const chunk of response.body) {
      text += decoder.decode(chunk, { stream: true });
      for (let at = text.indexOf('\n\n'); at !== -1; at = text.indexOf('\n\n')) {
        const event = text.slice(0, at);
        text = text.slice(at + 2);
        const data = event.split('\n').find((line) => line.startsWith('data: '));
        if (data && data.length > 6) messages++;
      }
    }
  } catch (e) {
    error = e.cause?.code ?? e.message;
  }
  return { messages, error };
}

async function readingClient(url, mb) {
  const bytes = Math.round(mb * 2 ** 20); // MB here is MiB, as sseBudgetBytes counts
  const rows = [];
  for (const revision of [MODERN, '2025-06-18']) {
    const call = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'big', arguments: { bytes } },
    };
    let headers;
    if (revision === MODERN) {
      call.params._meta = {
        progressToken: 'p1',
        'io.modelcontextprotocol/protocolVersion': MODERN,
        'io.modelcontextprotocol/clientCapabilities': {},
      };
      headers = { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'big' };
    } else {
      call.params._meta = { progressToken: 'p1' };
      headers = await initialize(url, revision);
    }
    const response = await post(url, call, headers);
    const { messages, error } = await readEvents(response);
    rows.push({
      revision,
      progressMB: mb,
      resultMB: mb,
      status: response.status,
      delivered: `${messages}/2`,
      error,
    });
  }
  return rows;
}

async function batch(url, server) {
  const headers = await initialize(url, '2025-03-26');
  const elements = 1_000_000;
  const body = `[${new Array(elements).fill('1').join(',')}]`;
  const started = performance.now();
  const response = await post(url, body, headers);
  const answer = await response.text();
  const ms = performance.now() - started;
  server.send('rss');
  const { peakRss } = await new Promise((resolve) => server.once('message', resolve));
  return {
    elements,
    bodyMB: +(body.length / 1e6).toFixed(2),
    status: response.status,
    answerBytes: answer.length,
    answerHead: answer.slice(0, 160),
    ms: Math.round(ms),
    serverPeakRssMB: Math.round(peakRss / 2 ** 20),
  };
}

async function main() {
  const server = fork(fileURLToPath(import.meta.url), ['--serve'], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const { url } = await new Promise((resolve) => server.once('message', resolve));
  try {
    for (const mb of argOf('--mb', '1,1.5,2').split(',').map(Number))
      for (const row of await readingClient(url, mb)) console.log(JSON.stringify(row));
    console.log(JSON.stringify(await batch(url, server)));
  } finally {
    server.kill();
  }
}
