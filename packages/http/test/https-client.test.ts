// The Node HttpClient over node:https: a server on 127.0.0.1 with a self-signed certificate (a fixture,
// valid for 127.0.0.1 until 2126) that this test alone trusts, through https.globalAgent, which the client
// sends on. Negotiation, progress, and a 2026-07-28 cancel closing its stream.
import { readFileSync } from 'node:fs';
import { createServer, globalAgent, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { InflightError } from '@mcp-inflight/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpHandler, HttpClient, toNodeListener } from '../src/index.js';
import { observe, workServer } from './fixtures/work-server.js';

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url));
const observed = observe();
let server: Server;
let url: string;
let trusted: unknown;

beforeAll(async () => {
  const cert = fixture('loopback-cert.pem');
  trusted = globalAgent.options.ca;
  globalAgent.options.ca = cert;
  const handler = createHttpHandler(workServer(observed), { retryMs: 50 });
  server = createServer({ key: fixture('loopback-key.pem'), cert }, toNodeListener(handler));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
});
afterAll(async () => {
  globalAgent.options.ca = trusted as typeof globalAgent.options.ca;
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('HttpClient over node:https', () => {
  it.each(['2026-07-28', '2025-11-25'] as const)('speaks %s and gets progress in order', async (revision) => {
    const client = new HttpClient({ url, revision });
    const seen: number[] = [];
    const result = await client.callTool(
      'work',
      { steps: 2, intervalMs: 60 },
      {
        onprogress: (p) => seen.push(p.progress),
      },
    );
    expect(client.revision).toBe(revision);
    expect(result).toMatchObject({ content: [{ type: 'text', text: 'done 2' }] });
    expect(seen).toEqual([1, 2]);
    await client.close();
  });

  it('a 2026-07-28 cancel closes the stream: the server handler sees the abort', async () => {
    const client = new HttpClient({ url, revision: '2026-07-28' });
    const stop = new AbortController();
    const aborted = observed.nextAbort();
    const call = client.callTool(
      'work',
      { steps: 50, intervalMs: 100 },
      { signal: stop.signal, onprogress: () => stop.abort() },
    );
    await expect(call).rejects.toBeInstanceOf(InflightError);
    await aborted;
    await client.close();
  });

  it('refuses a server whose certificate it does not trust, with the TLS reason', async () => {
    const client = new HttpClient({ url, revision: '2026-07-28' });
    globalAgent.options.ca = undefined;
    try {
      await expect(client.connect()).rejects.toThrow(/self.signed|certificate/i);
    } finally {
      globalAgent.options.ca = fixture('loopback-cert.pem');
      await client.close();
    }
  });
});
