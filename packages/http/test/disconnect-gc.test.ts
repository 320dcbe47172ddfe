// A 2026-07-28 disconnect is the cancel [CN24], whether or not garbage collection ran in between: 1,000
// concurrent calls on real sockets, a forced GC, then every client goes away. Each handler must see the
// abort within DISCONNECT_BOUND_MS of the server seeing its socket close (rule 8: nothing runs on for a
// client that is gone). Latency is measured from the server's own `close` event, so the bound is the
// adapter's, not the kernel's or the test client's.
import { connect, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { setImmediate as tick } from 'node:timers/promises';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { type RunningHttpServer, serveHttp } from '../src/index.js';
import { forceGc, quantile } from './fixtures/gc.js';
import { modernRequest } from './fixtures/raw-http.js';

const CALLS = 1_000;
// Measured 1-30 ms on a quiet machine, 166 ms with two busy loops beside other suites. What it must tell
// apart is a handler aborted by the close from one left to run until some limit of its own (60 s by
// default), so the bound is one load cannot reach; the printed p50 and max show the real latency.
const DISCONNECT_BOUND_MS = 5_000;

const startedAt = new Map<number, number>();
const closedAt = new Map<number, number>();
const abortedAt = new Map<number, number>();
const droppedAt = new Map<number, number>();
let server: RunningHttpServer;

beforeAll(async () => {
  server = await serveHttp(
    (endpoint) => {
      endpoint.setRequestHandler('tools/call', (params, ctx) => {
        const probe = Number((params?.arguments as { probe?: number } | undefined)?.probe);
        startedAt.set(probe, performance.now());
        // Half the calls open their SSE stream with a first progress; the others have sent nothing yet.
        if (probe % 2 === 0) ctx.progress(1, 2);
        return new Promise((_, reject) => {
          ctx.signal.addEventListener('abort', () => {
            abortedAt.set(probe, performance.now());
            reject(ctx.signal.reason);
          });
        });
      });
    },
    { port: 0 },
  );
  server.server.prependListener('request', (req) => {
    const probe = Number(req.headers['x-probe']);
    // The first sign of the client going away, before any listener of the adapter's runs.
    const seen = (): void => {
      if (!closedAt.has(probe)) closedAt.set(probe, performance.now());
    };
    req.socket.prependOnceListener('end', seen);
    req.socket.prependOnceListener('close', seen);
  });
});
afterAll(() => server.close());

function call(port: number, probe: number): Promise<Socket> {
  const body = JSON.stringify(
    modernRequest(
      probe,
      'tools/call',
      { name: 'hold', arguments: { probe } },
      probe % 2 === 0 ? { progressToken: probe } : {},
    ),
  );
  const head = [
    'POST /mcp HTTP/1.1',
    `Host: 127.0.0.1:${port}`,
    'Content-Type: application/json',
    'Accept: application/json, text/event-stream',
    'MCP-Protocol-Version: 2026-07-28',
    'Mcp-Method: tools/call',
    'Mcp-Name: hold',
    `X-Probe: ${probe}`,
    `Content-Length: ${Buffer.byteLength(body)}`,
  ].join('\r\n');
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(`${head}\r\n\r\n${body}`);
      resolve(socket);
    });
    socket.on('error', reject);
    socket.resume(); // read (and discard) whatever comes back
  });
}

it(`aborts all ${CALLS} dropped 2026-07-28 handlers within ${DISCONNECT_BOUND_MS} ms of their close, after GC`, async () => {
  const port = Number(new URL(server.url).port);
  const sockets: Socket[] = [];
  for (let batch = 0; batch < CALLS; batch += 100) {
    sockets.push(...(await Promise.all(Array.from({ length: 100 }, (_, i) => call(port, batch + i)))));
  }
  await vi.waitFor(() => expect(startedAt.size).toBe(CALLS), { timeout: 20_000, interval: 20 });
  await tick();
  forceGc();
  await tick();
  forceGc();
  sockets.forEach((socket, probe) => {
    droppedAt.set(probe, performance.now());
    socket.destroy();
  });
  await vi
    .waitFor(() => expect(abortedAt.size).toBe(CALLS), { timeout: 20_000, interval: 20 })
    .catch(() => {
      throw new Error(
        `only ${abortedAt.size} of ${CALLS} handlers were aborted after their client went away`,
      );
    });
  const latencies = [...abortedAt].map(([probe, at]) => at - closedAt.get(probe)!);
  const fromDrop = [...abortedAt].map(([probe, at]) => at - droppedAt.get(probe)!);
  const p50 = quantile(latencies, 0.5);
  const max = Math.max(...latencies);
  console.log(
    `disconnect after GC: ${abortedAt.size}/${CALLS} aborted; from the server seeing the close: p50 ` +
      `${p50.toFixed(2)} ms, max ${max.toFixed(2)} ms; from the client's destroy(): p50 ` +
      `${quantile(fromDrop, 0.5).toFixed(2)} ms, max ${Math.max(...fromDrop).toFixed(2)} ms`,
  );
  expect(max).toBeLessThan(DISCONNECT_BOUND_MS);
  await vi.waitFor(() => expect(server.handler.stats.statelessInFlight).toBe(0));
});
