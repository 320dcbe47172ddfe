// Fair shares between the proxy's clients [rule 14], on real processes and sockets: one client's long calls
// cannot take the upstream from another (--max-in-flight, --max-host-in-flight, clients taken in turn; a
// client is a token, else an address and clientInfo name), its handshakes, pings and task polls never wait
// behind work, one client cannot open every legacy session (--max-client-sessions), a token's sessions
// and requestState are its own, the connection cap names its flag (--max-connections), and the proxy's own
// stats answer outside every host's share.
import { writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HttpClient } from '@mcp-inflight/http';
import { afterEach, describe, expect, it } from 'vitest';
import { commandLine, type RunningProxy, startProxy } from './procs.js';

const UPSTREAM = new URL('./fixtures/upstream.mjs', import.meta.url).pathname;

let proxy: RunningProxy | undefined;
const clients: HttpClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close().catch(() => undefined)));
  await proxy?.kill();
  proxy = undefined;
});

const adminUrl = (p: RunningProxy) => String(p.events.find((e) => e.type === 'admin-listening')?.url);
interface AdmissionFigures {
  inFlight: number;
  queuedRequests: number;
}
const admission = async (p: RunningProxy): Promise<AdmissionFigures> =>
  ((await (await fetch(`${adminUrl(p)}stats`)).json()) as { admission: AdmissionFigures }).admission;

async function host(url: string, name = 'host', token?: string): Promise<HttpClient> {
  const client = new HttpClient({
    url,
    revision: '2025-11-25',
    listen: false,
    idleMs: 60_000,
    clientInfo: { name, version: '1' },
    ...(token ? { headers: { authorization: `Bearer ${token}` } } : {}),
  });
  clients.push(client);
  await client.connect();
  return client;
}
/** A 2026-07-28 host (no session: every request names its client in `_meta`). */
async function modernHost(url: string, name: string): Promise<HttpClient> {
  const client = new HttpClient({
    url,
    revision: '2026-07-28',
    listen: false,
    idleMs: 60_000,
    clientInfo: { name, version: '1' },
  });
  clients.push(client);
  await client.connect();
  return client;
}
const long = (tag: string) => ({ name: 'work', arguments: { steps: 400, intervalMs: 50, tag } });
const short = { name: 'work', arguments: { steps: 1, intervalMs: 1 } };

async function start(extra: string[]): Promise<RunningProxy> {
  const p = await startProxy([
    '--upstream-stdio',
    commandLine(process.execPath, UPSTREAM),
    '--admin-port',
    '0',
    '--max-in-flight',
    '4',
    ...extra,
  ]);
  proxy = p;
  return p;
}

describe('fair shares', () => {
  it("a host at --max-host-in-flight waits; another host's call runs at once beside its long calls", async () => {
    const p = await start(['--max-host-in-flight', '2']);
    const busy = await host(p.url, 'busy');
    const quiet = await host(p.url, 'quiet');
    const held = ['a', 'b', 'c', 'd', 'e'].map((tag) =>
      busy.request('tools/call', long(tag)).catch((error: unknown) => error),
    );
    await expect
      .poll(() => admission(p), { timeout: 20_000 })
      .toMatchObject({ inFlight: 2, queuedRequests: 3 });
    // Two slots are free for others: the quiet host's call runs and ends while the busy one's still wait.
    await expect(quiet.request('tools/call', short)).resolves.toMatchObject({ content: [{ type: 'text' }] });
    expect(await admission(p)).toMatchObject({ inFlight: 2, queuedRequests: 3 });
    await busy.close();
    await Promise.all(held);
  }, 60_000);

  it('without a share cap (--max-host-in-flight = --max-in-flight), one host takes every slot', async () => {
    const p = await start(['--max-host-in-flight', '4']);
    const busy = await host(p.url, 'busy');
    const quiet = await host(p.url, 'quiet');
    const held = ['a', 'b', 'c', 'd', 'e'].map((tag) =>
      busy.request('tools/call', long(tag)).catch((error: unknown) => error),
    );
    await expect
      .poll(() => admission(p), { timeout: 20_000 })
      .toMatchObject({ inFlight: 4, queuedRequests: 1 });
    let answered = false;
    const call = quiet.request('tools/call', short).then(() => {
      answered = true;
    });
    // The quiet host's call waits behind the busy host's long ones: the starvation the cap prevents.
    await expect.poll(() => admission(p), { timeout: 20_000 }).toMatchObject({ queuedRequests: 2 });
    expect(answered).toBe(false);
    // Once one slot frees, round robin gives it to the quiet host before the busy host's waiting call.
    await busy.close(); // its calls end; a legacy session's close is not a cancel of the quiet host's
    await call;
    expect(answered).toBe(true);
    await Promise.all(held);
  }, 60_000);

  it('without auth, 2026-07-28 hosts on one address differing only in clientInfo name are apart', async () => {
    const p = await start(['--max-host-in-flight', '2']);
    const flood = await modernHost(p.url, 'flood');
    const quiet = await modernHost(p.url, 'quiet');
    let ended = 0;
    const held = ['a', 'b', 'c', 'd', 'e'].map((tag) =>
      flood.request('tools/call', long(tag)).then(
        () => ended++,
        (error: unknown) => error,
      ),
    );
    await expect
      .poll(() => admission(p), { timeout: 20_000 })
      .toMatchObject({ inFlight: 2, queuedRequests: 3 });
    // The flood's calls wait at its cap; the quiet app, same address, is a client of its own: its call
    // ends while every flood call is still running or waiting (not in a slot one of them freed).
    await expect(quiet.request('tools/call', short)).resolves.toMatchObject({ content: [{ type: 'text' }] });
    expect(ended).toBe(0);
    expect(await admission(p)).toMatchObject({ inFlight: 2, queuedRequests: 3 });
    await flood.close();
    await Promise.all(held);
  }, 60_000);

  it("a token whose sessions fill the gate leaves another token's handshake, discover, ping, list and call prompt", async () => {
    const tokens = join(tmpdir(), `fair-shares-gate-${process.pid}`);
    writeFileSync(tokens, 'alpha\nbeta\n');
    const p = await start(['--max-host-in-flight', '2', '--auth-token-file', tokens]);
    // Alpha: two legacy sessions of two long calls each, as many as the whole gate (--max-in-flight 4).
    const sessions = [await host(p.url, 'a1', 'alpha'), await host(p.url, 'a2', 'alpha')];
    const held = sessions.flatMap((s, i) =>
      [0, 1].map((j) => s.request('tools/call', long(`${i}${j}`)).catch((error: unknown) => error)),
    );
    await expect
      .poll(() => admission(p), { timeout: 20_000 })
      .toMatchObject({ inFlight: 2, queuedRequests: 2 }); // one client: one share, capped at 2
    const beta = await host(p.url, 'b', 'beta'); // its initialize
    await expect(beta.request('ping', {})).resolves.toEqual({});
    await expect(beta.request('tools/list', {})).resolves.toMatchObject({ tools: expect.any(Array) });
    await expect(beta.request('tools/call', short)).resolves.toMatchObject({ content: [{ type: 'text' }] });
    const discover = await fetch(p.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: 'Bearer beta',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'server/discover',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'server/discover',
        params: {
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      }),
    });
    expect(await discover.text()).toContain('supportedVersions');
    expect(await admission(p)).toMatchObject({ inFlight: 2, queuedRequests: 2 });
    await Promise.all(sessions.map((s) => s.close()));
    await Promise.all(held);
  }, 60_000);

  it('answers handshakes and pings beside work that holds every slot (the control lane)', async () => {
    const p = await start(['--max-host-in-flight', '4']);
    const busy = await host(p.url, 'busy');
    let ended = 0;
    const held = ['a', 'b', 'c', 'd', 'e'].map((tag) =>
      busy.request('tools/call', long(tag)).then(
        () => ended++,
        (error: unknown) => error,
      ),
    );
    await expect
      .poll(() => admission(p), { timeout: 20_000 })
      .toMatchObject({ inFlight: 4, queuedRequests: 1 });
    const other = await host(p.url, 'other'); // its initialize runs beside the full gate
    await expect(other.request('ping', {})).resolves.toEqual({});
    await expect(busy.request('ping', {})).resolves.toEqual({}); // the busy host's own too
    // Answered while every slot is still held: no long call ended to make room for them.
    expect(ended).toBe(0);
    expect(await admission(p)).toMatchObject({ inFlight: 4, queuedRequests: 1 });
    await busy.close();
    await Promise.all(held);
  }, 60_000);

  it('answers inflight/stats on a host, and /stats on the admin listener, while every slot is taken', async () => {
    const p = await start(['--max-host-in-flight', '4']);
    const busy = await host(p.url);
    const held = ['a', 'b', 'c', 'd', 'e', 'f'].map((tag) =>
      busy.request('tools/call', long(tag)).catch((error: unknown) => error),
    );
    await expect
      .poll(() => admission(p), { timeout: 20_000 })
      .toMatchObject({ inFlight: 4, queuedRequests: 2 });
    const stats = (await busy.request('inflight/stats', {})) as { relay: { inFlight: number } };
    expect(stats.relay.inFlight).toBe(4);
    await busy.close();
    await Promise.all(held);
  }, 60_000);
});

const initialize = (url: string, token?: string) =>
  fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    }),
  });

describe('per-client and connection caps', () => {
  it('--max-client-sessions refuses one client its next session with 503 naming the flag; other clients go on', async () => {
    const tokens = join(tmpdir(), `fair-shares-tokens-${process.pid}`);
    writeFileSync(tokens, 'alpha\nbeta\n');
    const p = await start(['--max-client-sessions', '2', '--auth-token-file', tokens]);
    for (let i = 0; i < 2; i++) expect((await initialize(p.url, 'alpha')).status).toBe(200);
    const refused = await initialize(p.url, 'alpha');
    expect(refused.status).toBe(503);
    const body = (await refused.json()) as { error: { code: number; message: string } };
    expect(body.error.code).toBe(-32010);
    expect(body.error.message).toContain('--max-client-sessions 2');
    // Another token is another client, though it comes from the same address.
    expect((await initialize(p.url, 'beta')).status).toBe(200);
  }, 60_000);

  it('--max-connections: one more connection gets 503 naming the flag', async () => {
    const p = await start(['--max-connections', '2']);
    const { port } = new URL(p.url);
    const open = await Promise.all(
      [1, 2].map(
        () =>
          new Promise<ReturnType<typeof connect>>((resolve) => {
            const socket = connect(Number(port), '127.0.0.1', () => resolve(socket));
          }),
      ),
    );
    // The proxy counts a connection when it accepts it: the third is refused as soon as it opens.
    const reply = await new Promise<string>((resolve) => {
      let text = '';
      const socket = connect(Number(port), '127.0.0.1');
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => {
        text += chunk;
      });
      socket.on('close', () => resolve(text));
      socket.on('error', () => resolve(text));
    });
    expect(reply).toMatch(/^HTTP\/1\.1 503/);
    expect(reply).toContain('too many connections (--max-connections 2)');
    for (const socket of open) socket.destroy();
  }, 60_000);
});

describe("a token's sessions and requestState are its own", () => {
  const ELICIT = new URL('./fixtures/v1-elicit-upstream.mjs', import.meta.url).pathname;
  const post = (url: string, token: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${token}`,
        ...headers,
      },
      body: JSON.stringify(body),
    });
  const legacy = (session: string) => ({ 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' });
  const answer = async (response: Response) => {
    const text = await response.text();
    const data = text.split('\n').find((line) => line.startsWith('data: '));
    return JSON.parse(data ? data.slice(6) : text) as Record<string, unknown>;
  };

  async function withTokens(upstream: string): Promise<RunningProxy> {
    const tokens = join(tmpdir(), `fair-shares-bind-${process.pid}`);
    writeFileSync(tokens, 'alpha\nbeta\n');
    return start(['--auth-token-file', tokens, '--upstream-stdio', commandLine(process.execPath, upstream)]);
  }

  it('another token gets 404 SessionNotFound for a session, on calls and DELETE, as for a forged id', async () => {
    const p = await withTokens(UPSTREAM);
    const opened = await initialize(p.url, 'alpha');
    const session = opened.headers.get('mcp-session-id')!;
    await post(p.url, 'alpha', { jsonrpc: '2.0', method: 'notifications/initialized' }, legacy(session));
    const list = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
    const theirs = await post(p.url, 'beta', list, legacy(session));
    const forged = await post(p.url, 'beta', list, legacy('0f3c9a1e-77aa-4c1e-9d0a-5b2e6f7a8c9d'));
    expect([theirs.status, forged.status]).toEqual([404, 404]);
    const body = await theirs.json();
    expect(body).toEqual(await forged.json());
    expect(body).toMatchObject({ error: { code: -32012 } });
    const end = await fetch(p.url, {
      method: 'DELETE',
      headers: { authorization: 'Bearer beta', ...legacy(session) },
    });
    expect(end.status).toBe(404);
    // The session is untouched: its own token still uses it.
    const mine = await post(p.url, 'alpha', list, legacy(session));
    expect(mine.status).toBe(200);
    expect(await answer(mine)).toMatchObject({ result: { tools: expect.any(Array) } });
  }, 60_000);

  it("another token's retry with a requestState gets -32602, as a forged one does", async () => {
    const p = await withTokens(ELICIT);
    const meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
    };
    const modern = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'ask' };
    const ask = (id: number, token: string, retry: Record<string, unknown> = {}) =>
      post(
        p.url,
        token,
        {
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: { name: 'ask', arguments: {}, ...retry, _meta: meta },
        },
        modern,
      ).then(answer);
    const first = (await ask(1, 'alpha')) as { result: { requestState: string; inputRequests: object } };
    expect(first.result.requestState).toEqual(expect.any(String));
    const [key] = Object.keys(first.result.inputRequests);
    const inputResponses = { [key as string]: { action: 'accept', content: { ok: true } } };
    const state = first.result.requestState;
    const theirs = await ask(2, 'beta', { inputResponses, requestState: state });
    const forged = await ask(3, 'beta', { inputResponses, requestState: `${state.slice(0, -4)}AAAA` });
    expect(theirs).toMatchObject({ error: { code: -32602 } });
    expect((theirs.error as { message: string }).message).toBe((forged.error as { message: string }).message);
    // The state is still good for its own token: the parked call resumes and ends.
    const mine = await ask(4, 'alpha', { inputResponses, requestState: state });
    expect(mine).toMatchObject({ result: { content: [{ type: 'text' }] } });
  }, 60_000);
});
