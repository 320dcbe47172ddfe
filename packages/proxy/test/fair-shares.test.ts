// Fair shares between the proxy's hosts [rule 14], on real processes and sockets: one host's long calls
// cannot take the upstream from another (--max-in-flight, --max-host-in-flight, hosts taken in turn), one
// client cannot open every legacy session (--max-client-sessions), the connection cap names its flag
// (--max-connections), and the proxy's own stats answer outside every host's share.
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

async function host(url: string): Promise<HttpClient> {
  const client = new HttpClient({ url, revision: '2025-11-25', listen: false, idleMs: 60_000 });
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
    const busy = await host(p.url);
    const quiet = await host(p.url);
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
    const busy = await host(p.url);
    const quiet = await host(p.url);
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
