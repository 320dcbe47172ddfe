// The example Worker: MCP over Streamable HTTP at /mcp, on @mcp-inflight/http's Fetch handler, with the tools
// `work` and `status`. See README.md.
// The root entry: its workerd/worker/browser export conditions give a Worker's bundler the Fetch build.
import { createHttpHandler, type HttpHandler } from '@mcp-inflight/http';
import { createServer } from '@mcp-inflight/server';
import { type WorkCounters, workerTools } from './tools.js';

/** The Worker's bindings (wrangler.toml `[vars]`, or `bindings` in config.capnp); every one is optional. */
export interface Env {
  /** No handler runs longer than this, in ms (`CEILING`). @default 2000 */
  HANDLER_CEILING_MS?: string;
  /** A handler with no progress for this long is cancelled, in ms (`IDLE_TIMEOUT`). @default 60000 */
  HANDLER_IDLE_MS?: string;
  /**
   * An SSE comment after this long with nothing written, in ms; also how soon a cancel of a quiet call
   * reaches its handler (README.md, "Cancellation on Workers"). @default 250
   */
  KEEP_ALIVE_MS?: string;
  /** Browser origins allowed to call, comma-separated, or `*`. @default loopback origins */
  ALLOWED_ORIGINS?: string;
  /** Host names the `Host` header may name, comma-separated, or `*`. @default `*` (see README.md) */
  ALLOWED_HOSTS?: string;
}

/** The part of a Worker's `ExecutionContext` this Worker uses. */
export interface ExecutionContext {
  waitUntil(promise: Promise<unknown>): void;
}

const counters: WorkCounters = { running: 0, completed: 0, cancelled: 0, stopped: 0 };
const server = createServer({
  name: 'mcp-inflight-example-worker',
  version: '0.1.0',
  tools: workerTools(counters),
});

/**
 * One handler per isolate, made at its first request (bindings arrive with requests), so that legacy
 * sessions, admission and the handler's timers are shared by the isolate's requests.
 */
let handler: HttpHandler | undefined;

function handlerFor(env: Env): HttpHandler {
  handler ??= createHttpHandler((endpoint) => void server.serve(endpoint), {
    handlerCeilingMs: milliseconds(env.HANDLER_CEILING_MS, 2_000),
    handlerIdleMs: milliseconds(env.HANDLER_IDLE_MS, 60_000),
    // workerd sees a client's close only when it next writes to that response (measured on workerd
    // 1.20261123, README.md): a quiet call opens its SSE stream and writes a keep-alive comment every
    // keepAliveMs, so a 2026-07-28 cancel reaches the handler within this long even before any progress.
    keepAliveMs: milliseconds(env.KEEP_ALIVE_MS, 250),
    allowedOrigins: list(env.ALLOWED_ORIGINS),
    // A Worker answers on its own route's host names, so the DNS-rebinding check that protects a server on
    // a private address has nothing to protect by default; name the hosts to have it anyway.
    allowedHosts: list(env.ALLOWED_HOSTS) ?? '*',
  });
  return handler;
}

export default {
  async fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    const { pathname } = new URL(request.url);
    if (pathname !== '/mcp') return new Response('MCP is served at /mcp\n', { status: 404 });
    // A client that goes away (the 2026-07-28 cancel) shows as the response body cancelled or a write to
    // it failing; request.signal, the handler's default disconnect signal, adds nothing on workerd.
    // workerd ends a request's timers and promises with its response; waitUntil keeps a call's work alive
    // until its stream ends, so a legacy call runs on when its client drops, and its result can be resumed.
    return handlerFor(env).handle(request, { waitUntil: (work) => ctx.waitUntil(work) });
  },
};

function milliseconds(text: string | undefined, fallback: number): number {
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!(value > 0))
    throw new Error(`expected a positive number of milliseconds, got ${JSON.stringify(text)}`);
  return value;
}

function list(text: string | undefined): string[] | '*' | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  if (text.trim() === '*') return '*';
  return text.split(',').map((item) => item.trim());
}
