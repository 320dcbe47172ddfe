import type { TransportKind } from '@mcp-inflight/core';
import { Endpoint, InflightError, JsonRpcError, serveLifecycle } from '@mcp-inflight/core';
import type { Channel, JsonRpcMessage } from '@mcp-inflight/core/adapter';
import { ManualClock } from '@mcp-inflight/core/testing';
import { describe, expect, it } from 'vitest';
import { LifecycleClient } from './client.js';
import { connectLifecycle } from './connect-lifecycle.js';
import { NegotiationError } from './handshake.js';

const IDENTITY = { clientInfo: { name: 'test-host', version: '1.0.0' }, capabilities: {} };
const SERVER = { serverInfo: { name: 'test-server', version: '2.0.0' }, capabilities: { tools: {} } };

/** A client and a server joined in memory through JSON text, as a wire would carry them. */
function pair(transport: TransportKind = 'stdio') {
  const clock = new ManualClock();
  const sent: JsonRpcMessage[] = [];
  let client!: Endpoint;
  let server!: Endpoint;
  const toClient: Channel = { write: (m) => client.receiveText(JSON.stringify(m)) };
  const toServer: Channel = {
    write: (m) => {
      sent.push(m as JsonRpcMessage);
      server.receiveText(JSON.stringify(m));
    },
  };
  server = new Endpoint({ role: 'server', transport, channel: toClient, clock });
  client = new Endpoint({
    role: 'client',
    transport,
    channel: toServer,
    clock,
    clientInfo: IDENTITY.clientInfo,
  });
  return { clock, client, server, sent };
}

/** A legacy server: `initialize` only; `server/discover` is an unknown method to it. */
function legacyOnly(server: Endpoint, chosen = '2025-06-18'): void {
  server.setRequestHandler('initialize', () => ({
    protocolVersion: chosen,
    capabilities: {},
    serverInfo: SERVER.serverInfo,
  }));
}

describe('connectLifecycle', () => {
  it('auto: a modern server answers server/discover and the connection speaks 2026-07-28', async () => {
    const { client, server, sent } = pair();
    serveLifecycle(server, SERVER);
    const handshake = await connectLifecycle(client, IDENTITY);
    expect(handshake).toMatchObject({ revision: '2026-07-28', era: 'modern', serverInfo: SERVER.serverInfo });
    expect(client.revision).toBe('2026-07-28');
    expect(sent.map((m) => m.method)).toEqual(['server/discover']);
    // No progress token on the probe: nobody listens for its progress.
    expect(
      (sent[0]?.params as { _meta: Record<string, unknown> } | undefined)?._meta.progressToken,
    ).toBeUndefined();
  });

  it('auto: a legacy server that refuses server/discover gets initialize, then initialized', async () => {
    const { client, server, sent } = pair();
    legacyOnly(server);
    const handshake = await connectLifecycle(client, IDENTITY);
    expect(handshake).toMatchObject({ revision: '2025-06-18', era: 'legacy' });
    expect(sent.map((m) => m.method)).toEqual(['server/discover', 'initialize', 'notifications/initialized']);
    expect(client.revision).toBe('2025-06-18');
  });

  it('auto: a silent server is legacy once the probe limit passes', async () => {
    const { clock, client, server, sent } = pair();
    legacyOnly(server);
    server.setRequestHandler('server/discover', () => new Promise(() => {})); // never answers
    const connecting = connectLifecycle(client, IDENTITY, { probeTimeoutMs: 1_000 });
    await Promise.resolve();
    clock.advance(1_000);
    await expect(connecting).resolves.toMatchObject({ era: 'legacy' });
    expect(sent.map((m) => m.method)).toContain('initialize');
  });

  it('stdio: a modern server still starting past the grace is spoken to in 2026-07-28, not taken as legacy', async () => {
    const clock = new ManualClock();
    const sent: JsonRpcMessage[] = [];
    const held: string[] = [];
    let reading = false;
    let client!: Endpoint;
    const server = new Endpoint({
      role: 'server',
      transport: 'stdio',
      channel: { write: (m) => client.receiveText(JSON.stringify(m)) },
      clock,
    });
    client = new Endpoint({
      role: 'client',
      transport: 'stdio',
      clock,
      clientInfo: IDENTITY.clientInfo,
      channel: {
        write: (m) => {
          sent.push(m as JsonRpcMessage);
          // Not reading yet: the pipe holds what was written, in order.
          if (reading) server.receiveText(JSON.stringify(m));
          else held.push(JSON.stringify(m));
        },
      },
    });
    serveLifecycle(server, SERVER); // modern only: initialize is refused
    const connecting = connectLifecycle(client, IDENTITY, { probeTimeoutMs: 5_000, timeoutMs: 30_000 });
    await Promise.resolve();
    clock.advance(5_000); // the grace: initialize goes out too
    await new Promise((resolve) => setImmediate(resolve));
    expect(sent.map((m) => m.method)).toEqual(['server/discover', 'initialize']);
    clock.advance(15_000); // 20 s after the start, the server reads its input
    reading = true;
    for (const text of held.splice(0)) server.receiveText(text);
    await expect(connecting).resolves.toMatchObject({ revision: '2026-07-28', era: 'modern' });
    expect(client.revision).toBe('2026-07-28');
  });

  it('stdio: a legacy server that ignores server/discover connects after the grace; the probe is cancelled as the probe', async () => {
    const { clock, client, server, sent } = pair();
    legacyOnly(server);
    server.setRequestHandler('server/discover', () => new Promise(() => {})); // never answers
    const reasons: string[] = [];
    client.events.on('cancel-sent', (_id, method, cause) => reasons.push(`${method}: ${cause.wireReason()}`));
    const connecting = connectLifecycle(client, IDENTITY, { probeTimeoutMs: 5_000 });
    await Promise.resolve();
    clock.advance(5_000);
    const handshake = await connecting;
    expect(handshake).toMatchObject({ era: 'legacy', revision: '2025-06-18' });
    expect(handshake.fallback).toBe('server/discover unanswered');
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toMatch(
      /^server\/discover: CANCELLED: .*server\/discover probe: initialize answered first/,
    );
    expect(reasons[0]).not.toContain('CEILING');
    // On the wire too: the probe's own id is cancelled, after the initialize that superseded it.
    const probe = sent.find((m) => m.method === 'server/discover') as { id: unknown };
    const cancels = sent.filter((m) => m.method === 'notifications/cancelled');
    expect(cancels).toHaveLength(1);
    expect(cancels[0]).toMatchObject({ params: { requestId: probe.id } });
    expect(sent.findIndex((m) => m.method === 'initialize')).toBeLessThan(sent.indexOf(cancels[0]!));
  });

  it('HTTP: the same after the grace: initialize answered, the probe cancelled as the probe, not CEILING', async () => {
    const { clock, client, server } = pair('http');
    legacyOnly(server);
    server.setRequestHandler('server/discover', () => new Promise(() => {}));
    const reasons: string[] = [];
    client.events.on('cancel-sent', (_id, _method, cause) => reasons.push(cause.wireReason()));
    const connecting = connectLifecycle(client, IDENTITY, { probeTimeoutMs: 2_000 });
    await Promise.resolve();
    clock.advance(2_000);
    const handshake = await connecting;
    expect(handshake.era).toBe('legacy');
    expect(handshake.fallback).toBe('server/discover unanswered');
    expect(reasons.join()).toMatch(/server\/discover probe: initialize answered first/);
    expect(reasons.join()).not.toContain('CEILING');
  });

  it('a refused probe says why it fell back', async () => {
    const { client, server } = pair();
    legacyOnly(server);
    const handshake = await connectLifecycle(client, IDENTITY);
    expect(handshake.fallback).toBe('server/discover refused');
  });

  it('2026-07-28 only: a legacy server is a NegotiationError with both sides named', async () => {
    const { client, server } = pair();
    legacyOnly(server);
    const error = await connectLifecycle(client, IDENTITY, { revision: '2026-07-28' }).catch((e) => e);
    expect(NegotiationError.is(error)).toBe(true);
    expect(error).toBeInstanceOf(NegotiationError);
    expect(error.requested).toBe('2026-07-28');
    expect(error.supported).toContain('2026-07-28');
  });

  it('a legacy revision goes straight to initialize; a server choice we do not speak is refused', async () => {
    const { client, server, sent } = pair();
    legacyOnly(server, '1999-01-01');
    const error = await connectLifecycle(client, IDENTITY, { revision: '2025-03-26' }).catch((e) => e);
    expect(sent[0]?.method).toBe('initialize');
    expect(NegotiationError.is(error)).toBe(true);
    expect(error.offered).toEqual(['1999-01-01']);
  });

  it('a modern refusal naming only legacy revisions leads to initialize with the best of them', async () => {
    const { client, server, sent } = pair();
    legacyOnly(server, '2025-03-26');
    server.setRequestHandler('server/discover', () => {
      throw new JsonRpcError(-32022, 'unsupported', { supported: ['2025-03-26'], requested: '2026-07-28' });
    });
    const handshake = await connectLifecycle(client, IDENTITY);
    expect(handshake.revision).toBe('2025-03-26');
    expect((sent[1]?.params as { protocolVersion: string } | undefined)?.protocolVersion).toBe('2025-03-26');
  });

  it('a modern refusal that names 2026-07-28 is not guessed around [stdio compat]', async () => {
    const { client, server } = pair();
    server.setRequestHandler('server/discover', () => {
      throw new JsonRpcError(-32022, 'unsupported', { supported: ['2026-07-28'] });
    });
    await expect(connectLifecycle(client, IDENTITY)).rejects.toSatisfy(NegotiationError.is);
  });

  it('over HTTP, 2024-11-05 is refused before anything is sent', async () => {
    const { client, sent } = pair('http');
    await expect(connectLifecycle(client, IDENTITY, { revision: '2024-11-05' })).rejects.toSatisfy(
      NegotiationError.is,
    );
    expect(sent).toEqual([]);
  });

  it("the caller's abort ends the handshake; initialize itself is never cancelled on the wire [CN7]", async () => {
    const { client, server, sent } = pair();
    server.setRequestHandler('initialize', () => new Promise(() => {}));
    const stop = new AbortController();
    const connecting = connectLifecycle(client, IDENTITY, { revision: '2025-11-25', signal: stop.signal });
    stop.abort('user closed the window');
    await expect(connecting).rejects.toSatisfy((e) => InflightError.is(e) && e.code === 'CANCELLED');
    expect(sent.map((m) => m.method)).toEqual(['initialize']);
  });
});

describe('LifecycleClient', () => {
  it('connects on first use, once, and calls tools with a typed result', async () => {
    const { client, server, sent } = pair();
    serveLifecycle(server, SERVER);
    server.setRequestHandler('tools/call', (params) => ({
      content: [
        { type: 'text', text: `hello ${String((params?.arguments as { who: string } | undefined)?.who)}` },
      ],
    }));
    const mcp = new LifecycleClient(client, IDENTITY, {
      notify: async (method, params) => client.notify(method, params),
      close: async () => client.close(),
    });
    const [a, b] = await Promise.all([mcp.callTool('hi', { who: 'a' }), mcp.callTool('hi', { who: 'b' })]);
    expect(a.content[0]?.text).toBe('hello a');
    expect(b.content[0]?.text).toBe('hello b');
    expect(sent.filter((m) => m.method === 'server/discover')).toHaveLength(1);
    expect(mcp.server?.era).toBe('modern');
    expect(mcp.revision).toBe('2026-07-28');
    await mcp.close();
    await mcp.close(); // twice is fine
    await expect(mcp.connect()).rejects.toThrow(/closed/);
  });

  it('hands a block of an unknown kind, or a malformed one, on as { type: "unknown", block }', async () => {
    const { client, server } = pair();
    serveLifecycle(server, SERVER);
    const sent = [
      { type: 'text', text: 'fine' },
      { type: 'video', url: 'https://example.com/v' },
      { type: 'text', text: 42 },
      { type: 'image', data: 'AAAA' },
      null,
    ];
    server.setRequestHandler('tools/call', () => ({ content: sent, structuredContent: [1, 2] }));
    const mcp = new LifecycleClient(client, IDENTITY, {
      notify: async (method, params) => client.notify(method, params),
      close: async () => client.close(),
    });
    const result = await mcp.callTool('any');
    expect(result.content).toEqual([
      { type: 'text', text: 'fine' },
      ...sent.slice(1).map((block) => ({ type: 'unknown', block })),
    ]);
    expect(result.structuredContent).toEqual([1, 2]);
    await mcp.close();
  });
});
