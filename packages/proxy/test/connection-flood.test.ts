// Connection limits before any auth, on a real proxy process: 5,000 silent sockets from one address
// (127.0.0.2) take at most --max-idle-connections-per-address of its connections, so a host on another address
// (127.0.0.1) is served meanwhile; the silent ones are closed with 408 after the first-byte timeout.
// The admin listener has a small cap of its own.
import { globalAgent } from 'node:http';
import { connect, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { HttpClient } from '@mcp-inflight/http';
import { afterAll, expect, it } from 'vitest';
import { commandLine, type RunningProxy, SERVER, startProxy } from './procs.js';

const FLOOD = 5_000;
const running: RunningProxy[] = [];
const sockets: Socket[] = [];
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await Promise.all(running.map((p) => p.kill()));
});

interface Silent {
  socket: Socket;
  /** What the server wrote before it closed the connection. */
  closed: Promise<string>;
}

/** A connection from `localAddress` that never sends a byte; resolves once it is connected. */
function silentFrom(port: number, localAddress: string): Promise<Silent> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1', localAddress });
    sockets.push(socket);
    socket.setEncoding('utf8');
    let reply = '';
    socket.on('data', (text: string) => {
      reply += text;
    });
    const closed = new Promise<string>((done) => socket.once('close', () => done(reply)));
    socket.once('connect', () => resolve({ socket, closed }));
    socket.once('error', (error) => (socket.connecting ? reject(error) : undefined));
  });
}

/** `count` silent connections, opened a few hundred at a time so the listen backlog never overflows. */
async function flood(port: number, localAddress: string, count: number): Promise<Silent[]> {
  const all: Silent[] = [];
  for (let i = 0; i < count; i += 250) {
    const batch = Array.from({ length: Math.min(250, count - i) }, () => silentFrom(port, localAddress));
    all.push(...(await Promise.all(batch)));
  }
  return all;
}

/** One call from a new client on a new connection (the agent's kept-alive ones are closed first). */
async function timedCall(url: string): Promise<{ ms: number; text: unknown }> {
  globalAgent.destroy();
  const started = performance.now();
  const host = new HttpClient({ url });
  try {
    const result = await host.callTool('work', { steps: 1, intervalMs: 1 });
    return { ms: performance.now() - started, text: result.content };
  } finally {
    await host.close();
  }
}

it('5,000 silent sockets from one address leave another address served; they are closed with 408', async () => {
  const proxy = await startProxy(['--upstream-stdio', commandLine(process.execPath, SERVER)]);
  running.push(proxy);
  const port = Number(new URL(proxy.url).port);
  await timedCall(proxy.url); // warm up: the upstream's start is not what is measured
  const alone = await timedCall(proxy.url);
  const silent = await flood(port, '127.0.0.2', FLOOD);
  // Accepts are taken in order: by the time this host's connection is accepted, every silent one was.
  const beside = await timedCall(proxy.url);
  expect(beside.text).toEqual([{ type: 'text', text: 'done 1 steps' }]);
  if (process.env.FLOOD_FIGURES)
    console.log(
      `call alone ${alone.ms.toFixed(0)} ms, beside ${FLOOD} silent sockets ${beside.ms.toFixed(0)} ms`,
    );
  const replies = await Promise.all(silent.map((s) => s.closed));
  const refused = replies.filter((r) =>
    r.includes('too many idle connections from one address (--max-idle-connections-per-address 256)'),
  );
  const timedOut = replies.filter((r) => r.startsWith('HTTP/1.1 408 '));
  // Each was refused at once or closed when silent too long (freeing its slot for a later one).
  expect(refused.length + timedOut.length).toBe(FLOOD);
  expect(timedOut.length).toBeGreaterThanOrEqual(256);
  expect(refused.length).toBeGreaterThan(0);
});

it('the admin listener caps its own connections and closes silent ones', async () => {
  const proxy = await startProxy(
    ['--upstream-stdio', commandLine(process.execPath, SERVER), '--admin-port', '0'],
    'admin-listening',
  );
  running.push(proxy);
  const admin = new URL(String(proxy.events.find((e) => e.type === 'admin-listening')?.url));
  const silent = await flood(Number(admin.port), '127.0.0.1', 100);
  const replies = await Promise.all(silent.map((s) => s.closed));
  expect(replies.filter((r) => r.startsWith('HTTP/1.1 503 ')).length).toBe(100 - 64);
  expect(replies.filter((r) => r.startsWith('HTTP/1.1 408 ')).length).toBe(64);
  const health = await fetch(new URL('/healthz', admin));
  expect(health.status).toBe(200);
});
