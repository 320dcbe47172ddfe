// The client side of the transport benchmarks: client and server in separate processes, over a stdio pipe
// (the client spawns the server) or Streamable HTTP on 127.0.0.1 (the server is started first, port 0).
//
//   node client.mjs <impl> <transport> <era> progress [--n 20000] [--paced]
//   node client.mjs <impl> <transport> <era> calls [--calls 2000] [--concurrency 1] [--warmup 200]
//
//   impl:      inflight (spawnStdio / HttpClient against server.mjs inflight), sdk-v1, sdk-v2 (the SDK's
//              Client and transports against server.mjs of the same SDK); the floors and halves (floor.mjs):
//              floor (bare `fetch` POSTs to floor.mjs http, or newline JSON over a pipe to floor.mjs
//              stdio: no MCP library on either side), floor-node (bare `node:http` POSTs to floor.mjs
//              http: the floor of a client not on fetch, as ours from @mcp-inflight/http), fetch-ours (bare `fetch` POSTs to our server: the
//              server half; the headers and body our HttpClient sends, recorded from one call it makes),
//              ours-floor (our HttpClient against floor.mjs http: the client half)
//   era:       legacy (2025-11-25) or modern (2026-07-28; ours and SDK v2 only)
//   progress:  one `flood` call of n progress updates (a burst, or `--paced`: one per event-loop turn, see
//              server.mjs), every value asked for; the rate is what the client callback received per
//              second of the whole call (request written to result read)
//   calls:     `echo` calls (a 64-character text each way), `concurrency` in flight at a time, a deadline
//              on each (ours: idle 30 s, ceiling 60 s; the SDK: timeout 30 s), after `warmup` calls;
//              calls per second and each call's latency, and the warm-up's own rate (`coldCallsPerSec`)
// Prints one JSON line.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { budget, finish, listeningUrl, option, percentile, round, startNode } from '../lib/procs.mjs';

const SERVER = fileURLToPath(new URL('./server.mjs', import.meta.url));
const FLOOR = fileURLToPath(new URL('./floor.mjs', import.meta.url));
const ACCEPT = 'application/json, text/event-stream';
const [impl, transport, era, workload] = process.argv.slice(2);
const REVISION = era === 'modern' ? '2026-07-28' : '2025-11-25';
const TEXT = 'x'.repeat(64);
const TICKS_PER_SECOND = 100; // USER_HZ: /proc's unit for utime and stime on Linux

budget(Number(option('budget-ms', 120_000)), `transports/client ${process.argv.slice(2).join(' ')}`);

let server; // the HTTP server process, when there is one
const client = await connect();
const result =
  workload === 'progress'
    ? await progress(Number(option('n', 20_000)), process.argv.includes('--paced'))
    : await calls(Number(option('calls', 2_000)), Number(option('concurrency', 1)));
await client.close();
await server?.stop();
finish({ impl, transport, era, workload, ...result });

/**
 * CPU time both processes spent (ms): this one from `process.cpuUsage`, the server's from /proc (Linux,
 * 10 ms ticks; undefined elsewhere). CPU time, unlike wall time, hardly moves with other load on the
 * machine, so it compares implementations even on a busy one.
 */
function cpuNow() {
  const own = process.cpuUsage();
  let serverMs;
  try {
    const fields = readFileSync(`/proc/${client.serverPid}/stat`, 'utf8').split(') ')[1].split(' ');
    serverMs = ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    serverMs = undefined;
  }
  return { clientMs: (own.user + own.system) / 1000, serverMs };
}

function cpuSince(before, count) {
  const after = cpuNow();
  const per = (a, b) => (a === undefined || b === undefined ? undefined : round((a - b) / count, 4));
  return {
    clientCpuMs: per(after.clientMs, before.clientMs),
    serverCpuMs: per(after.serverMs, before.serverMs),
  };
}

/** A uniform face over the three clients: call(name, args, onprogress?) and close(). */
async function connect() {
  let url;
  const floorServer = impl === 'floor' || impl === 'floor-node' || impl === 'ours-floor';
  if (transport === 'http') {
    server = floorServer
      ? startNode(FLOOR, ['http'])
      : startNode(SERVER, [impl === 'fetch-ours' ? 'inflight' : impl, 'http']);
    url = await listeningUrl(server);
  }
  const serverArgs = [...profilingArgs(), SERVER, impl, 'stdio']; // BENCH_CPU_PROF_DIR profiles it too
  if (impl === 'floor' && transport === 'stdio') return floorStdio();
  if (impl === 'floor') return bareFetch(url, { 'content-type': 'application/json', accept: ACCEPT }, {});
  if (impl === 'floor-node')
    return bareFetch(url, { 'content-type': 'application/json', accept: ACCEPT }, {}, await nodePost());
  if (impl === 'fetch-ours') {
    // Our client makes one call and its POST is recorded; the calls measured are bare fetches of it.
    const { HttpClient } = await import('@mcp-inflight/http');
    let recorded;
    const recording = (input, init) => {
      if (typeof init?.body === 'string' && init.body.includes('"tools/call"'))
        recorded ??= { headers: Object.fromEntries(new Headers(init.headers)), body: JSON.parse(init.body) };
      return fetch(input, init);
    };
    const c = new HttpClient({ url, fetch: recording });
    await c.connect({ revision: REVISION });
    await c.callTool('echo', { text: TEXT }, { idleMs: 30_000, ceilingMs: 60_000 });
    const bare = bareFetch(url, recorded.headers, recorded.body);
    return { ...bare, close: () => c.close() };
  }
  if (impl === 'inflight' || impl === 'ours-floor') {
    const { spawnStdio } = await import('@mcp-inflight/stdio');
    const { HttpClient } = await import('@mcp-inflight/http');
    const c =
      transport === 'stdio' && impl === 'inflight'
        ? spawnStdio({ command: process.execPath, args: serverArgs }, { stderr: 'inherit' })
        : new HttpClient({ url });
    await c.connect({ revision: REVISION });
    if (c.revision !== REVISION) throw new Error(`negotiated ${c.revision}, not ${REVISION}`);
    return {
      serverPid: transport === 'stdio' ? c.child.pid : server.child.pid,
      call: (name, args, onprogress) =>
        c.callTool(name, args, { idleMs: 30_000, ceilingMs: 60_000, ...(onprogress ? { onprogress } : {}) }),
      close: () => c.close(),
    };
  }
  if (impl === 'sdk-v1') {
    if (era !== 'legacy') throw new Error('SDK v1 speaks no 2026-07-28');
    // Over HTTP each call's fetch leaves an abort listener on the transport's one signal until the Request
    // is collected; past 1,500 Node warned on every call. That cost stays measured; this quiets the flood.
    (await import('node:events')).setMaxListeners(Number.POSITIVE_INFINITY);
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const c = new Client({ name: 'bench', version: '1.0.0' });
    let serverPid = server?.child.pid;
    if (transport === 'stdio') {
      const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
      const t = new StdioClientTransport({ command: process.execPath, args: serverArgs, stderr: 'inherit' });
      await c.connect(t);
      serverPid = t.pid;
    } else {
      const { StreamableHTTPClientTransport } = await import(
        '@modelcontextprotocol/sdk/client/streamableHttp.js'
      );
      await c.connect(new StreamableHTTPClientTransport(new URL(url)));
    }
    return {
      serverPid,
      call: (name, args, onprogress) =>
        c.callTool({ name, arguments: args }, undefined, {
          timeout: 30_000,
          ...(onprogress ? { onprogress } : {}),
        }),
      close: () => c.close(),
    };
  }
  if (impl === 'sdk-v2') {
    const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
    const c = new Client(
      { name: 'bench', version: '2.0.0' },
      { versionNegotiation: { mode: era === 'modern' ? { pin: REVISION } : 'legacy' } },
    );
    let serverPid = server?.child.pid;
    if (transport === 'stdio') {
      const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
      const t = new StdioClientTransport({ command: process.execPath, args: serverArgs, stderr: 'inherit' });
      await c.connect(t);
      serverPid = t.pid;
    } else {
      await c.connect(new StreamableHTTPClientTransport(new URL(url)));
    }
    const version = c.getNegotiatedProtocolVersion?.();
    if (version !== undefined && version !== REVISION)
      throw new Error(`negotiated ${version}, not ${REVISION}`);
    return {
      serverPid,
      call: (name, args, onprogress) =>
        c.callTool({ name, arguments: args }, { timeout: 30_000, ...(onprogress ? { onprogress } : {}) }),
      close: () => c.close(),
    };
  }
  throw new Error(`unknown impl ${impl}`);
}

/**
 * Calls as bare `fetch` POSTs: `template` is the JSON-RPC request (its id, name and arguments replaced per
 * call), `headers` go on every POST. A JSON answer is read whole; an SSE one (flood) event by event.
 */
function bareFetch(url, headers, template, post = fetch) {
  let id = 0;
  return {
    serverPid: server.child.pid,
    call: async (name, args, onprogress) => {
      // Rest copies, not spreads: on Node 20 a spread copy that gains keys gets a hidden class per call,
      // which would bill the bare client for the template it copies (see core's copyWith).
      const { ...params } = template.params ?? {};
      params.name = name;
      params.arguments = args;
      if (onprogress) {
        const { ...meta } = params._meta ?? {};
        meta.progressToken = 'p';
        params._meta = meta;
      }
      const { ...message } = template;
      message.jsonrpc = '2.0';
      message.id = ++id;
      message.method = 'tools/call';
      message.params = params;
      const body = JSON.stringify(message);
      const response = await post(url, { method: 'POST', headers, body });
      if (!response.ok) throw new Error(`POST answered ${response.status}: ${await response.text()}`);
      if (!response.headers.get('content-type')?.startsWith('text/event-stream'))
        return (await response.json()).result;
      let buffered = '';
      let result;
      const decoder = new TextDecoder();
      for await (const chunk of response.body) {
        buffered += decoder.decode(chunk, { stream: true });
        let end = buffered.indexOf('\n\n');
        let start = 0;
        while (end !== -1) {
          const event = buffered.slice(start, end);
          if (event.startsWith('data: ')) {
            const message = JSON.parse(event.slice(6));
            if (message.method === 'notifications/progress') onprogress?.(message.params);
            else result = message.result;
          }
          start = end + 2;
          end = buffered.indexOf('\n\n', start);
        }
        buffered = buffered.slice(start);
      }
      return result;
    },
    close: async () => {},
  };
}

/**
 * A POST over `node:http` on its global keep-alive agent, answered in the few fields bareFetch reads: the
 * floor of a client that does not go through Node's fetch (as our HttpClient from `@mcp-inflight/http`).
 */
async function nodePost() {
  const { request } = await import('node:http');
  return (url, { headers, body }) =>
    new Promise((resolve, reject) => {
      const req = request(url, {
        method: 'POST',
        headers: { ...headers, 'content-length': Buffer.byteLength(body) },
      });
      req.once('error', reject);
      req.once('response', (res) => {
        const text = async () => {
          let all = '';
          for await (const chunk of res) all += chunk;
          return all;
        };
        resolve({
          ok: res.statusCode >= 200 && res.statusCode < 300,
          status: res.statusCode,
          headers: { get: (name) => res.headers[name] ?? null },
          text,
          json: async () => JSON.parse(await text()),
          body: res,
        });
      });
      req.end(body);
    });
}

/** Newline JSON over a pipe to floor.mjs stdio: requests written as lines, answers matched by id. */
async function floorStdio() {
  const { spawn } = await import('node:child_process');
  const child = spawn(process.execPath, [...profilingArgs(), FLOOR, 'stdio'], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const waiting = new Map();
  let id = 0;
  let buffered = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk) => {
    buffered += chunk;
    let start = 0;
    let end = buffered.indexOf('\n');
    while (end !== -1) {
      const message = JSON.parse(buffered.slice(start, end));
      if (message.method === 'notifications/progress') waiting.get('progress')?.(message.params);
      else {
        waiting.get(message.id)(message.result);
        waiting.delete(message.id);
      }
      start = end + 1;
      end = buffered.indexOf('\n', start);
    }
    buffered = buffered.slice(start);
  });
  const floor = {
    serverPid: child.pid,
    call: (name, args, onprogress) =>
      new Promise((resolve) => {
        const callId = ++id;
        if (onprogress) waiting.set('progress', onprogress);
        waiting.set(callId, resolve);
        child.stdin.write(
          `${JSON.stringify({ jsonrpc: '2.0', id: callId, method: 'tools/call', params: { name, arguments: args, _meta: { progressToken: 'p' } } })}\n`,
        );
      }),
    close: async () => {
      child.stdin.end();
      await new Promise((resolve) => child.once('exit', resolve));
    },
  };
  await floor.call('echo', { text: TEXT }); // the child is up, as a handshake would show
  return floor;
}

/** The CPU-profile flags the benchmark's other children get (BENCH_CPU_PROF_DIR). */
function profilingArgs() {
  const dir = process.env.BENCH_CPU_PROF_DIR;
  return dir ? ['--cpu-prof', '--cpu-prof-dir', dir] : [];
}

async function progress(n, paced) {
  let received = 0;
  let last = 0;
  const cpu = cpuNow();
  const t0 = performance.now();
  await client.call('flood', { n, paced }, (p) => {
    received++;
    last = p.progress;
  });
  const ms = performance.now() - t0;
  const used = cpuSince(cpu, n / 1000);
  return {
    n,
    paced,
    clientCpuMsPer1000: used.clientCpuMs,
    serverCpuMsPer1000: used.serverCpuMs,
    received,
    lastValue: last,
    ms: round(ms, 1),
    ratePerSec: Math.round((received / ms) * 1000),
  };
}

async function calls(total, concurrency) {
  const one = async () => {
    const t = performance.now();
    const r = await client.call('echo', { text: TEXT });
    if (r.content?.[0]?.text !== TEXT) throw new Error(`echo answered ${JSON.stringify(r).slice(0, 200)}`);
    return performance.now() - t;
  };
  const run = async (count) => {
    const latencies = [];
    let next = 0;
    const worker = async () => {
      while (next < count) {
        next++;
        latencies.push(await one());
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
    return latencies;
  };
  // The first calls run while the JIT still compiles both sides (the floor too runs them at a fraction of
  // its later speed): they are timed apart, as `coldCallsPerSec`, and the measured calls come after them.
  const warmup = Number(option('warmup', 200));
  const c0 = performance.now();
  await run(warmup);
  const coldMs = performance.now() - c0;
  const cpu = cpuNow();
  const t0 = performance.now();
  const latencies = await run(total);
  const ms = performance.now() - t0;
  const used = cpuSince(cpu, total);
  latencies.sort((a, b) => a - b);
  return {
    calls: total,
    concurrency,
    warmup,
    coldCallsPerSec: Math.round((warmup / coldMs) * 1000),
    ms: round(ms, 1),
    callsPerSec: Math.round((total / ms) * 1000),
    p50Ms: round(percentile(latencies, 50), 3),
    p99Ms: round(percentile(latencies, 99), 3),
    maxMs: round(latencies.at(-1), 3),
    clientCpuMsPerCall: used.clientCpuMs,
    serverCpuMsPerCall: used.serverCpuMs,
  };
}
