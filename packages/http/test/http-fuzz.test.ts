// Fuzz (rule 10): 10,000 mutated bodies and headers, both eras, into a real server on 127.0.0.1. Every
// answer is a valid JSON-RPC success or error (or an SSE stream of them, or an empty 202/204) whose code
// is the one its status allows; the endpoint keeps serving; afterwards nothing is left in its tables.
// The seed is printed on failure; HTTP_FUZZ_SEED=<seed> replays the same cases.
import { serveLifecycle } from '@mcp-inflight/core';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { HTTP_ERROR_CODES, type RunningHttpServer, serveHttp } from '../src/index.js';
import { type FuzzCase, fuzzCase, rng, type SessionRef } from './fixtures/fuzz-cases.js';
import { modernHeaders, modernRequest, RawHttp } from './fixtures/raw-http.js';

const CASES = Number(process.env.HTTP_FUZZ_CASES ?? 10_000);
const CONCURRENCY = 16;
const SEED = Number(process.env.HTTP_FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const LEGACY = ['2025-03-26', '2025-06-18', '2025-11-25'];

const C = HTTP_ERROR_CODES;
/** The codes each refusal status may carry. */
const CODES_BY_STATUS: Readonly<Record<number, readonly number[]>> = {
  400: [
    C.ParseError,
    C.InvalidRequest,
    C.InvalidParams,
    C.HeaderMismatch,
    C.UnsupportedProtocolVersion,
    C.SessionRequired,
    C.NothingToResume,
  ],
  403: [C.Forbidden],
  404: [C.MethodNotFound, C.SessionNotFound],
  405: [C.MethodNotAllowed],
  406: [C.NotAcceptable],
  409: [C.StreamConflict],
  413: [C.PayloadTooLarge],
  415: [C.UnsupportedMediaType],
  503: [C.Overloaded],
};
/** Codes a JSON-RPC error inside a 200 may carry: the spec's, and core's causes. */
const IN_BAND_CODES = new Set([
  -32700, -32600, -32601, -32602, -32603, -32020, -32021, -32022, -32000, -32001, -32800,
]);

let server: RunningHttpServer;
const seenSessions = new Set<string>();

beforeAll(async () => {
  server = await serveHttp(
    (endpoint) => {
      serveLifecycle(endpoint, { serverInfo: { name: 'fuzz', version: '1' }, capabilities: { tools: {} } });
      endpoint.setRequestHandler('tools/list', () => ({
        tools: [{ name: 'work', inputSchema: { type: 'object' } }],
      }));
      endpoint.setRequestHandler('tools/call', async (params, ctx) => {
        const args = (params?.arguments ?? {}) as { steps?: unknown; intervalMs?: unknown };
        const steps = typeof args.steps === 'number' ? Math.min(3, Math.max(0, args.steps)) : 1;
        const intervalMs =
          typeof args.intervalMs === 'number' ? Math.min(5, Math.max(0, args.intervalMs)) : 1;
        for (let i = 1; i <= steps; i++) {
          await new Promise((resolve) => setTimeout(resolve, intervalMs));
          ctx.signal.throwIfAborted();
          ctx.progress(i, steps);
        }
        return { content: [{ type: 'text', text: 'done' }] };
      });
    },
    { port: 0, maxBodyBytes: 16 * 1024, resumeWindowMs: 100, maxSessions: 100_000 },
  );
});
afterAll(() => server.close());

function isMessage(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const m = value as Record<string, unknown>;
  if (m.jsonrpc !== '2.0') return false;
  if (typeof m.method === 'string') return true; // a notification on an SSE stream (progress)
  const idOk = m.id === null || typeof m.id === 'string' || typeof m.id === 'number';
  const hasResult = 'result' in m;
  const hasError = 'error' in m;
  if (!idOk || hasResult === hasError) return false;
  if (hasError) {
    const error = m.error as { code?: unknown; message?: unknown };
    const code = error.code as number;
    return (
      Number.isInteger(code) &&
      typeof error.message === 'string' &&
      (IN_BAND_CODES.has(code) || (Object.values(C) as number[]).includes(code))
    );
  }
  return true;
}

/** What is wrong with an answer, or undefined. */
async function check(response: Response, method: string): Promise<string | undefined> {
  const { status } = response;
  const type = response.headers.get('content-type') ?? '';
  if (method === 'GET' && status === 200 && type.startsWith('text/event-stream')) {
    // The session's GET stream stays open for messages to come: that it opened is the answer.
    await response.body?.cancel();
    return undefined;
  }
  const text = await response.text();
  if (status === 202 || status === 204) return text === '' ? undefined : `${status} with a body`;
  if (status === 200 && text === '' && method === 'DELETE') return undefined; // the session ended
  if (type.startsWith('text/event-stream')) {
    if (status !== 200) return `SSE with ${status}`;
    for (const event of text.split('\n\n')) {
      const data = event
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trimStart())
        .join('\n');
      if (data === '') continue;
      let parsed: unknown;
      try {
        parsed = JSON.parse(data);
      } catch {
        return `SSE data is not JSON: ${data.slice(0, 80)}`;
      }
      const messages = Array.isArray(parsed) ? parsed : [parsed];
      if (!messages.every(isMessage)) return `SSE carries a non-JSON-RPC message: ${data.slice(0, 120)}`;
    }
    return undefined;
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return `${status} ${type} body is not JSON: ${text.slice(0, 80)}`;
  }
  if (status === 200) {
    const messages = Array.isArray(body) ? body : [body];
    return messages.length > 0 && messages.every(isMessage) ? undefined : `200 with ${text.slice(0, 120)}`;
  }
  const allowed = CODES_BY_STATUS[status];
  if (!allowed) return `unexpected status ${status}: ${text.slice(0, 120)}`;
  if (!isMessage(body)) return `${status} body is not a JSON-RPC error: ${text.slice(0, 120)}`;
  const code = (body as { error?: { code?: number } }).error?.code;
  return allowed.includes(code!)
    ? undefined
    : `${status} carries code ${code}, expected one of ${allowed.join(', ')}`;
}

async function send(url: string, c: FuzzCase): Promise<string | undefined> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: c.method,
      headers: c.headers,
      body: c.body,
      signal: AbortSignal.timeout(60_000), // a hung answer, not a slow one: load cannot reach a minute
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause;
    // The client library refusing a header value is not the server's doing.
    if (error instanceof TypeError && cause?.code !== 'ECONNRESET' && !String(error).includes('fetch failed'))
      return undefined;
    return `no answer: ${String(error)} ${cause?.code ?? ''}`;
  }
  const sessionId = response.headers.get('mcp-session-id');
  if (sessionId) seenSessions.add(sessionId);
  return check(response, c.method);
}

it(`${CASES} mutated requests, both eras: valid answers with the right codes, still serving, nothing left behind`, async () => {
  const raw = new RawHttp(server.url);
  const sessions: SessionRef[] = [];
  for (const revision of LEGACY) {
    for (let i = 0; i < 2; i++) {
      const id = await raw.initialize(revision);
      seenSessions.add(id);
      sessions.push({ id, revision });
    }
  }
  const random = rng(SEED);
  const failures: string[] = [];
  let next = 0;
  let renewed = 0;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < CASES) {
        // Cases are made in order as workers take them, so a seed always yields the same sequence.
        const index = next++;
        const c = fuzzCase(random, sessions, index + 1);
        const wrong = await send(server.url, c);
        // A mutation that ended one of the shared sessions: replace it, so legacy cases keep a live one.
        const ended =
          c.method === 'DELETE' ? sessions.findIndex((s) => s.id === c.headers['mcp-session-id']) : -1;
        if (ended >= 0 && !wrong) {
          const revision = sessions[ended]!.revision;
          const id = await raw.initialize(revision);
          seenSessions.add(id);
          sessions[ended] = { id, revision };
          renewed++;
        }
        if (wrong)
          failures.push(
            `case ${index} (${c.base}, ${c.method} ${JSON.stringify(c.headers)} ${c.body?.slice(0, 200)}): ${wrong}`,
          );
      }
    }),
  );
  const elapsedMs = Date.now() - started;
  console.log(
    `http fuzz: ${CASES} cases in ${elapsedMs} ms, seed ${SEED}, ${failures.length} failures, ${renewed} sessions renewed`,
  );
  expect(failures.slice(0, 5), `seed ${SEED} (replay: HTTP_FUZZ_SEED=${SEED})`).toEqual([]);

  // Still serving, both eras.
  const modern = await raw.post(modernRequest(1, 'tools/list'), modernHeaders('tools/list'));
  expect(modern.status, `seed ${SEED}`).toBe(200);
  await modern.text();
  const session = await raw.initialize('2025-06-18');
  seenSessions.add(session);

  // Nothing left behind once the sessions it opened are ended.
  for (const id of seenSessions) {
    await (await fetch(server.url, { method: 'DELETE', headers: { 'mcp-session-id': id } })).text();
  }
  await vi.waitFor(
    () =>
      expect(server.handler.stats, `seed ${SEED}`).toMatchObject({
        sessions: 0,
        statelessInFlight: 0,
        openStreams: 0,
        bufferedBytes: 0,
        replayBytes: 0,
      }),
    { timeout: 20_000, interval: 50 },
  );
}, 600_000); // 10,000 round trips take 10-30 s on two busy cores, 120 s seen beside other suites
