// Operating the proxy, with real processes on loopback: an upstream that needs a bearer token reached
// with --header; inbound --auth-token-file; CORS preflights; /healthz and /readyz; /metrics counted
// exactly over a call that completes, one cancelled, one at its idle limit and one at its ceiling.
// One token-guarded upstream for the file.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HttpClient } from '@mcp-inflight/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningProxy, startHttpServer, startProxy } from './procs.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/upstream.mjs', import.meta.url));
let upstream: Awaited<ReturnType<typeof startHttpServer>>;
const running: RunningProxy[] = [];
const dir = mkdtempSync(join(tmpdir(), 'proxy-operate-'));
const tokenFile = join(dir, 'tokens');
writeFileSync(tokenFile, 'host-a\nhost-b\n');

beforeAll(async () => {
  upstream = await startHttpServer(FIXTURE, ['--tokens', 'up-1']);
});
afterAll(async () => {
  await Promise.all(running.map((p) => p.kill()));
  await upstream?.stop();
});

async function proxy(args: string[]): Promise<RunningProxy> {
  const p = await startProxy([
    '--upstream-http',
    upstream.url,
    '--header',
    'Authorization: Bearer up-1',
    ...args,
  ]);
  running.push(p);
  return p;
}

const adminUrl = (p: RunningProxy) => String(p.events.find((e) => e.type === 'admin-listening')?.url);
const post = (url: string, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });

describe('upstream and inbound auth', () => {
  it('reaches a token-guarded upstream with --header; hosts need a token of --auth-token-file; preflights need none', async () => {
    const p = await proxy(['--auth-token-file', tokenFile, '--allowed-origins', 'https://app.example']);
    const origin = new URL(p.url).origin;
    const host = new HttpClient({ url: p.url, headers: { authorization: 'Bearer host-b' } });
    const result = await host.callTool('work', { steps: 1, intervalMs: 5 });
    expect(result.content).toEqual([{ type: 'text', text: 'done 1' }]);
    await host.close();

    for (const headers of [{}, { authorization: 'Bearer wrong' }, { authorization: 'host-a' }]) {
      const refused = await post(p.url, headers);
      expect(refused.status).toBe(401);
      expect(await refused.json()).toMatchObject({
        jsonrpc: '2.0',
        error: { code: -32004, data: { httpStatus: 401 } },
      });
    }
    const preflight = (from: string) =>
      fetch(p.url, {
        method: 'OPTIONS',
        headers: { origin: from, 'access-control-request-method': 'POST' },
      });
    const allowed = await preflight('https://app.example');
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect((await preflight('https://evil.example')).status).toBe(403);
    expect((await fetch(`${origin}/healthz`)).status).toBe(200);
  });
});

describe('--pass-header', () => {
  it("each host's Authorization goes with its own upstream calls (two hosts, two tokens)", async () => {
    // The upstream takes up-1 and up-2; the proxy's own handshake uses --header, hosts pass their own.
    const guarded = await startHttpServer(FIXTURE, ['--tokens', 'up-1,up-2', '--log-auth']);
    try {
      const p = await startProxy([
        '--upstream-http',
        guarded.url,
        '--header',
        'Authorization: Bearer up-1',
        '--pass-header',
        'Authorization',
      ]);
      running.push(p);
      const a = new HttpClient({ url: p.url, headers: { authorization: 'Bearer up-1' } });
      const b = new HttpClient({ url: p.url, headers: { authorization: 'Bearer up-2' } });
      const c = new HttpClient({ url: p.url, headers: { authorization: 'Bearer nobody' } });
      await Promise.all([
        a.callTool('work', { steps: 1, intervalMs: 5, tag: 'a' }),
        b.callTool('work', { steps: 1, intervalMs: 5, tag: 'b' }),
      ]);
      await expect(c.callTool('work', { steps: 1, intervalMs: 5, tag: 'c' })).rejects.toBeDefined();
      const inspector = new HttpClient({ url: guarded.url, headers: { authorization: 'Bearer up-1' } });
      const seen = JSON.parse(String((await inspector.callTool('seen', {})).content[0]?.text)) as Array<{
        tag: string;
        auth: string;
      }>;
      expect(seen.find((r) => r.tag === 'a')?.auth).toBe('Bearer up-1');
      expect(seen.find((r) => r.tag === 'b')?.auth).toBe('Bearer up-2');
      expect(seen.some((r) => r.tag === 'c')).toBe(false);
      await Promise.all([a.close(), b.close(), c.close(), inspector.close()]);
    } finally {
      await guarded.stop();
    }
  });
});

it('--pass-header is refused at start in front of a legacy HTTP upstream, whose one session serves every host', async () => {
  const p = startProxy([
    '--upstream-http',
    upstream.url,
    '--header',
    'Authorization: Bearer up-1',
    '--upstream-revision',
    '2025-11-25',
    '--pass-header',
    'Authorization',
  ]);
  await expect(p).rejects.toThrow(
    /proxy exited early \(2\): proxy: --pass-header needs a 2026-07-28 HTTP upstream/,
  );
});

describe('health and metrics', () => {
  it('/healthz, /readyz and /metrics count each call once, by outcome and cause', async () => {
    const p = await proxy([
      '--admin-port',
      '0',
      '--idle-timeout',
      '1000',
      '--max-timeout',
      '2500',
      '--progress-interval',
      '0',
    ]);
    const admin = adminUrl(p);
    expect((await fetch(`${admin}healthz`)).status).toBe(200);
    expect(await (await fetch(`${admin}readyz`)).json()).toEqual({ status: 'ready' });
    const metric = async (line: string): Promise<number> => {
      const text = await (await fetch(`${admin}metrics`)).text();
      const found = text.split('\n').find((l) => l.startsWith(`${line} `));
      return found === undefined ? 0 : Number(found.slice(line.length + 1));
    };
    const ended = (outcome: string, cause: string) =>
      metric(`mcp_proxy_calls_ended_total{outcome="${outcome}",cause="${cause}"}`);
    expect(await ended('completed', 'none')).toBe(0);

    const host = new HttpClient({ url: p.url });
    // One call that completes, alone: each relayed update counts once.
    let seenByHost = 0;
    await host.callTool('work', { steps: 3, intervalMs: 80 }, { onprogress: () => void seenByHost++ });
    expect(seenByHost).toBe(3);
    expect(await metric('mcp_proxy_progress_total{fate="received"}')).toBe(3);
    expect(await metric('mcp_proxy_progress_total{fate="relayed"}')).toBe(3);
    expect(await ended('completed', 'none')).toBe(1);

    const stop = new AbortController();
    let cancelledSteps = 0;
    const calls = await Promise.allSettled([
      host.callTool(
        'work',
        { steps: 100, intervalMs: 50, tag: 'stop' },
        {
          signal: stop.signal,
          onprogress: () => {
            if (++cancelledSteps === 2) stop.abort('user stop');
          },
        },
      ),
      host.callTool('work', { steps: 1, intervalMs: 5_000 }),
      host.callTool('work', { steps: 100, intervalMs: 100 }),
    ]);
    expect(calls.map((c) => c.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect((calls[1] as PromiseRejectedResult).reason).toMatchObject({ code: 'IDLE_TIMEOUT' });
    expect((calls[2] as PromiseRejectedResult).reason).toMatchObject({ code: 'CEILING' });
    await host.close();

    expect(await ended('completed', 'none')).toBe(1);
    // 2026-07-28 HTTP host: its cancel is closing the stream, which ends the call as DISCONNECTED [CN24].
    expect(await ended('cancelled', 'DISCONNECTED')).toBe(1);
    expect(await ended('cancelled', 'IDLE_TIMEOUT')).toBe(1);
    expect(await ended('cancelled', 'CEILING')).toBe(1);
    expect(await metric('mcp_proxy_deadlines_fired_total{kind="idle"}')).toBe(1);
    expect(await metric('mcp_proxy_deadlines_fired_total{kind="ceiling"}')).toBe(1);
    expect(await metric('mcp_proxy_cancels_received_total{how="stream-close"}')).toBe(1);
    expect(await metric('mcp_proxy_cancels_sent_total{how="close-stream"}')).toBe(3);
    expect(await metric('mcp_proxy_calls_in_flight{transport="http",revision="2026-07-28"}')).toBe(0);
    expect(await metric('mcp_proxy_upstream_ready')).toBe(1);
  });
});
